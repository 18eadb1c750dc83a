/* SPDX-License-Identifier: MIT */
/* A host whose macros and typedefs are named like the manifest's fields (host.h), including the
 * events header after them and firing the event through the macro and through the function. */
#include "host.h"

#include "Host_Names-events.h"

int host_fire(TraceNo trace, int exit_code);

int host_fire(TraceNo trace, int exit_code)
{
    static const uint32_t slots[2] = { 7, 8 };
    Host_Names_TraceStop_Frame frame = { trace, NULL };
    Host_Names_TraceStop_Regs regs[2] = { { 1 }, { 2 } };
    Frame mine = { exit_code };

    FireEventTraceStop(trace, exit_code, Name, Name_Length, 2, slots, &frame, regs);
    (FireEventTraceStop)(trace, Exit, Name, Name_Length, 2, slots, &frame, regs);
    return mine.depth + Count + (sizeof(Regs) == 8);
}
