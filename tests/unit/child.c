/* SPDX-License-Identifier: MIT */
/* The unit tests' child processes (child.h): spawning this executable, capturing its output. */
#include <limits.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "child.h"

#define ARGV_MAX 20

int child_dispatch(const struct child_mode *modes, size_t count, int argc, char **argv)
{
    for (size_t i = 0; argc > 0 && i < count; i++)
        if (strcmp(argv[0], modes[i].mode) == 0)
            return modes[i].run(argc - 1, argv + 1);
    return 2;
}

static void slurp(FILE *f, char *buf, size_t size)
{
    size_t n;

    rewind(f);
    n = fread(buf, 1, size - 1, f);
    buf[n] = '\0';
    fclose(f);
}

void child_run(struct child *c, const char *const *env, const char *const *args,
               void (*spawned)(pid_t pid))
{
    char exe[PATH_MAX];
    char *argv[ARGV_MAX] = { exe, (char *)"--child" };
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    FILE *out = tmpfile(), *err = tmpfile();
    posix_spawn_file_actions_t fa;
    size_t argc = 2;

    assert_true(n > 0);
    exe[n] = '\0';
    assert_non_null(out);
    assert_non_null(err);
    for (; *args && argc < ARGV_MAX - 1; args++)
        argv[argc++] = (char *)*args;
    argv[argc] = NULL;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fileno(out), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, fileno(err), STDERR_FILENO);
    assert_int_equal(posix_spawn(&c->pid, exe, &fa, NULL, argv, (char **)env), 0);
    posix_spawn_file_actions_destroy(&fa);
    if (spawned)
        spawned(c->pid);
    assert_int_equal(waitpid(c->pid, &c->status, 0), c->pid);
    slurp(out, c->out, sizeof(c->out));
    slurp(err, c->err, sizeof(c->err));
    if (!WIFEXITED(c->status) || WEXITSTATUS(c->status) != 0)
        fail_msg("child %s exited with status %d\nstdout: %s\nstderr: %s", argv[2], c->status,
                 c->out, c->err);
}
