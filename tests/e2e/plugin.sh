#!/bin/bash
# SPDX-License-Identifier: MIT
# A plugin with its own provider: the host (no provider of its own, in another directory) dlopens
# it; the plugin's probe provider, built beside the plugin by palev_add_provider(), is found there
# without PALEV_PROVIDER_PATH, and the plugin's events are recorded exactly.
# usage: plugin.sh PLUGIN_HOST PLUGIN WORKDIR
set -u
host=$1 plugin=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
palev_require_sessiond
dir=$(dirname "$plugin")
[ -f "$dir/libPalev_Plugin-lttng.so" ] || palev_fail "no probe provider beside $plugin"
[ "$(dirname "$host")" != "$dir" ] || palev_fail "the host and the plugin share a directory"
[ ! -e "$(dirname "$host")/libPalev_Plugin-lttng.so" ] || palev_fail "a probe provider beside the host"
rm -rf "$work" && mkdir -p "$work" || palev_fail "cannot create $work"
unset PALEV_PROVIDER_PATH PALEV_LTTNG LD_LIBRARY_PATH
session="palev-plugin-$$"
palev_session_start "$session" "$work/trace" "Palev_Plugin:*"
PALEV_DEBUG=1 "$host" "$plugin" > "$work/host.out" 2> "$work/host.err" &
pid=$!
wait $pid || palev_fail "the host exited $?: $(cat "$work/host.err")"
palev_session_stop "$session"
grep -q "loaded provider: name=\"Palev_Plugin\", path=\"$dir/libPalev_Plugin-lttng.so\"" "$work/host.err" ||
    palev_fail "PALEV_DEBUG did not say the provider was loaded from $dir: $(cat "$work/host.err")"
palev_read "$work/trace" "$pid" > "$work/got"
printf '%s\n' 'Palev_Plugin:CommonChatty: { Value = 7 }' 'Palev_Plugin:ScalarStart: { Value = 77 }' \
    > "$work/want"
diff -u "$work/want" "$work/got" || palev_fail "the plugin's events differ"
echo "the plugin's provider was loaded from beside the plugin; its 2 events recorded exactly"
