/* host_loop.c: see host_loop.h. */
#include "host_loop.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct item {
    vow_job run;
    void *job;
} item;

struct host_loop {
    pthread_mutex_t lock;
    pthread_cond_t wake;      /* work queued, or closing/stopping */
    pthread_cond_t idle;      /* the queue was dropped after close; the dispatcher was destroyed */
    item *items;
    size_t head, count, capacity;
    bool closed, drop_done, stopping, destroyed;
    size_t ran, dropped;
    pthread_t thread;
    vow_dispatcher *dispatcher;
};

static void
push(host_loop *l, vow_job run, void *job)
{
    if (l->count == l->capacity) {
        size_t capacity = l->capacity ? 2 * l->capacity : 64;
        item *grown = malloc(capacity * sizeof *grown);
        if (grown == NULL) abort();
        for (size_t i = 0; i < l->count; i++) grown[i] = l->items[(l->head + i) % l->capacity];
        free(l->items);
        l->items = grown;
        l->head = 0;
        l->capacity = capacity;
    }
    l->items[(l->head + l->count) % l->capacity] = (item){run, job};
    l->count++;
}

static item
pop(host_loop *l)
{
    item it = l->items[l->head];
    l->head = (l->head + 1) % l->capacity;
    l->count--;
    return it;
}

static void
submit(void *ctx, vow_job run, void *job)
{
    host_loop *l = ctx;
    pthread_mutex_lock(&l->lock);
    if (l->closed) {
        l->dropped++;
        pthread_mutex_unlock(&l->lock);
        vow_job_drop(job); /* a closed loop: vow.h allows the drop inside submit */
        return;
    }
    push(l, run, job);
    pthread_cond_signal(&l->wake);
    pthread_mutex_unlock(&l->lock);
}

static void
destroy(void *ctx)
{
    host_loop *l = ctx;
    pthread_mutex_lock(&l->lock);
    l->destroyed = true;
    pthread_cond_broadcast(&l->idle);
    pthread_mutex_unlock(&l->lock);
}

static void *
loop_main(void *arg)
{
    host_loop *l = arg;
    pthread_mutex_lock(&l->lock);
    for (;;) {
        if (l->closed && !l->drop_done) {
            /* Drop what is queued, one at a time, outside the lock. */
            while (l->count > 0) {
                item it = pop(l);
                l->dropped++;
                pthread_mutex_unlock(&l->lock);
                vow_job_drop(it.job);
                pthread_mutex_lock(&l->lock);
            }
            l->drop_done = true;
            pthread_cond_broadcast(&l->idle);
            continue;
        }
        if (l->count > 0 && !l->closed) {
            item it = pop(l);
            l->ran++;
            pthread_mutex_unlock(&l->lock);
            it.run(it.job);
            pthread_mutex_lock(&l->lock);
            continue;
        }
        if (l->stopping) break;
        pthread_cond_wait(&l->wake, &l->lock);
    }
    pthread_mutex_unlock(&l->lock);
    return NULL;
}

host_loop *
host_loop_start(void)
{
    host_loop *l = calloc(1, sizeof *l);
    if (l == NULL) abort();
    pthread_mutex_init(&l->lock, NULL);
    pthread_cond_init(&l->wake, NULL);
    pthread_cond_init(&l->idle, NULL);
    l->dispatcher = vow_dispatcher_new(submit, l, destroy);
    if (l->dispatcher == NULL) abort();
    if (pthread_create(&l->thread, NULL, loop_main, l) != 0) abort();
    return l;
}

vow_dispatcher *
host_loop_dispatcher(host_loop *l)
{
    return l->dispatcher;
}

bool
host_loop_on_thread(const host_loop *l)
{
    return pthread_equal(pthread_self(), l->thread) != 0;
}

size_t
host_loop_jobs_run(host_loop *l)
{
    pthread_mutex_lock(&l->lock);
    size_t n = l->ran;
    pthread_mutex_unlock(&l->lock);
    return n;
}

size_t
host_loop_jobs_dropped(host_loop *l)
{
    pthread_mutex_lock(&l->lock);
    size_t n = l->dropped;
    pthread_mutex_unlock(&l->lock);
    return n;
}

void
host_loop_close(host_loop *l)
{
    pthread_mutex_lock(&l->lock);
    if (!l->closed) {
        l->closed = true;
        pthread_cond_signal(&l->wake);
    }
    bool on_loop = pthread_equal(pthread_self(), l->thread) != 0;
    while (!on_loop && !l->drop_done) pthread_cond_wait(&l->idle, &l->lock);
    pthread_mutex_unlock(&l->lock);
}

void
host_loop_stop(host_loop *l)
{
    host_loop_close(l);
    pthread_mutex_lock(&l->lock);
    l->stopping = true;
    pthread_cond_signal(&l->wake);
    pthread_mutex_unlock(&l->lock);
    pthread_join(l->thread, NULL);
    vow_dispatcher_release(l->dispatcher);
    /* The dispatcher's destroy runs once nothing holds it (a Swift executor may keep it
       a moment longer): wait for it, then free. */
    pthread_mutex_lock(&l->lock);
    while (!l->destroyed) pthread_cond_wait(&l->idle, &l->lock);
    pthread_mutex_unlock(&l->lock);
    pthread_cond_destroy(&l->wake);
    pthread_cond_destroy(&l->idle);
    pthread_mutex_destroy(&l->lock);
    free(l->items);
    free(l);
}
