/* SPDX-License-Identifier: MIT */
/* Host of plugin.sh: dlopens the plugin named on the command line and calls its
 * palev_plugin_fire(). Exits 0, or 1 when the plugin cannot be loaded. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    void *plugin;
    int (*fire)(void);

    if (argc != 2) {
        fprintf(stderr, "usage: plugin_host PLUGIN.so\n");
        return 2;
    }
    plugin = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!plugin) {
        fprintf(stderr, "plugin_host: %s\n", dlerror());
        return 1;
    }
    *(void **)&fire = dlsym(plugin, "palev_plugin_fire");
    if (!fire) {
        fprintf(stderr, "plugin_host: %s\n", dlerror());
        return 1;
    }
    return fire();
}
