/* SPDX-License-Identifier: MIT */
/* A host with a generated provider (Palev_Abi, from tests/bench/bench.man). abi.sh builds it
 * twice: against paleventing.h as it is (abi_host_ok) and against a copy whose
 * PALEV_ABI_VERSION is 999 (abi_host). It registers its provider again, fires 3 events and
 * prints "abi VERSION register RET enabled ENABLED"; it exits 0 whatever the library said. */
#include <stdio.h>

#include "Palev_Abi-events.h"

int main(void)
{
    int ret = palev_provider_register(&palev_provider_Palev_Abi);

    printf("abi %d register %d enabled %d\n", PALEV_ABI_VERSION, ret, EventEnabledSmall());
    for (unsigned i = 1; i <= 3; i++)
        FireEventSmall(i, 10u * i, -(int)i, 0x10u + i, "abi");
    return 0;
}
