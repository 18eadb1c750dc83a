/* SPDX-License-Identifier: MIT */
/* The public header alone, used as a host would: compiled as C11 and (header.cpp) as C++17 with
 * -Wall -Wextra -Werror -pedantic-errors (and -Wold-style-cast). */
#include <paleventing.h>

int palev_header_use(void);

int palev_header_use(void)
{
    static const int state = 0;
    palev_guid g = { 1, 2, 3, { 4, 5, 6, 7, 8, 9, 10, 11 } };
    palev_event_descriptor d = { 1, 0, 0, 4, 0, 0, 0x1 };
    char buf[8];
    size_t n = palev_utf16_to_utf8(buf, sizeof(buf), u"x\u00e9", PALEV_NUL_TERMINATED);

    if (palev_init() != 0)
        return -1;
    /* no casts: C++ hosts build with -Wold-style-cast */
    if (PALEV_TP_STATE_ENABLED(state) || PALEV_EVENTSOURCE_LISTENING())
        return 1;
    return (n + g.data4[0] + d.level > 0) + palev_provider_is_enabled(NULL, 0, 0) +
           (palev_strerror(0) != NULL) + palev_eventsource_is_enabled("source", "name") +
           PALEV_VERSION_MAJOR;
}
