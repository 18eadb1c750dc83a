/* SPDX-License-Identifier: MIT */
/* babeltrace2's text forms (bttext.h). */
#include <stdio.h>

#include "bttext.h"

const char *pcm_bt_string_escape(unsigned char c)
{
    static const char *const escapes[128] = {
        ['"'] = "\\\"", ['\\'] = "\\\\", ['\n'] = "\\n", ['\t'] = "\\t", ['\r'] = "\\r",
    };

    return c < 128 ? escapes[c] : NULL;
}

const char *pcm_bt_label_escape(unsigned char c)
{
    return c == '?' ? "\\?" : pcm_bt_string_escape(c);
}

int pcm_bt_real(char *buf, size_t size, double v)
{
    return snprintf(buf, size, "%g", v);
}
