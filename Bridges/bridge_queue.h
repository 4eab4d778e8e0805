/*
 * bridge_queue.h: what the event-loop bridges (vow_uv.c, vow_glib.c) share.
 * Internal: not installed, every name is static and starts with vow__.
 *
 *   vow__queue        a FIFO of (run, job) pairs, a ring buffer that grows; the
 *                     bridge guards it with its own lock.
 *   vow__registry     the bridge's live dispatchers, so that a close function
 *                     given a vow_dispatcher * finds the bridge's state (vow.h
 *                     has no accessor for a dispatcher's ctx).
 */
#ifndef VOW_BRIDGE_QUEUE_H
#define VOW_BRIDGE_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "vow.h"

/* ---- the FIFO ------------------------------------------------------------------------ */

typedef struct vow__item {
    vow_job run;
    void *job;
} vow__item;

typedef struct vow__queue {
    vow__item *items;
    size_t head, count, capacity;
} vow__queue;

/* Appends; false (and nothing changed) when memory runs out. */
static bool
vow__queue_push(vow__queue *q, vow_job run, void *job)
{
    if (q->count == q->capacity) {
        size_t capacity = q->capacity ? 2 * q->capacity : 16;
        vow__item *grown = malloc(capacity * sizeof *grown);
        if (grown == NULL) return false;
        for (size_t i = 0; i < q->count; i++) grown[i] = q->items[(q->head + i) % q->capacity];
        free(q->items);
        q->items = grown;
        q->head = 0;
        q->capacity = capacity;
    }
    q->items[(q->head + q->count) % q->capacity] = (vow__item){run, job};
    q->count++;
    return true;
}

/* Removes the oldest item into *out; false if empty. */
static bool
vow__queue_pop(vow__queue *q, vow__item *out)
{
    if (q->count == 0) return false;
    *out = q->items[q->head];
    q->head = (q->head + 1) % q->capacity;
    q->count--;
    return true;
}

/* Moves everything out into *taken (the caller drops the items with vow__queue_drop_all). */
static void
vow__queue_take_all(vow__queue *q, vow__queue *taken)
{
    *taken = *q;
    memset(q, 0, sizeof *q);
}

/* Drops every item of q, oldest first, and frees its storage. */
static void
vow__queue_drop_all(vow__queue *q)
{
    vow__item item;
    while (vow__queue_pop(q, &item)) vow_job_drop(item.job);
    free(q->items);
    memset(q, 0, sizeof *q);
}

/* ---- the registry -------------------------------------------------------------------- */

typedef struct vow__registry_entry {
    vow_dispatcher *dispatcher; /* the key (borrowed) */
    void *state;
    struct vow__registry_entry *next;
} vow__registry_entry;

typedef struct vow__registry {
    pthread_mutex_t lock;
    vow__registry_entry *first;
} vow__registry;

/* Adds dispatcher -> state; entry is storage the state owns. */
static void
vow__registry_add(vow__registry *r, vow__registry_entry *entry, vow_dispatcher *d, void *state)
{
    entry->dispatcher = d;
    entry->state = state;
    pthread_mutex_lock(&r->lock);
    entry->next = r->first;
    r->first = entry;
    pthread_mutex_unlock(&r->lock);
}

/* Removes entry if it is registered (a state whose dispatcher was never made is not). */
static void
vow__registry_remove(vow__registry *r, vow__registry_entry *entry)
{
    pthread_mutex_lock(&r->lock);
    for (vow__registry_entry **at = &r->first; *at != NULL; at = &(*at)->next) {
        if (*at == entry) {
            *at = entry->next;
            break;
        }
    }
    pthread_mutex_unlock(&r->lock);
}

/* The state registered for d, or NULL. */
static void *
vow__registry_find(vow__registry *r, const vow_dispatcher *d)
{
    void *state = NULL;
    pthread_mutex_lock(&r->lock);
    for (vow__registry_entry *e = r->first; e != NULL; e = e->next) {
        if (e->dispatcher == d) {
            state = e->state;
            break;
        }
    }
    pthread_mutex_unlock(&r->lock);
    return state;
}

#endif /* VOW_BRIDGE_QUEUE_H */
