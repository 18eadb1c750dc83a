/* SPDX-License-Identifier: MIT */
/* Two manifests whose events share symbols in one unit: palev_add_provider(... SYMBOL_PREFIX). */
#include "Palev_Adopt_App-events.h"
#include "Palev_Adopt_Second-events.h"

int main(void)
{
    FireEventAppStopped();
    FireEventSecond_AppStopped();
    return EventEnabledAppStopped() + EventEnabledSecond_AppStopped();
}
