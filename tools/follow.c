/* SPDX-License-Identifier: MIT */
/* The program's descendants, each tracked by the session (lttng track --vpid) before it registers
 * with LTTng, whether it was exec'd or only forked.
 *
 * A process registers with the session daemon by connecting to its socket (lttng-ust-sock-N):
 * liblttng-ust does it when it starts, and again in a child after fork. The program is started
 * with a seccomp filter that every descendant inherits and that turns connect(2) with a
 * sockaddr_un-sized address into a notification to a follower process: the follower tracks the
 * caller's process when the address is an LTTng socket, then lets the call go on
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE). Nothing else is slowed down. The follower lives in a
 * session of its own until the last process holding the filter is gone: a connect(2) with no
 * one to answer would fail with ENOSYS. */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collect.h"

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define NATIVE_ARCH AUDIT_ARCH_RISCV64
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_ARCH AUDIT_ARCH_PPC64LE
#elif defined(__s390x__)
#define NATIVE_ARCH AUDIT_ARCH_S390X
#endif

/* The low 32 bits of a syscall argument (socklen_t) in struct seccomp_data. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG_LOW(n) (offsetof(struct seccomp_data, args) + (n) * sizeof(__u64))
#else
#define ARG_LOW(n) (offsetof(struct seccomp_data, args) + (n) * sizeof(__u64) + sizeof(__u32))
#endif

/* ---- in the program's child, before exec --------------------------------------------------- */

#ifdef NATIVE_ARCH
/* connect(fd, addr, sizeof(struct sockaddr_un)) of the native ABI: a notification; anything else
 * runs on. liblttng-ust passes the whole struct's size (110); TCP connects (16, 28) never stop. */
static int install(void)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 0, 4),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_connect, 0, 2),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(2)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, sizeof(struct sockaddr_un), 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
    };
    struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
    long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
    /* Without CAP_SYS_ADMIN a filter needs no_new_privs (setuid programs then gain nothing). */
    if (fd < 0 && errno == EACCES && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0)
        fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
    return fd < 0 ? -errno : (int)fd;
}
#else
static int install(void)
{
    return -ENOSYS;
}
#endif

void pc_follow_child(int sock)
{
    int fd = install(), err = fd < 0 ? -fd : 0;
    char control[CMSG_SPACE(sizeof(int))] = { 0 };
    struct iovec iov = { .iov_base = &err, .iov_len = sizeof(err) };
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
    if (fd >= 0) {
        msg.msg_control = control;
        msg.msg_controllen = sizeof(control);
        struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cm), &fd, sizeof(int));
    }
    while (sendmsg(sock, &msg, MSG_NOSIGNAL) < 0 && errno == EINTR)
        ;
    if (fd >= 0)
        close(fd);
    close(sock);
}

/* ---- in palev-collect ------------------------------------------------------------------------ */

int pc_follow_receive(int sock)
{
    int err = EPROTO, fd = -1;
    char control[CMSG_SPACE(sizeof(int))];
    struct iovec iov = { .iov_base = &err, .iov_len = sizeof(err) };
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                          .msg_controllen = sizeof(control) };
    ssize_t n;
    while ((n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
        ;
    struct cmsghdr *cm = n == sizeof(err) ? CMSG_FIRSTHDR(&msg) : NULL;
    if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
        memcpy(&fd, CMSG_DATA(cm), sizeof(int));
    return fd >= 0 ? fd : -(n == sizeof(err) && err ? err : EPROTO);
}

/* ---- the follower ------------------------------------------------------------------------- */

typedef struct follower {
    const char *session;
    int listener, ctl;
    int recording;              /* the session still records: palev-collect keeps ctl open */
    pid_t *tracked;             /* thread group ids already tracked */
    size_t ntracked;
} follower;

/* Its process's id and the same as the process sees it (the last NStgid: LTTng tracks that). */
static int process_of(pid_t tid, pid_t *tgid, pid_t *vpid)
{
    char path[64], line[256];
    snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
    FILE *f = fopen(path, "r");
    *tgid = *vpid = 0;
    while (f && fgets(line, sizeof(line), f)) {
        if (strncmp(line, "Tgid:", 5) == 0)
            *tgid = (pid_t)atoi(line + 5);
        else if (strncmp(line, "NStgid:", 7) == 0)
            *vpid = (pid_t)atoi(strrchr(line, '\t') ? strrchr(line, '\t') + 1 : line + 7);
    }
    if (f)
        fclose(f);
    if (*tgid && !*vpid)
        *vpid = *tgid;
    return *tgid ? 0 : -1;
}

/* Is the address it connects to a session daemon's application socket? Unreadable: say yes
 * (tracking a process that never registers costs one lttng command, nothing else). */
static int lttng_socket(pid_t tid, uint64_t addr)
{
    struct sockaddr_un sun;
    struct iovec local = { &sun, sizeof(sun) }, remote = { (void *)(uintptr_t)addr, sizeof(sun) };
    if (process_vm_readv(tid, &local, 1, &remote, 1, 0) != (ssize_t)sizeof(sun))
        return 1;
    sun.sun_path[sizeof(sun.sun_path) - 1] = '\0';
    const char *base = strrchr(sun.sun_path, '/');
    return sun.sun_family == AF_UNIX && base && strncmp(base + 1, "lttng-ust-sock-", 15) == 0;
}

static void track(follower *f, pid_t tid, uint64_t addr)
{
    pid_t tgid, vpid;
    if (process_of(tid, &tgid, &vpid))
        return;
    for (size_t i = 0; i < f->ntracked; i++)
        if (f->tracked[i] == tgid)
            return;
    if (!lttng_socket(tid, addr))
        return;
    char *arg = pc_printf("--vpid=%d", (int)vpid);
    const char *argv[] = { "lttng", "track", "-u", "-s", f->session, arg, NULL };
    if (pc_run_quiet(argv) == 0) {
        pid_t *grown = realloc(f->tracked, (f->ntracked + 1) * sizeof(*grown));
        if (grown) {
            f->tracked = grown;
            f->tracked[f->ntracked++] = tgid;
        }
    }
    free(arg);
}

/* One notification: track the caller if need be, then let its connect(2) go on. */
static void answer(follower *f)
{
    struct seccomp_notif req;
    struct seccomp_notif_resp resp;
    memset(&req, 0, sizeof(req));
    if (ioctl(f->listener, SECCOMP_IOCTL_NOTIF_RECV, &req))
        return;                 /* the caller is gone, or a signal interrupted it */
    if (f->recording)
        track(f, (pid_t)req.pid, req.data.args[1]);
    memset(&resp, 0, sizeof(resp));
    resp.id = req.id;
    resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    ioctl(f->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

/* Until no process holds the filter (POLLHUP on the listener). */
static void serve(follower *f)
{
    for (;;) {
        struct pollfd p[2] = { { .fd = f->listener, .events = POLLIN },
                               { .fd = f->recording ? f->ctl : -1, .events = POLLIN } };
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        if (p[1].revents)
            f->recording = 0;   /* palev-collect closed ctl: the session is over */
        if (p[0].revents & POLLIN)
            answer(f);
        else if (p[0].revents & (POLLHUP | POLLERR | POLLNVAL))
            return;
    }
}

/* The follower keeps the listener and ctl only (as fds 3 and 4) and nothing of the terminal
 * (a pipe reading palev-collect's output sees its end when palev-collect ends). The signals
 * palev-collect handles stay blocked: a session of its own, it gets none from a terminal. */
static void become_follower(const char *session, int listener, int ctl, pid_t program)
{
    int null = open("/dev/null", O_RDWR);
    /* Out of the way first: either may be 3 or 4 now. */
    listener = fcntl(listener, F_DUPFD_CLOEXEC, 10);
    ctl = fcntl(ctl, F_DUPFD_CLOEXEC, 10);
    setsid();
    dup2(null, 0);
    dup2(null, 1);
    dup2(null, 2);
    dup3(listener, 3, O_CLOEXEC);
    dup3(ctl, 4, O_CLOEXEC);
    if (close_range(5, ~0U, 0))
        for (int fd = 5; fd < 1024; fd++)
            close(fd);
    follower f = { .session = session, .listener = 3, .ctl = 4, .recording = 1 };
    f.tracked = malloc(sizeof(*f.tracked));
    if (f.tracked)
        f.tracked[f.ntracked++] = program;
    serve(&f);
    _exit(0);
}

int pc_follow_start(pc_ctx *c, int listener)
{
    int ctl[2];
    if (pipe2(ctl, O_CLOEXEC)) {
        close(listener);
        return pc_fail(PC_EXIT_SETUP, "cannot create a pipe: %s", strerror(errno));
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(ctl[1]);
        become_follower(c->session, listener, ctl[0], c->pid);
    }
    close(ctl[0]);
    close(listener);
    if (pid < 0) {
        close(ctl[1]);
        return pc_fail(PC_EXIT_SETUP, "cannot fork: %s", strerror(errno));
    }
    c->follower = pid;
    c->follow_ctl = ctl[1];
    return 0;
}

/* The session is over: the follower stops tracking, and ends once the program's tree has. */
void pc_follow_stop(pc_ctx *c)
{
    int st;
    if (c->follow_ctl >= 0)
        close(c->follow_ctl);
    c->follow_ctl = -1;
    for (int i = 0; c->follower > 0 && i < 20; i++) {
        if (waitpid(c->follower, &st, WNOHANG) == c->follower) {
            c->follower = 0;
            return;
        }
        pc_pause(50);
    }
    if (c->follower > 0)
        pc_say("processes %s started still run: what they record from now on is not in the trace",
               c->o.command[0]);
    c->follower = 0;
}
