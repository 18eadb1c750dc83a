/* SPDX-License-Identifier: MIT */
/* The consumer host of tests/adoption: fires each event of app.man once with known values. */
#include <stdint.h>

#include "Palev_Adopt_App-events.h"

int main(void)
{
    static const uint32_t sizes[] = { 16, 32, 4096 };

    FireEventAppStarted(3, u"adopt \u00e9\u65e5", 0.25);
    if (EventEnabledWorkDone())
        FireEventWorkDone(1234567890123ULL, "done", 3, sizes);
#ifdef APP_EVENTSOURCE
    palev_eventsource_write_pack("Adopt", 7, "Hello", "{s:i, s:s}", "n", 1, "who", "app");
#endif
    FireEventAppStopped();
    return 0;
}
