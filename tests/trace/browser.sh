# SPDX-License-Identifier: MIT
# Helpers for looking at pages as a person would: a local HTTP server on 127.0.0.1 (a free port)
# that logs every request, and headless Chromium taking a screenshot and dumping the DOM.
# Sourced by export.sh and report.sh.

PT_HTTP_PID=""
# pt_serve DIR LOG: serves DIR; sets PT_HTTP_PORT.
pt_serve() {
    (cd "$1" && exec /usr/bin/python3 -u -m http.server 0 --bind 127.0.0.1) > "$2" 2>&1 &
    PT_HTTP_PID=$!
    for _ in $(seq 50); do
        PT_HTTP_PORT=$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$2" | head -1)
        [ -n "$PT_HTTP_PORT" ] && return 0
        sleep 0.1
    done
    echo "FAIL: the HTTP server did not start: $(cat "$2")"
    return 1
}

pt_unserve() {
    [ -n "$PT_HTTP_PID" ] && kill "$PT_HTTP_PID" 2>/dev/null && wait "$PT_HTTP_PID" 2>/dev/null
    PT_HTTP_PID=""
}

# pt_chromium URL PNG DOM [WIDTHxHEIGHT]: a screenshot and the DOM after the page settled.
pt_chromium() {
    local size=${4:-1200,900}
    local flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=5000
                 --window-size="$size" --user-data-dir="$(dirname "$2")/chromium-profile")
    timeout 60 chromium "${flags[@]}" --screenshot="$2" "$1" > /dev/null 2>&1 &&
        timeout 60 chromium "${flags[@]}" --dump-dom "$1" > "$3" 2> /dev/null
}

# pt_not_blank PNG: the screenshot has more than one colour in quantity (python, no PIL: zlib).
pt_not_blank() {
    /usr/bin/python3 - "$1" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w, h, ct = 8, b"", 0, 0, 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ct = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
bpp = {2: 3, 6: 4}[ct]
stride = w * bpp + 1
rows = [raw[i * stride + 1:(i + 1) * stride] for i in range(h)]
# filtered bytes differ from pixels, but a blank page compresses to constant rows
distinct = len(set(rows))
print(f"{w}x{h} screenshot, {distinct} distinct rows")
sys.exit(0 if distinct > h // 20 else 1)
PY
}
