/* SPDX-License-Identifier: MIT */
/* palev-trace's edge host: what a trace may hold that a reader must not get wrong, fired once
 * stdin closes (the test's session tracks this process first), all as dynamic events of
 * provider Ev and EventSource events:
 *   - two event names whose FNV-1a 64-bit hashes collide (R6MrKe6TXPM x3, CmbqjLx4J_P x5);
 *   - a process started under a name with an escape sequence (edge.sh runs it through a symbolic
 *     link so named): its threads carry that name, LTTng's listener threads "NAME-ust";
 *   - Job activities whose outcome is a field of the Stop only, one with control characters;
 *     Step activities with no Outcome at all;
 *   - a counter with NaN and infinities (Gauge/v), one spanning +-1e308 (Huge/v);
 *   - an EventSource source and name with control characters, and a payload with an integer
 *     beyond int64 and a number beyond a double (1e400) beside a plain one. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "paleventing.h"

static palev_event *define(const char *name, const palev_field *fields, size_t n)
{
    palev_event *e = NULL;
    int err = palev_event_define("Ev", name, 4, 0, fields, n, &e);
    if (err)
        fprintf(stderr, "edge_host: Ev:%s: %s\n", name, palev_strerror(err));
    return e;
}

int main(void)
{
    static const palev_field n_field[] = { { "n", PALEV_TYPE_INT32, 0 } };
    static const palev_field id_field[] = { { "id", PALEV_TYPE_UINT32, 0 } };
    static const palev_field stop_fields[] = { { "id", PALEV_TYPE_UINT32, 0 }, { "Outcome", PALEV_TYPE_STRING, 0 } };
    static const palev_field v_field[] = { { "v", PALEV_TYPE_DOUBLE, 0 } };
    static const char *const outcomes[] = { "ok", "fail\x1b[2J\n\tnow", "ok" };
    static const double gauge[] = { 1.0, NAN, INFINITY, 2.0, -INFINITY };
    static const double huge[] = { 1e308, -1e308, 1.5e308, -1.7e308, 0.5e308 };
    char buf[64];
    while (fgets(buf, sizeof(buf), stdin))
        ;
    palev_event *a = define("R6MrKe6TXPM", n_field, 1), *b = define("CmbqjLx4J_P", n_field, 1);
    palev_event *job_start = define("JobStart", id_field, 1), *job_stop = define("JobStop", stop_fields, 2);
    palev_event *step_start = define("StepStart", id_field, 1), *step_stop = define("StepStop", id_field, 1);
    palev_event *g = define("Gauge", v_field, 1), *h = define("Huge", v_field, 1);
    if (!a || !b || !job_start || !job_stop || !step_start || !step_stop || !g || !h)
        return 2;
    for (int i = 0; i < 3; i++)
        palev_event_writef(a, i);
    for (int i = 0; i < 5; i++)
        palev_event_writef(b, i);
    for (unsigned i = 0; i < 3; i++) {
        palev_event_writef(job_start, i);
        palev_event_writef(step_start, i);
        palev_event_writef(step_stop, i);
        palev_event_writef(job_stop, i, outcomes[i]);
    }
    for (size_t i = 0; i < sizeof(gauge) / sizeof(gauge[0]); i++)
        palev_event_writef(g, gauge[i]);
    for (size_t i = 0; i < sizeof(huge) / sizeof(huge[0]); i++) {
        struct timespec pause = { 0, 30000000 };    /* one point per bin of the report's chart */
        palev_event_writef(h, huge[i]);
        nanosleep(&pause, NULL);
    }
    int err = palev_eventsource_write("Edge\x1b]0;pwned\x07", 1, "odd\tname",
                                      "{\"big\":18446744073709551615,\"huge\":1e400,\"ok\":3}");
    if (err)
        fprintf(stderr, "edge_host: EventSource: %s\n", palev_strerror(err));
    return err ? 2 : 0;
}
