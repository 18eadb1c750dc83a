/* SPDX-License-Identifier: MIT */
/* The public header alone as C++17: the same use as header.c. */
#include "header.c"
