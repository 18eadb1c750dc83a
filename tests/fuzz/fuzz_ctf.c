/* SPDX-License-Identifier: MIT */
/* What the libFuzzer targets over CTF traces share (see fuzz_ctf.h). */
#include "fuzz_ctf.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

const char *__lsan_default_suppressions(void);

/* babeltrace2 2.0.4 leaks an error cause on some damaged packets (8 bytes; the babeltrace2
 * command leaks the same under valgrind): leaks allocated inside libbabeltrace2 are its own,
 * and so are glib allocations (palev-trace does not use glib; the stack stops at g_malloc0). */
const char *__lsan_default_suppressions(void)
{
    return "leak:libbabeltrace2.so\nleak:libglib-2.0.so\n";
}

int fuzz_copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[8192];
    size_t n;
    int rc = in && out ? 0 : -1;
    while (!rc && (n = fread(buf, 1, sizeof(buf), in)) > 0)
        rc = fwrite(buf, 1, n, out) == n ? 0 : -1;
    if (in)
        fclose(in);
    if (out && fclose(out))
        rc = -1;
    return rc;
}

void fuzz_write_input(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f))
        abort();
}

int fuzz_try_in_child(int (*child)(const pt_input *in), const pt_input *in)
{
    pid_t pid = fork();
    int status = 0;
    if (pid == 0) {
        signal(SIGABRT, SIG_DFL);
        signal(SIGALRM, SIG_DFL);
        alarm(5);
        _exit(freopen("/dev/null", "w", stderr) ? child(in) : 0);
    }
    pid_t got;
    while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;   /* libFuzzer's own SIGALRM ticks */
    if (pid < 0 || got != pid)
        abort();
    return status;
}
