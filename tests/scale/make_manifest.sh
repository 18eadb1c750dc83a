#!/bin/bash
# SPDX-License-Identifier: MIT
# Write a large ETW manifest to stdout: one provider with EVENTS events over TEMPLATES templates
# (each template used by EVENTS/TEMPLATES events), 64 keywords, 50 tasks with opcodes, 20 value
# maps, and templates that cycle through scalars, strings, arrays and struct arrays.
# usage: make_manifest.sh EVENTS TEMPLATES > big.man
set -eu
awk -v events="$1" -v templates="$2" '
function field(t, k,    kind) {
    kind = (t + k) % 12
    if (kind == 0) return sprintf("<data name=\"U32_%d\" inType=\"win:UInt32\"/>", k)
    if (kind == 1) return sprintf("<data name=\"I64_%d\" inType=\"win:Int64\"/>", k)
    if (kind == 2) return sprintf("<data name=\"Text_%d\" inType=\"win:UnicodeString\"/>", k)
    if (kind == 3) return sprintf("<data name=\"Name_%d\" inType=\"win:AnsiString\"/>", k)
    if (kind == 4) return sprintf("<data name=\"Ptr_%d\" inType=\"win:Pointer\"/>", k)
    if (kind == 5) return sprintf("<data name=\"Id_%d\" inType=\"win:GUID\"/>", k)
    if (kind == 6) return sprintf("<data name=\"F_%d\" inType=\"win:Double\"/>", k)
    if (kind == 7) return sprintf("<data name=\"Color_%d\" inType=\"win:UInt32\" map=\"Map%d\"/>", k, t % 20)
    if (kind == 8) return sprintf("<data name=\"N_%d\" inType=\"win:UInt16\"/><data name=\"Arr_%d\" inType=\"win:UInt64\" count=\"N_%d\"/>", k, k, k)
    if (kind == 9) return sprintf("<data name=\"Flag_%d\" inType=\"win:Boolean\"/>", k)
    if (kind == 10) return sprintf("<data name=\"C_%d\" inType=\"win:UInt32\"/><struct name=\"S_%d\" count=\"C_%d\"><data name=\"A\" inType=\"win:UInt32\"/><data name=\"B\" inType=\"win:UnicodeString\"/></struct>", k, k, k)
    return sprintf("<data name=\"H_%d\" inType=\"win:HexInt64\"/>", k)
}
BEGIN {
    print "<?xml version=\"1.0\" encoding=\"utf-8\"?>"
    print "<instrumentationManifest xmlns=\"http://schemas.microsoft.com/win/2004/08/events\""
    print "    xmlns:win=\"http://manifests.microsoft.com/win/2004/08/windows/events\">"
    print "<instrumentation><events>"
    print "<provider name=\"Palev-Scale\" guid=\"{0b5e7d2c-1111-4222-8333-444455556666}\" symbol=\"PALEV_SCALE\">"
    print "<keywords>"
    for (k = 0; k < 64; k++) {
        hi = k >= 32 ? 2 ^ (k - 32) : 0
        lo = k < 32 ? 2 ^ k : 0
        printf "<keyword name=\"K%d\" mask=\"0x%x%08x\"/>\n", k, hi, lo
    }
    print "</keywords><tasks>"
    for (k = 1; k <= 50; k++) printf "<task name=\"Task%d\" value=\"%d\"><opcodes><opcode name=\"Op%dA\" value=\"%d\"/></opcodes></task>\n", k, k, k, 10 + k % 200
    print "</tasks><maps>"
    for (k = 0; k < 20; k++) {
        printf "<valueMap name=\"Map%d\">", k
        for (v = 0; v < 5; v++) printf "<map value=\"%d\" message=\"$(string.M%d_%d)\"/>", v, k, v
        print "</valueMap>"
    }
    print "</maps><templates>"
    for (t = 0; t < templates; t++) {
        printf "<template tid=\"T%d\">", t
        for (k = 0; k < 1 + t % 9; k++) printf "%s", field(t, k)
        print "</template>"
    }
    print "</templates><events>"
    for (e = 0; e < events; e++) {
        t = e % 50 + 1
        level = (e % 3) ? "Informational" : "Verbose"
        opcode = (e % 4 == 0) ? sprintf(" opcode=\"Op%dA\"", t) : ""
        printf "<event value=\"%d\" version=\"%d\" symbol=\"Ev%d\" level=\"win:%s\" keywords=\"K%d K%d\" task=\"Task%d\"%s template=\"T%d\"/>\n", \
            e % 65536, int(e / 65536), e, level, e % 64, (e * 7) % 64, t, opcode, e % templates
    }
    print "</events></provider></events></instrumentation>"
    print "<localization><resources culture=\"en-US\"><stringTable>"
    for (k = 0; k < 20; k++) for (v = 0; v < 5; v++) printf "<string id=\"M%d_%d\" value=\"Label %d of map %d\"/>\n", k, v, v, k
    print "</stringTable></resources></localization>"
    print "</instrumentationManifest>"
}'
