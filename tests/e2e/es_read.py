#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Print the Paleventing:EventSource events of one process from a CTF trace, byte for byte.
# usage: es_read.py TRACEDIR PID
# One line per event: "EventID<TAB>EventSourceName<TAB>EventName<TAB>Payload" (payloads never hold a
# raw newline: control characters are escaped in valid JSON). Then "events discarded" when the
# tracer reported discarded events in any stream (an event larger than a sub-buffer is; LTTng
# 2.13 traces do not always let babeltrace2 count them).
# babeltrace2's own text output escapes strings; the bt2 module gives the exact values.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bt2events import events  # noqa: E402


def main(trace, pid):
    out = sys.stdout.buffer
    discarded = []
    for ev in events(trace, pid, discarded=discarded.append):
        if ev.name != "Paleventing:EventSource":
            continue
        f = ev.payload_field
        fields = [str(int(f["EventID"])), str(f["EventSourceName"]), str(f["EventName"]),
                  str(f["Payload"])]
        out.write("\t".join(fields).encode("utf-8", "surrogateescape") + b"\n")
    if discarded:
        out.write(b"events discarded\n")


main(sys.argv[1], int(sys.argv[2]))
