/* SPDX-License-Identifier: MIT */
/* Host of enabled.sh: on each "q" line of stdin prints ProviderEnabled<P>(level, keywords) of both
 * providers for a fixed table of (level, keywords), as "P LEVEL MASK ANSWER" lines, then ".". */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "Palev_Host-events.h"
#include "Palev_Host2-events.h"

static const struct {
    uint8_t level;
    uint64_t keywords;
} asks[] = {
    { 0, 0 }, { 0, UINT64_MAX }, { 1, 0x1 }, { 2, 0x2 }, { 1, 0x2 }, { 3, 0x4 }, { 4, 0x4 },
    { 4, UINT64_C(0x8000000000) }, { 3, UINT64_C(0x8000000000) }, { 5, 0 }, { 16, 0 }, { 15, 0 },
    { 255, 0x2 }, { 2, 0 }, { 3, 0 }, { 0, 0x1 },
};

int main(void)
{
    char line[64];

    while (fgets(line, sizeof(line), stdin)) {
        if (strcmp(line, "q\n") != 0)
            continue;
        for (size_t i = 0; i < sizeof(asks) / sizeof(asks[0]); i++) {
            printf("Palev_Host %u 0x%" PRIx64 " %d\n", (unsigned)asks[i].level, asks[i].keywords,
                   ProviderEnabledPalev_Host(asks[i].level, asks[i].keywords));
            printf("Palev_Host2 %u 0x%" PRIx64 " %d\n", (unsigned)asks[i].level, asks[i].keywords,
                   ProviderEnabledPalev_Host2(asks[i].level, asks[i].keywords));
        }
        printf(".\n");
        fflush(stdout);
    }
    return 0;
}
