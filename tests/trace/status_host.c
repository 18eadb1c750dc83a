/* SPDX-License-Identifier: MIT */
/* Records two Paleventing:ProviderStatus events (status-tp.h) once stdin closes: one provider
 * loaded, one not, with its reason. Linked with liblttng-ust directly: a test probe only. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "status-tp.h"

#include <stdio.h>

int main(void)
{
    char buf[64];
    while (fgets(buf, sizeof(buf), stdin))
        ;
    lttng_ust_tracepoint(Paleventing, ProviderStatus, "Palev_Runtime", 1, "");
    lttng_ust_tracepoint(Paleventing, ProviderStatus, "Palev_Missing", 0,
                         "libPalev_Missing-lttng.so: cannot open shared object file");
    return 0;
}
