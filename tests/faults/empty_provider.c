/* SPDX-License-Identifier: MIT */
/* A well-formed shared object with a probe provider's name, for test_provider_files.c. */
int palev_test_whole_provider;
int palev_test_whole_provider = 1;
