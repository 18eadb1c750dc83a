# SPDX-License-Identifier: MIT
# The Debian packages paleventing builds and tests with, installed when missing (needs root).
# Sourced by tests/run.sh ("palev_install_deps tests") and samples/demo.sh (building and tracing
# only: no browser, no BPF tools).
PALEV_PACKAGES="build-essential cmake pkg-config liblttng-ust-dev lttng-tools babeltrace2 liburcu-dev
libjansson-dev libexpat1-dev systemtap-sdt-dev libbabeltrace2-dev procps libunwind-dev libdw-dev"
# What the tests use besides: cmocka, valgrind, the bt2 oracles, clang's fuzzers, perf and
# bpftrace against USDT probes, Chromium for pages, npm for speedscope (Debian's npm only when no
# npm is on PATH: a Node.js from elsewhere brings its own).
PALEV_TEST_PACKAGES="libcmocka-dev valgrind python3-bt2 clang linux-perf bpftrace chromium"

palev_install_deps() {
    local missing="" p
    for p in $PALEV_PACKAGES $([ "${1:-}" = tests ] && echo "$PALEV_TEST_PACKAGES"); do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
    done
    [ "${1:-}" = tests ] && ! command -v npm >/dev/null && missing="$missing npm"
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
