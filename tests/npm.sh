# SPDX-License-Identifier: MIT
# palev_npm_install DIR PACKAGE@VERSION: the npm package installed into DIR/node_modules (sourced by
# the tests that load speedscope in Chromium). Returns 0 once installed; 77 (ctest's skip) with
# "SKIP: why" on stdout when npm is missing, or cannot reach its registry (offline) and its cache
# lacks the package; 1 with "FAIL: why" on any other error. npm's cache answers first
# (--prefer-offline), and a network failure is retried once, not for minutes (npm's defaults retry
# each request for about 70 s, so that offline one install took 12 minutes).
palev_npm_install() {
    local dir=$1 pkg=$2 out code
    command -v npm >/dev/null ||
        { echo "SKIP: npm is not installed (tests/deps.sh installs it, as root)"; return 77; }
    mkdir -p "$dir" || { echo "FAIL: cannot create $dir"; return 1; }
    out=$(cd "$dir" && npm install --no-audit --no-fund --loglevel=error --prefer-offline \
        --fetch-retries=1 --fetch-retry-mintimeout=1000 --fetch-retry-maxtimeout=3000 \
        --fetch-timeout=30000 "$pkg" 2>&1) && return 0
    code=$(printf '%s\n' "$out" | sed -n 's/^npm error code //p' | head -1)
    case $code in
    EAI_AGAIN | ENOTFOUND | ECONNREFUSED | ECONNRESET | ETIMEDOUT | ENETUNREACH | EHOSTUNREACH | \
        ENOTCACHED | ERR_SOCKET_TIMEOUT)
        echo "SKIP: npm cannot reach its registry ($code: offline?) and its cache lacks $pkg"
        return 77
        ;;
    esac
    echo "FAIL: npm install $pkg failed: $out"
    return 1
}
