# SPDX-License-Identifier: MIT
# The events of a CTF trace read with the bt2 module: the loop every python oracle of the tests
# reads its trace with. A script imports it from its own directory, e.g. from tests/stacks:
#   sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../e2e"))
#   from bt2events import events  # noqa: E402
import sys

import bt2


def messages(trace, pid=None, discarded="fail"):
    """The event messages of TRACE (a directory babeltrace2 reads), in time order; with PID,
    only those whose vpid context is PID. DISCARDED says what a discarded-events message does:
    "fail" exits with "FAIL: events discarded", "ignore" skips it, a function is called with
    the message."""
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if type(msg) is bt2._DiscardedEventsMessageConst:
            if discarded == "fail":
                sys.exit("FAIL: events discarded")
            if callable(discarded):
                discarded(msg)
            continue
        if type(msg) is not bt2._EventMessageConst:
            continue
        if pid is not None and int(msg.event.common_context_field["vpid"]) != pid:
            continue
        yield msg


def events(trace, pid=None, discarded="fail"):
    """The events of messages(): name, payload_field, common_context_field, cls."""
    for msg in messages(trace, pid, discarded):
        yield msg.event
