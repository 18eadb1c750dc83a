/* SPDX-License-Identifier: MIT */
/* palev-collect's parts: helper commands, the program's run, the LTTng session, the check. */
#ifndef PALEV_COLLECT_H
#define PALEV_COLLECT_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

/* palev-collect's own exit statuses; otherwise it exits with the program's. */
enum {
    PC_EXIT_SETUP = 1,          /* tracing could not be set up */
    PC_EXIT_USAGE = 2,          /* usage errors, unknown keywords, missing tools */
    PC_EXIT_STRICT = 3,         /* --strict: the check found a problem in a run that exited 0 */
};

/* A growable list of strings it owns. */
typedef struct pc_strv {
    char **v;
    size_t n;
} pc_strv;

/* A growable byte buffer, always NUL-terminated once anything was added. */
typedef struct pc_buf {
    char *data;
    size_t len, cap;
} pc_buf;

/* What the command line asked for. */
typedef struct pc_opts {
    pc_strv manifests;          /* -m */
    pc_strv extra;              /* -e */
    pc_strv renames;            /* --provider-name ETWNAME=LTTNGNAME */
    const char *keywords, *level, *es_filter, *out;
    int stacks, live, check, replace;
    int all_processes;          /* track by user, not the program's tree */
    int strict;                 /* a problem the check finds fails the run */
    unsigned cpu_hz;            /* --cpu: perf's sampling rate (0: no perf) */
    int off_cpu;                /* --off-cpu: sched:sched_switch too */
    const char *call_graph;     /* --call-graph: fp or dwarf */
    unsigned control_port, data_port, live_port;
    char **command;             /* the program and its arguments */
} pc_opts;

/* Everything a run learns and owns; cleaned up by pc_cleanup() whatever happened. */
typedef struct pc_ctx {
    pc_opts o;
    char *gen;                  /* palev-gen */
    char *out;                  /* the trace directory, absolute */
    int out_fd;                 /* open on it, locked for the run */
    int out_created;            /* we created it */
    char *events;               /* the manifests' events, comma-separated */
    pc_strv providers;          /* the manifests' LTTng providers */
    char session[64];           /* "" until created */
    pid_t sessiond, relayd, viewer;     /* daemons we started (0: none) */
    pid_t pid;                  /* the program */
    int go_fd, report_fd;       /* its handshake: release it, learn whether exec failed */
    int listener;               /* its seccomp notifications (follow.c), until the follower has it */
    pid_t follower;             /* follow.c's process */
    int follow_ctl;             /* open while the session records */
    pid_t perf;                 /* perf record, while it records */
    int perf_ctl, perf_ack;     /* its control pipes, open while it records */
    char *perf_dir;             /* DIR/perf */
    int perf_problem;           /* perf was asked for and is missing, refused or failed */
    int status;                 /* its exit status (128 + N: killed by signal N) */
} pc_ctx;

/* ---- util.c ------------------------------------------------------------------------------- */

void pc_strv_push(pc_strv *s, const char *str);
void pc_strv_free(pc_strv *s);
void pc_buf_add(pc_buf *b, const char *data, size_t len);
void pc_buf_printf(pc_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pc_buf_free(pc_buf *b);
char *pc_strdup(const char *s);
char *pc_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "palev-collect: ..." on stdout (what it does) or stderr (what went wrong). */
void pc_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pc_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The one error policy: say why on stderr, return the exit status to end with. */
int pc_fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The executable a command name means, as execvp would find it (a name with a slash is taken
 * as it is); NULL with errno ENOENT or EACCES. The caller frees it. */
char *pc_which(const char *name);
/* An executable regular file. */
int pc_is_executable(const char *path);
/* The directory of palev-collect's own executable. */
const char *pc_self_dir(void);
/* mkdir -p; 0 or -1 with errno. */
int pc_mkdirs(const char *path, mode_t mode);

/* ---- proc.c: helper commands and signals -------------------------------------------------- */

/* Where a helper's stdout or stderr goes. */
enum pc_stream { PC_DISCARD, PC_CAPTURE, PC_INHERIT };

typedef struct pc_cmd {
    const char *const *argv;
    enum pc_stream out, err;
    pc_buf *out_buf, *err_buf;  /* for PC_CAPTURE */
    const char *log;            /* stdout and stderr appended to this file, when set */
    int detach;                 /* a session of its own (a daemon), not only a process group */
    const int *keep_fds;        /* fds it inherits (close-on-exec cleared), -1 ends the list */
} pc_cmd;

/* Signals palev-collect handles (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1): blocked
 * except while it waits, so it sees each one at a known point. Call once, first. */
void pc_signals_init(void);
/* In a child before exec: the signal mask and dispositions palev-collect started with. */
void pc_signals_restore(void);
/* The mask to wait with (every handled signal deliverable). */
const sigset_t *pc_signals_waitmask(void);
/* The last SIGINT, SIGTERM, SIGHUP or SIGQUIT received (0: none), cleared; *sender (when not
 * NULL) is the process that sent it with kill(), or 0 when the kernel did (the terminal). */
int pc_signal_take(pid_t *sender);
/* SIGUSR1 was received (an lttng-sessiond started with --sig-parent is ready). */
int pc_signal_usr1(void);
/* Waits ms milliseconds, or less when a handled signal arrives. */
void pc_pause(int ms);

/* Starts a helper: stdin from /dev/null, its own process group (the terminal's Ctrl-C is for
 * the program, not for an lttng command halfway through). Returns its pid, or -1 (errno). The
 * fds of captured streams are returned in *out_fd and *err_fd. */
pid_t pc_spawn(const pc_cmd *c, int *out_fd, int *err_fd);
/* Runs a helper to its end. Returns its exit status, 128 + N when signal N killed it, or -1
 * when it could not start (errno set). */
int pc_run(const pc_cmd *c);
/* Runs argv with stdout and stderr discarded, or inherited; returns as pc_run. */
int pc_run_quiet(const char *const argv[]);
int pc_run_shown(const char *const argv[]);
/* waitpid() for pid, without being stopped by signals; returns its status as pc_run. */
int pc_wait(pid_t pid);
/* Stops a helper we started (SIGTERM, then SIGKILL after a while) and reaps it. */
void pc_stop(pid_t pid);

/* ---- lttng.c: daemons, the session, the live viewer --------------------------------------- */

int pc_sessiond_ensure(pc_ctx *c);
int pc_relayd_ensure(pc_ctx *c);
/* Creates the session recording these events (comma-separated), not started. */
int pc_session_create(pc_ctx *c, const char *events);
int pc_session_start(pc_ctx *c);
/* Stops and destroys it (the trace is complete on disk afterwards). */
void pc_session_end(pc_ctx *c);
int pc_viewer_start(pc_ctx *c);
void pc_viewer_stop(pc_ctx *c);
/* Everything still running that we started: the session, the viewer, the daemons. */
void pc_lttng_cleanup(pc_ctx *c);

/* ---- outdir.c: the trace directory ------------------------------------------------------- */

/* -o DIR (new, or empty, or a trace to replace on --replace) or ./palev-trace-DATE-TIME[-N]. */
int pc_outdir_prepare(pc_ctx *c);
/* The directories of DIR holding the CTF traces lttng (or a relayd) wrote, added to out: none
 * when no process registered. */
void pc_outdir_traces(const pc_ctx *c, pc_strv *out);
/* The manifests (DIR/palev-manifests/NAME.man) and the --provider-name renames
 * (DIR/palev-manifests/provider-names) beside the trace, for the tools reading it. */
int pc_outdir_keep_manifests(const pc_ctx *c);
/* The lock goes; when the run failed, a directory we created goes too if it is still empty. */
void pc_outdir_release(pc_ctx *c, int failed);

/* ---- select.c: the events to enable ------------------------------------------------------- */

/* What palev-gen enable-list selects from each manifest, and the manifests' providers. */
int pc_select_events(pc_ctx *c);
/* Those and paleventing's own events and -e's, each once, comma-separated (to free). */
char *pc_event_list(const pc_ctx *c);
/* How many events the manifests select. */
size_t pc_event_count(const pc_ctx *c);

/* ---- program.c: the program's run --------------------------------------------------------- */

/* Forks the program, held before exec until pc_program_release(). */
int pc_program_fork(pc_ctx *c);
/* Lets it exec; returns 0 once it runs, or the errno of the failed exec. */
int pc_program_release(pc_ctx *c);
/* Waits for it to end (c->status), passing on signals sent to palev-collect alone. */
void pc_program_wait(pc_ctx *c);
/* A program still held: it exits without running. */
void pc_program_abandon(pc_ctx *c);

/* ---- follow.c: the program's descendants ------------------------------------------------- */

/* In the program's child before exec: the seccomp filter; its listener (or the errno of the
 * failure) sent through sock. */
void pc_follow_child(int sock);
/* The listener the child sent, or -errno. */
int pc_follow_receive(int sock);
/* Starts the follower with the listener (which it takes over). */
int pc_follow_start(pc_ctx *c, int listener);
/* The session stopped recording: the follower stops tracking; says when the program's tree
 * outlives it. */
void pc_follow_stop(pc_ctx *c);

/* ---- perf.c: CPU samples ------------------------------------------------------------------ */

/* DIR/perf, before the program is forked (PALEV_PERFMAP_DIR). */
int pc_perf_prepare(pc_ctx *c);
/* perf record on the (held) program, ready when it returns; perf missing or refused is said and
 * is not an error (the LTTng trace is recorded all the same). */
int pc_perf_start(pc_ctx *c);
/* perf stops and writes perf.data, converted to CTF in DIR/perf/ctf. */
void pc_perf_stop(pc_ctx *c);

/* ---- check.c: what the run recorded ------------------------------------------------------- */

/* Says on stderr when a provider was not loaded or nothing was recorded; 1 when it did. */
int pc_check_trace(pc_ctx *c);

#endif /* PALEV_COLLECT_H */
