/* SPDX-License-Identifier: MIT */
/* A stand-in probe provider for test_provider: counts its loads, links no LTTng. */
#ifdef PALEV_TEST_NEEDS_GONE
/* In a library the test leaves out of every search path, like a missing liblttng-ust. */
void palev_test_gone(void);
#endif

#ifdef PALEV_TEST_SLOW
#include <unistd.h>
#endif

#ifdef PALEV_TEST_REENTRANT
#include "paleventing-gen.h"

/* What this provider's constructor got when it registered providers itself. */
extern int palev_test_inner_ret[2];

static int register_name(const char *name)
{
    palev_provider p = { .struct_size = sizeof(p), .name = name, .abi_version = PALEV_ABI_VERSION };

    return palev_provider_register(&p);
}
#endif

/* Defined and exported by the test executable. */
extern int palev_test_load_count;

__attribute__((constructor)) static void fake_provider_loaded(void)
{
#ifdef PALEV_TEST_NEEDS_GONE
    palev_test_gone();
#endif
#ifdef PALEV_TEST_SLOW
    usleep(300000);     /* a load that takes its time: liblttng-ust waiting for a session daemon */
#endif
#ifdef PALEV_TEST_REENTRANT
    palev_test_inner_ret[0] = register_name("PalevSelf");
    palev_test_inner_ret[1] = register_name("PalevFake");
#endif
    __atomic_fetch_add(&palev_test_load_count, 1, __ATOMIC_SEQ_CST);
}
