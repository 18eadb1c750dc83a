/* SPDX-License-Identifier: MIT */
/* Host of noprovider.sh: fires three events of Palev_Host with known values and exits 0. */
#include "Palev_Host-events.h"

int main(void)
{
    FireEventCommonChatty(1);
    FireEventCommonChatty(22);
    FireEventScalarStart(333);
    return 0;
}
