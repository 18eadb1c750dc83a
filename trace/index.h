/* SPDX-License-Identifier: MIT */
/* LTTng's packet index beside a CTF trace: what the stream files should hold (core only). */
#ifndef PALEV_TRACE_INDEX_H
#define PALEV_TRACE_INDEX_H

#include "core.h"

/* For each DIR/index/NAME.idx, the packets it lists that DIR/NAME does not hold in full are
 * appended to *list (one entry per stream file short of packets). */
void pt__index_check(const char *dir, pt_missing **list, unsigned *n);

#endif /* PALEV_TRACE_INDEX_H */
