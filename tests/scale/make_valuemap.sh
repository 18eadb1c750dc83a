#!/bin/bash
# SPDX-License-Identifier: MIT
# Write to stdout a manifest of one event whose field has a valueMap of N entries: every value
# twice (two labels each, so never the selftest's sample) but one negative HRESULT-like value
# 0x8000ABCD, held by one entry at the end: palev-gen selftest must fire that one.
# usage: make_valuemap.sh N > map.man
set -eu
awk -v n="$1" 'BEGIN {
    print "<?xml version=\"1.0\" encoding=\"utf-8\"?>"
    print "<instrumentationManifest xmlns=\"http://schemas.microsoft.com/win/2004/08/events\""
    print "    xmlns:win=\"http://manifests.microsoft.com/win/2004/08/windows/events\">"
    print "<instrumentation><events>"
    print "<provider name=\"Palev-BigMap\" guid=\"{0b5e7d2c-2222-4222-8333-444455556666}\" symbol=\"PALEV_BIGMAP\">"
    print "<maps><valueMap name=\"Big\">"
    for (i = 0; i < n - 1; i++)
        printf "<map value=\"%d\" message=\"V%d\"/>\n", int(i / 2), i
    print "<map value=\"0x8000ABCD\" message=\"TheOne\"/>"
    print "</valueMap></maps>"
    print "<templates><template tid=\"T\"><data name=\"Code\" inType=\"win:Int32\" map=\"Big\"/></template></templates>"
    print "<events><event value=\"1\" symbol=\"Coded\" template=\"T\"/></events>"
    print "</provider></events></instrumentation></instrumentationManifest>"
}'
