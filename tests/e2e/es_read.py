#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Print the Paleventing:EventSource events of one process from a CTF trace, byte for byte.
# usage: es_read.py TRACEDIR PID
# One line per event: "EventID<TAB>EventSourceName<TAB>EventName<TAB>Payload" (payloads never hold a
# raw newline: control characters are escaped in valid JSON). Then "events discarded" when the
# tracer reported discarded events in any stream (an event larger than a sub-buffer is; LTTng
# 2.13 traces do not always let babeltrace2 count them).
# babeltrace2's own text output escapes strings; the bt2 module gives the exact values.
import sys

import bt2


def main(trace, pid):
    out = sys.stdout.buffer
    discarded = False
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if type(msg) is bt2._DiscardedEventsMessageConst:
            discarded = True
            continue
        if type(msg) is not bt2._EventMessageConst:
            continue
        ev = msg.event
        if ev.name != "Paleventing:EventSource" or int(ev.common_context_field["vpid"]) != pid:
            continue
        f = ev.payload_field
        fields = [str(int(f["EventID"])), str(f["EventSourceName"]), str(f["EventName"]),
                  str(f["Payload"])]
        out.write("\t".join(fields).encode("utf-8", "surrogateescape") + b"\n")
    if discarded:
        out.write(b"events discarded\n")


main(sys.argv[1], int(sys.argv[2]))
