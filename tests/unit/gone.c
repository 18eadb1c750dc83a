/* SPDX-License-Identifier: MIT */
/* A dependency test_provider's libPalevNodep-lttng.so needs and the loader cannot find. */
void palev_test_gone(void);

void palev_test_gone(void)
{
}
