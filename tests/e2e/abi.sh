#!/bin/bash
# SPDX-License-Identifier: MIT
# The host ABI checked at registration: abi_host, compiled against a paleventing.h whose
# PALEV_ABI_VERSION is 999, is refused (-EPROTO, the exact PALEV_DEBUG line at each of its two
# registrations, ProviderStatus loaded=0 with the reason, not one of its events recorded) and
# runs on (exit 0); abi_host_ok, the same source against the real header, records its events.
# usage: abi.sh ABI_HOST ABI_HOST_OK WORKDIR
set -u
host=$1 host_ok=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
palev_workdir "$work"
unset PALEV_LTTNG PALEV_PROVIDER_PATH
tag=abi-$$
eproto=$(/usr/bin/python3 -c 'import errno; print(-errno.EPROTO)')

palev_session_start "$tag-refused" "$work/refused" 'Palev_Abi:*' Paleventing:ProviderStatus
PALEV_DEBUG=1 palev_run_host "$host" refused
palev_session_stop "$tag-refused"
[ "$(cat refused.out)" = "abi 999 register $eproto enabled 0" ] ||
    palev_fail "refused: abi_host printed '$(cat refused.out)'"
reason='compiled with paleventing headers of ABI version 999 (PALEV_ABI_VERSION), libpaleventing has 1: rebuild it against these headers'
want="paleventing: provider not loaded: name=\"Palev_Abi\", reason=\"$reason\" (in refuse_abi() at provider.c:LINE)"
got=$(grep Palev_Abi refused.err | sed -E 's/provider\.c:[0-9]+\)$/provider.c:LINE)/')
[ "$got" = "$want"$'\n'"$want" ] || palev_fail "refused: PALEV_DEBUG said:
$(cat refused.err)"
/usr/bin/python3 "$here/abi_check.py" "$work/refused" "$pid" refused || palev_fail "abi_check.py refused"

palev_session_start "$tag-loaded" "$work/loaded" 'Palev_Abi:*' Paleventing:ProviderStatus
palev_run_host "$host_ok" loaded
palev_session_stop "$tag-loaded"
[ "$(cat loaded.out)" = "abi 1 register 0 enabled 1" ] ||
    palev_fail "loaded: abi_host_ok printed '$(cat loaded.out)'"
/usr/bin/python3 "$here/abi_check.py" "$work/loaded" "$pid" loaded || palev_fail "abi_check.py loaded"
echo "PASS: abi"
