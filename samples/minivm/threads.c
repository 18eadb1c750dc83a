/* SPDX-License-Identifier: MIT */
/* minivm: threads: the VM lock handed over at safepoints, the thread registry, the thread pool. */
#include "events.h"
#include "vm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Per thread: a value stack of 256 Ki slots (4 MiB, touched only as deep as it is used) and
 * at most 4096 frames; deeper recursion throws StackOverflowError. */
#define STACK_VALUES (256u * 1024)
#define MAX_FRAMES 4096u

/* ---- the VM lock ------------------------------------------------------------------------- */

void threads_init(struct vm *vm)
{
    pthread_mutex_init(&vm->lock.m, NULL);
    pthread_cond_init(&vm->lock.c, NULL);
    atomic_init(&vm->lock.waiting, 0);
    pthread_mutex_init(&vm->pool.m, NULL);
    pthread_cond_init(&vm->pool.work, NULL);
    pthread_cond_init(&vm->pool.idle, NULL);
    atomic_init(&vm->next_thread_id, 1);
}

void threads_fini(struct vm *vm)
{
    struct work_item *w = vm->pool.head;

    while (w) {
        struct work_item *next = w->next;

        free(w);
        w = next;
    }
    pthread_mutex_destroy(&vm->lock.m);
    pthread_cond_destroy(&vm->lock.c);
    pthread_mutex_destroy(&vm->pool.m);
    pthread_cond_destroy(&vm->pool.work);
    pthread_cond_destroy(&vm->pool.idle);
}

/* FIFO hand-over (a ticket lock): a thread that gives the lock up at a safepoint gets it back
 * only after every thread that was already waiting. */
void vm_lock_acquire(struct vm *vm)
{
    struct vm_lock *l = &vm->lock;
    uint64_t ticket;

    atomic_fetch_add(&l->waiting, 1);
    pthread_mutex_lock(&l->m);
    ticket = l->next++;
    while (l->serving != ticket)
        pthread_cond_wait(&l->c, &l->m);
    pthread_mutex_unlock(&l->m);
    atomic_fetch_sub(&l->waiting, 1);
}

void vm_lock_release(struct vm *vm)
{
    struct vm_lock *l = &vm->lock;

    pthread_mutex_lock(&l->m);
    l->serving++;
    pthread_cond_broadcast(&l->c);
    pthread_mutex_unlock(&l->m);
}

void vm_safepoint(struct vm_thread *t)
{
    if (!atomic_load_explicit(&t->vm->lock.waiting, memory_order_relaxed))
        return;
    t->vm->lock.handoffs++;
    vm_lock_release(t->vm);
    vm_lock_acquire(t->vm);
}

/* ---- threads ----------------------------------------------------------------------------- */

struct vm_thread *thread_new(struct vm *vm, uint32_t kind)
{
    struct vm_thread *t = calloc(1, sizeof *t);

    if (!t)
        return NULL;
    t->stack = malloc(STACK_VALUES * sizeof *t->stack);
    t->frames = malloc(MAX_FRAMES * sizeof *t->frames);
    if (!t->stack || !t->frames) {
        thread_free(t);
        return NULL;
    }
    t->vm = vm;
    t->kind = kind;
    t->id = atomic_fetch_add(&vm->next_thread_id, 1);
    t->sp = t->stack;
    t->stack_end = t->stack + STACK_VALUES;
    t->max_depth = MAX_FRAMES;
    t->exc = v_nil();
    return t;
}

void thread_free(struct vm_thread *t)
{
    if (!t)
        return;
    free(t->stack);
    free(t->frames);
    free(t);
}

/* Called on the thread itself, holding the lock: from now on its stack is a root. */
void thread_attach(struct vm_thread *t)
{
    t->os_tid = (uint64_t)syscall(SYS_gettid);
    t->start_ns = now_ns();
    t->next = t->vm->threads;
    t->vm->threads = t;
    vm_current = t;
    ev_thread_start(t);
}

void thread_detach(struct vm_thread *t)
{
    struct vm_thread **p = &t->vm->threads;

    ev_thread_stop(t);
    vm_current = NULL;
    while (*p && *p != t)
        p = &(*p)->next;
    if (*p)
        *p = t->next;
}

/* ---- the pool ---------------------------------------------------------------------------- */

int pool_submit(struct vm_thread *t, struct method *m)
{
    struct pool *p = &t->vm->pool;
    struct work_item *w = malloc(sizeof *w + m->nargs * sizeof(value));
    uint32_t length;

    if (!w) {
        vm_raise(t, EXC_OUT_OF_MEMORY, "no memory to queue a call of %s.%s", m->ns, m->name);
        return -1;
    }
    w->next = NULL;
    w->method = m;
    w->argc = m->nargs;
    w->enqueued_ns = now_ns();
    t->sp -= m->nargs;
    memcpy(w->args, t->sp, m->nargs * sizeof(value));
    pthread_mutex_lock(&p->m);
    w->id = ++p->next_id;
    *(p->tail ? &p->tail->next : &p->head) = w;
    p->tail = w;
    length = ++p->length;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->m);
    ev_pool_enqueue(t, w, length);
    return 0;
}

/* Take the next item, waiting without the VM lock while the queue is empty. Items leave the
 * queue only under the VM lock, so their arguments are always reachable by the collector.
 * Returns NULL when the pool stops. */
static struct work_item *pool_take(struct vm_thread *t, uint32_t *length)
{
    struct pool *p = &t->vm->pool;
    struct work_item *w;

    pthread_mutex_lock(&p->m);
    while (!p->head && !p->stopping) {
        pthread_mutex_unlock(&p->m);
        vm_lock_release(t->vm);
        pthread_mutex_lock(&p->m);
        while (!p->head && !p->stopping)
            pthread_cond_wait(&p->work, &p->m);
        pthread_mutex_unlock(&p->m);
        vm_lock_acquire(t->vm);
        pthread_mutex_lock(&p->m);
    }
    if ((w = p->head)) {
        p->head = w->next;
        if (!p->head)
            p->tail = NULL;
        *length = --p->length;
        p->running++;
    }
    pthread_mutex_unlock(&p->m);
    return w;
}

static void pool_done(struct pool *p)
{
    pthread_mutex_lock(&p->m);
    p->running--;
    if (!p->head) /* wakes sync() in the main thread, and in workers waiting for the others */
        pthread_cond_broadcast(&p->idle);
    pthread_mutex_unlock(&p->m);
}

/* The item is ours: its arguments go to our stack before anything can collect. */
static void run_item(struct vm_thread *t, struct work_item *w, uint32_t length)
{
    uint64_t start = now_ns();
    int ok;

    ev_pool_dequeue(t, w, length, start - w->enqueued_ns);
    memcpy(t->sp, w->args, w->argc * sizeof(value));
    t->sp += w->argc;
    ok = interp_run(t, w->method) == 0;
    if (ok)
        t->sp--; /* the result */
    else if (t->vm->stats.unhandled++ == 0 && t->vm->config.verbose)
        fprintf(stderr, "minivm: work item %llu: unhandled %s: %s (only the first is shown)\n",
                (unsigned long long)w->id, v_str(v_exc(t->exc)->type)->data,
                v_str(v_exc(t->exc)->message)->data);
    t->exc = v_nil();
    t->work_items++;
    t->vm->stats.work_items++;
    ev_pool_done(t, w->id, now_ns() - start, ok);
}

static void *worker_main(void *arg)
{
    struct vm_thread *t = arg;
    struct work_item *w;
    uint32_t length = 0;

    vm_lock_acquire(t->vm);
    thread_attach(t);
    while ((w = pool_take(t, &length))) {
        run_item(t, w, length);
        free(w);
        pool_done(&t->vm->pool);
    }
    thread_detach(t);
    vm_lock_release(t->vm);
    return NULL;
}

int pool_start(struct vm *vm, uint32_t workers)
{
    struct pool *p = &vm->pool;

    p->workers = calloc(workers ? workers : 1, sizeof *p->workers);
    if (!p->workers)
        return -1;
    for (p->nworkers = 0; p->nworkers < workers; p->nworkers++) {
        struct vm_thread *t = thread_new(vm, THREAD_POOL_WORKER);

        if (!t || pthread_create(&t->pthread, NULL, worker_main, t) != 0) {
            thread_free(t);
            return -1;
        }
        p->workers[p->nworkers] = t;
    }
    return 0;
}

void pool_sync(struct vm_thread *t)
{
    struct pool *p = &t->vm->pool;
    uint32_t self = t->kind == THREAD_POOL_WORKER; /* a worker waits for the others only */

    vm_lock_release(t->vm);
    pthread_mutex_lock(&p->m);
    while (p->head || p->running > self)
        pthread_cond_wait(&p->idle, &p->m);
    pthread_mutex_unlock(&p->m);
    vm_lock_acquire(t->vm);
}

/* Called without the VM lock: the workers need it to finish. */
void pool_stop(struct vm *vm)
{
    struct pool *p = &vm->pool;

    pthread_mutex_lock(&p->m);
    p->stopping = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->m);
    for (uint32_t i = 0; i < p->nworkers; i++) {
        pthread_join(p->workers[i]->pthread, NULL);
        thread_free(p->workers[i]);
    }
    free(p->workers);
    p->workers = NULL;
    p->nworkers = 0;
}
