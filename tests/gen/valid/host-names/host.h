/* SPDX-License-Identifier: MIT */
/* A host's own names, spelled like fields of input.man, declared before the events header is
 * included (tests/gen/compile.sh): LuaJIT's typedef TraceNo (which a parameter named TraceNo
 * shadowed under -Wshadow), typedefs and object-like macros named like the other parameters. */
#ifndef HOST_NAMES_HOST_H
#define HOST_NAMES_HOST_H

#include <stdint.h>

typedef uint32_t TraceNo;
typedef struct Frame { int depth; } Frame;
typedef uint64_t Regs;
#define Exit (-1)
#define Name "host"
#define Name_Length 4
#define Count 16
#define Slots garbage slots

#endif
