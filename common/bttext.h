/* SPDX-License-Identifier: MIT */
/* babeltrace2's text forms (its sink.text.pretty, 2.0): how a value recorded by LTTng reads in
 * `babeltrace2` output, for whatever must match that text exactly (palev-gen's selftest
 * expectations). */
#ifndef PCM_BTTEXT_H
#define PCM_BTTEXT_H

#include <stddef.h>

/* How byte c of a string field is shown between its double quotes: its escape ("\\\"", "\\\\",
 * "\\n", "\\t", "\\r"), or NULL when it is shown as it is. */
const char *pcm_bt_string_escape(unsigned char c);

/* The same for an enumeration label: LTTng's metadata also writes '?' as "\\?" (so that no
 * trigraph can form), and babeltrace2 shows it so. */
const char *pcm_bt_label_escape(unsigned char c);

/* A real (float or double) field as babeltrace2 shows it ("%g"), snprintf's contract. */
int pcm_bt_real(char *buf, size_t size, double v);

#endif /* PCM_BTTEXT_H */
