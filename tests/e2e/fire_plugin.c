/* SPDX-License-Identifier: MIT */
/* A plugin (a MODULE the host dlopens) with its own provider: its probe provider is built beside
 * it, not beside the executable, and found there (the registering module's directory). */
#include "Palev_Plugin-events.h"

__attribute__((visibility("default"))) int palev_plugin_fire(void);

int palev_plugin_fire(void)
{
    FireEventCommonChatty(7);
    FireEventScalarStart(77);
    return 0;
}
