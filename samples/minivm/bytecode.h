/* SPDX-License-Identifier: MIT */
/* minivm: the instruction set, one table for the assembler, the compiler and the interpreter. */
#ifndef MINIVM_BYTECODE_H
#define MINIVM_BYTECODE_H

/* What follows the opcode byte in the bytecode. */
enum operand_kind {
    OPD_NONE,
    OPD_INT,    /* signed LEB128 immediate */
    OPD_STR,    /* unsigned LEB128 index into the module's string table */
    OPD_LOCAL,  /* unsigned LEB128 local slot (arguments first) */
    OPD_GLOBAL, /* unsigned LEB128 global slot */
    OPD_LABEL,  /* 4-byte little-endian bytecode offset in the same method */
    OPD_METHOD, /* 4-byte little-endian method index in the module */
    OPD_NATIVE  /* unsigned LEB128 index into the standard library table */
};

/* How control leaves an instruction. */
enum flow_kind {
    FLOW_NEXT,   /* falls through */
    FLOW_BRANCH, /* falls through or jumps to its label */
    FLOW_JUMP,   /* always jumps to its label */
    FLOW_END     /* returns or throws: no successor in this method */
};

/* X(NAME, mnemonic, operand, pops, pushes, flow). Calls pop their callee's argument count, which
 * the compiler takes from the callee (the -1 entries). */
#define MINIVM_OPCODES(X)                           \
    X(NOP, "nop", NONE, 0, 0, NEXT)                 \
    X(PUSH, "push", INT, 0, 1, NEXT)                \
    X(PUSHS, "pushs", STR, 0, 1, NEXT)              \
    X(NIL, "nil", NONE, 0, 1, NEXT)                 \
    X(POP, "pop", NONE, 1, 0, NEXT)                 \
    X(DUP, "dup", NONE, 1, 2, NEXT)                 \
    X(SWAP, "swap", NONE, 2, 2, NEXT)               \
    X(LOAD, "load", LOCAL, 0, 1, NEXT)              \
    X(STORE, "store", LOCAL, 1, 0, NEXT)            \
    X(GLOAD, "gload", GLOBAL, 0, 1, NEXT)           \
    X(GSTORE, "gstore", GLOBAL, 1, 0, NEXT)         \
    X(ADD, "add", NONE, 2, 1, NEXT)                 \
    X(SUB, "sub", NONE, 2, 1, NEXT)                 \
    X(MUL, "mul", NONE, 2, 1, NEXT)                 \
    X(DIV, "div", NONE, 2, 1, NEXT)                 \
    X(MOD, "mod", NONE, 2, 1, NEXT)                 \
    X(NEG, "neg", NONE, 1, 1, NEXT)                 \
    X(NOT, "not", NONE, 1, 1, NEXT)                 \
    X(EQ, "eq", NONE, 2, 1, NEXT)                   \
    X(NE, "ne", NONE, 2, 1, NEXT)                   \
    X(LT, "lt", NONE, 2, 1, NEXT)                   \
    X(LE, "le", NONE, 2, 1, NEXT)                   \
    X(GT, "gt", NONE, 2, 1, NEXT)                   \
    X(GE, "ge", NONE, 2, 1, NEXT)                   \
    X(JMP, "jmp", LABEL, 0, 0, JUMP)                \
    X(JZ, "jz", LABEL, 1, 0, BRANCH)                \
    X(JNZ, "jnz", LABEL, 1, 0, BRANCH)              \
    X(CALL, "call", METHOD, -1, 1, NEXT)            \
    X(CALLN, "call std", NATIVE, -1, 1, NEXT)       \
    X(SPAWN, "spawn", METHOD, -1, 0, NEXT)          \
    X(RET, "ret", NONE, 1, 0, END)                  \
    X(THROW, "throw", STR, 1, 0, END)               \
    X(NEWARR, "newarr", NONE, 1, 1, NEXT)           \
    X(ALOAD, "aload", NONE, 2, 1, NEXT)             \
    X(ASTORE, "astore", NONE, 3, 0, NEXT)           \
    X(LEN, "len", NONE, 1, 1, NEXT)                 \
    X(STR, "str", NONE, 1, 1, NEXT)                 \
    X(CAT, "cat", NONE, 2, 1, NEXT)                 \
    X(EXCTYPE, "exctype", NONE, 1, 1, NEXT)         \
    X(EXCMSG, "excmsg", NONE, 1, 1, NEXT)           \
    X(SYNC, "sync", NONE, 0, 0, NEXT)

enum opcode {
#define X(name, mnemonic, operand, pops, pushes, flow) OP_##name,
    MINIVM_OPCODES(X)
#undef X
    OP_COUNT
};

struct opcode_info {
    const char *mnemonic;
    enum operand_kind operand;
    int pops;
    int pushes;
    enum flow_kind flow;
};

/* Indexed by enum opcode (defined in compile.c). */
extern const struct opcode_info opcode_table[OP_COUNT];

#endif /* MINIVM_BYTECODE_H */
