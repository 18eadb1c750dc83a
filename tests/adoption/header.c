/* SPDX-License-Identifier: MIT */
/* The public headers, used as a host (paleventing.h) and as generated code (paleventing-gen.h)
 * would: compiled as C11 and (header.cpp) as C++17 with -Wall -Wextra -Werror -pedantic-errors
 * (and -Wold-style-cast). */
#include <paleventing.h>

/* The host's header alone declares nothing only generated code uses. */
#if defined(PALEV_TP_STATE_ENABLED) || defined(PALEV_SCRATCH_STACK_SIZE) || defined(PALEV_TP_OR_USDT)
#error "paleventing.h declares what belongs to paleventing-gen.h"
#endif

int palev_header_use(void);

int palev_header_use(void)
{
    palev_guid g = { 1, 2, 3, { 4, 5, 6, 7, 8, 9, 10, 11 } };
    char buf[8];
    size_t n = palev_utf16_to_utf8(buf, sizeof(buf), u"x\u00e9", PALEV_NUL_TERMINATED);

    if (palev_init() != 0)
        return -1;
    /* no casts: C++ hosts build with -Wold-style-cast */
    if (PALEV_EVENTSOURCE_LISTENING())
        return 1;
    return (n + g.data4[0] > 0) + palev_provider_is_enabled(NULL, 0, 0) +
           (palev_strerror(0) != NULL) + palev_eventsource_is_enabled("source", "name") +
           PALEV_VERSION_MAJOR;
}

#include <paleventing-gen.h>

int palev_header_gen_use(void);

/* What a generated <P>-events.c does: descriptors, the scratch arena, state checks. */
int palev_header_gen_use(void)
{
    static const int state = 0;
    static const unsigned short sem = 0;
    palev_event_descriptor d = { 1, 0, 0, 4, 0, 0, 0x1 };
    char stack[PALEV_SCRATCH_STACK_SIZE];
    palev_scratch sc;
    const char *s;

    palev_scratch_init(&sc, stack, sizeof(stack));
    s = palev_scratch_ansi(&sc, "x", PALEV_NUL_TERMINATED);
    palev_scratch_fini(&sc);
    if (PALEV_TP_STATE_ENABLED(state) || PALEV_TP_OR_USDT(state, sem))
        return 1;
    PALEV_STACK_AFTER_EVENT(NULL, 0);
    return d.level + (s != NULL) + palev_provider_register(NULL);
}
