/* SPDX-License-Identifier: MIT */
/* The library's life cycle: palev_init/palev_fini, what runs when it is loaded and unloaded, and
 * the text of its error codes. */
#include <errno.h>

#include "internal.h"

static const struct {
    int err;
    const char *text;
} error_texts[] = {
    { 0, "success" },
    { -EINVAL, "invalid argument: a NULL or malformed provider (too small struct_size, a name "
               "that is not 1 to 255 characters of [A-Za-z0-9_] or begins with lttng_), a NULL "
               "EventSource source or name, invalid JSON, a bad json_pack format or argument, or "
               "a dynamic event with a bad name, type or flags, field names that meet once "
               "leading underscores are removed, or the wrong number of values" },
    { -ENOENT, "probe provider could not be loaded; tracing of this provider is off (from "
               "palev_event_undefine_provider(): the provider has no dynamic event)" },
    { -ECANCELED, "loading probe providers is disabled (PALEV_LTTNG=0, or palev_fini() was "
                  "called)" },
    { -ENOMEM, "out of memory" },
    { -EDEADLK, "provider registered again, or waited for, by the thread loading it (from a "
                "constructor of a probe provider)" },
    { -EEXIST, "a dynamic event of that provider and name is defined with other fields, level or "
               "keywords" },
    { -EBUSY, "the provider name of a dynamic event belongs to a generated provider, is "
              "\"" PCM_OWN_PROVIDER "\" or begins with lttng_ (LTTng's own): it cannot be defined or "
              "undefined" },
    { -EPROTO, "a generated provider compiled with paleventing headers of another ABI version "
               "(PALEV_ABI_VERSION): its tracing is off; rebuild it against this library's "
               "headers" },
    { -EINPROGRESS, "the probe provider is being loaded in the background (PALEV_LOAD=background): "
                    "palev_provider_wait() waits for it" },
    { -ETIMEDOUT, "probe providers were still loading when palev_provider_wait() gave up" },
    { -E2BIG, "too many fields for a dynamic event (PALEV_EVENT_MAX_FIELDS)" },
    { -ENAMETOOLONG, "a dynamic event's provider:name or field name is too long for LTTng" },
};

PALEV_API const char *palev_strerror(int err)
{
    for (size_t i = 0; i < sizeof(error_texts) / sizeof(error_texts[0]); i++)
        if (error_texts[i].err == err)
            return error_texts[i].text;
    return "unknown paleventing error";
}

/* Registration loads at once (initialising lazily, since generated constructors may run before
 * ours), so there is never a registered provider left to load here: init only reads the env. */
PALEV_API int palev_init(void)
{
    return palev__config_status();
}

PALEV_API void palev_fini(void)
{
    palev__registry_finish();
}

__attribute__((constructor)) static void palev_constructor(void)
{
    palev__fork_init();
    (void)palev_init();
    palev__stack_init();
}

/* At exit (or dlclose): the jitdump ends with CODE_CLOSE. */
__attribute__((destructor)) static void palev_destructor(void)
{
    palev__perfmap_stop();
}
