# SPDX-License-Identifier: MIT
# The Debian packages paleventing builds and tests with, installed when missing (needs root).
# Sourced by tests/run.sh and samples/demo.sh.
PALEV_PACKAGES="build-essential cmake pkg-config liblttng-ust-dev lttng-tools babeltrace2 liburcu-dev
libjansson-dev libcmocka-dev libexpat1-dev valgrind python3-bt2 procps clang linux-perf
systemtap-sdt-dev bpftrace"

palev_install_deps() {
    local missing=""
    for p in $PALEV_PACKAGES; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    if [ "$(id -u)" != 0 ]; then
        echo "missing Debian packages:$missing (run as root to install them)" >&2
        return 1
    fi
    echo "installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq $missing >/dev/null 2>&1 ||
        { apt-get update -qq >/dev/null && apt-get install -y -qq $missing >/dev/null; }
}
