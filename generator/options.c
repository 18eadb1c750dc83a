/* SPDX-License-Identifier: MIT */
/* pg_options as the tools fill them: --provider-name ETWNAME=LTTNGNAME, read one way everywhere
 * (palev-gen's command line, palev-trace's, and the provider-names file palev-collect writes). */
#include "model.h"

#include <string.h>

int pg_options_rename(pg_ctx *cx, pg_options *opt, const char *spec, pg_buf *err)
{
    const char *eq = strchr(spec, '=');
    size_t n;

    if (!eq || eq == spec || !eq[1]) {
        pg_buf_printf(cx, err, "wants ETWNAME=LTTNGNAME, not \"%s\"", spec);
        return -1;
    }
    n = (size_t)(eq - spec);
    for (size_t i = 0; i < opt->rename_from.len; i++) {
        const char *from = opt->rename_from.items[i], *to = opt->rename_to.items[i];

        if (strlen(from) == n && strncmp(from, spec, n) == 0) {
            if (strcmp(to, eq + 1) == 0)
                return 0;   /* said twice */
            pg_buf_printf(cx, err, "%s: provider \"%s\" is already renamed to \"%s\"", spec, from, to);
            return -1;
        }
    }
    pg_vec_push(cx, &opt->rename_from, pg_strndup(cx, spec, n));
    pg_vec_push(cx, &opt->rename_to, pg_strdup(cx, eq + 1));
    return 0;
}
