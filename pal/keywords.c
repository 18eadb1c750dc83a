/* SPDX-License-Identifier: MIT */
/* The provider-level check: would an ETW session (level, keywords) receive an enabled event? */
#include <stddef.h>

#include "internal.h"

#define NO_KEYWORDS 64

/* ETW's rule for one event, and LTTng's answer for it. */
static int selected(const palev_provider *p, uint32_t i, uint8_t level)
{
    const palev_event_descriptor *d = &p->events[i];

    return (level == 0 || d->level <= level) && *(const volatile int *)p->event_states[i];
}

static int any_in_group(const palev_provider *p, int group, uint8_t level)
{
    for (uint32_t k = p->keyword_start[group]; k < p->keyword_start[group + 1]; k++)
        if (p->keyword_events[k] < p->event_count && selected(p, p->keyword_events[k], level))
            return 1;
    return 0;
}

PALEV_API int palev_provider_is_enabled(const palev_provider *p, uint8_t level, uint64_t keywords)
{
    if (!p || p->struct_size < offsetof(palev_provider, keyword_start) + sizeof(p->keyword_start) ||
        !p->keyword_events || !p->keyword_start)
        return 0;
    if (any_in_group(p, NO_KEYWORDS, level))
        return 1;
    /* only the groups of the bits asked for: a narrow mask reads few states */
    for (uint64_t rest = keywords; rest; rest &= rest - 1)
        if (any_in_group(p, __builtin_ctzll(rest), level))
            return 1;
    return 0;
}
