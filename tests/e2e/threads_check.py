#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Checks the events threads_host.c recorded (palev_read lines on stdin): every field of every
# event equal to what (thread, sequence number) gives, no event twice. Prints a summary.
import re
import sys

FIELD = re.compile(r'(\w+) = ("(?:[^"\\]|\\.)*"|\( [^)]* \)|[^,]+?)(?:, | \}$)')
M32, M64 = (1 << 32) - 1, (1 << 64) - 1


def hexa(v):
    return f"0x{v:X}"


def ints(t, i):
    return {"I8": t, "U8": i & 0xFF, "I16": -(i % 30000), "U16": (i * 7) & 0xFFFF,
            "I32": -(i % 2000000000), "U32": (i * 13) & M32, "I64": -i, "U64": i,
            "H32": hexa((0xC0DE0000 + i) & M32), "H64": hexa((t << 56) | i),
            "U8Hex": hexa((i * 5) & 0xFF), "U16Hex": hexa((i * 11) & 0xFFFF),
            "HResult": hexa(0x40000000 + i % 1000), "Size": i * 2, "Addr": hexa(0x1000 + i * 8)}


def wide(t, i):
    f = {"F01": t, "F02": i & M32}
    f.update({f"F{k:02}": (i + k) & M32 for k in range(3, 11)})
    f.update({"F11": (i * 1000003) & M64, "F12": float(i % 64) + 0.25,
              "F13": f'"t{t}#{i} é日😀"',
              "F14": '( "true" : container = 1 )' if i & 1 else '( "false" : container = 0 )',
              "F15": hexa(0xABC0000 + i)})
    return f


def check(line):
    """The event's (name, thread, seq), or raises ValueError saying what is wrong."""
    name, _, rest = line.partition(": { ")
    fields = dict(FIELD.findall(rest))
    if name.endswith(":IntsAlways"):
        t, i = int(fields.get("I8", -1)), int(fields.get("U64", -1))
        want = ints(t, i)
    elif name.endswith(":Wide15"):
        t, i = int(fields.get("F01", -1)), int(fields.get("F02", -1))
        want = wide(t, i)
    else:
        raise ValueError("unexpected event")
    if t not in (1, 2) or set(fields) != set(want):
        raise ValueError("wrong thread or field names")
    for k, v in want.items():
        got = float(fields[k]) if isinstance(v, float) else fields[k]
        if got != (v if isinstance(v, float) else str(v)):
            raise ValueError(f"{k} = {fields[k]}, expected {v}")
    return name, t, i


def main():
    seen, bad, counts = set(), [], {}
    for line in sys.stdin:
        line = line.rstrip("\n")
        try:
            key = check(line)
        except ValueError as e:
            bad.append(f"{e}: {line}")
            continue
        if key in seen:
            bad.append(f"recorded twice: {line}")
        seen.add(key)
        counts[key[0]] = counts.get(key[0], 0) + 1
    if bad:
        print(f"FAIL: {len(bad)} bad event(s):", *bad[:5], sep="\n  ")
        return 1
    if sorted(counts) != ["Palev_Host:IntsAlways", "Palev_Host:Wide15"]:
        print(f"FAIL: not both events recorded: {counts}")
        return 1
    print(", ".join(f"{n} {k.split(':')[1]}" for k, n in sorted(counts.items())) + ", every field intact")
    return 0


if __name__ == "__main__":
    sys.exit(main())
