/* SPDX-License-Identifier: MIT */
/* Unit tests whose scenarios run in a child process: this executable again, with
 * "--child MODE ARG...", a chosen environment, stdout and stderr captured. */
#ifndef PALEV_TEST_CHILD_H
#define PALEV_TEST_CHILD_H

#include <stddef.h>
#include <sys/types.h>

/* The child side: one function per MODE. */
struct child_mode {
    const char *mode;
    int (*run)(int argc, char **argv);
};

/* In main(): argv is "--child MODE ARG..." minus "--child"; runs the mode (2: unknown mode). */
int child_dispatch(const struct child_mode *modes, size_t count, int argc, char **argv);

/* The parent side: one child, run to its end. */
struct child {
    pid_t pid;
    int status;             /* waitpid()'s */
    char out[4096];
    char err[16384];
};

/* Run this executable with "--child" args (MODE ARG..., NULL-terminated) and env (NULL-terminated
 * "NAME=value" strings: the whole environment), wait for it, capture its output. `spawned`, if
 * not NULL, is told the pid before the wait. Fails the test unless the child exited with 0. */
void child_run(struct child *c, const char *const *env, const char *const *args,
               void (*spawned)(pid_t pid));

#define ENV(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define LINES(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define NO_LINES ((const char *const[]){ NULL })

#endif
