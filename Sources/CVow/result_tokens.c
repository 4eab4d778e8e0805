/* The thread-local record behind vow_result tokens (vow_result_tokens.h). */
#include "vow_result_tokens.h"

#include <stdatomic.h>
#include <stdint.h>

/* A thread's record. */
typedef struct vow_result_thread {
    uintptr_t token;   /* the token of the callback running innermost here; 0: none */
    void *outcome;     /* where its outcome lives (valid while token is not 0) */
    uintptr_t next;    /* the next token this thread hands out */
    uintptr_t end;     /* the end of this thread's block of tokens */
} vow_result_thread;

static _Thread_local vow_result_thread vow_result_record;

/* Blocks of 2^20 odd tokens: block b holds b * 2^21 + 1, + 3, ... Block 0 is never handed
   out, so no token is a small number (nor 0, nor even: never a handle's address). */
#define VOW_RESULT_BLOCK ((uintptr_t)1 << 21)

static _Atomic uintptr_t vow_result_next_block = 1;

static __attribute__((noinline)) void
vow_result_new_block(vow_result_thread *thread)
{
    uintptr_t block = atomic_fetch_add_explicit(&vow_result_next_block, 1, memory_order_relaxed);
    thread->next = block * VOW_RESULT_BLOCK + 1;
    thread->end = thread->next + VOW_RESULT_BLOCK;
}

/* Makes the callback whose outcome lives at outcome the running one; returns its token. */
static inline vow_result *
vow_result_enter(vow_result_thread *thread, void *outcome)
{
    if (__builtin_expect(thread->next == thread->end, 0)) vow_result_new_block(thread);
    uintptr_t token = thread->next;
    thread->next = token + 2;
    thread->token = token;
    thread->outcome = outcome;
    return (vow_result *)token;
}

void
vow_result_call_value(vow_on_value fn, void *ctx, const vow_value *value, void *outcome)
{
    vow_result_thread *thread = &vow_result_record;
    uintptr_t outer_token = thread->token;
    void *outer_outcome = thread->outcome;
    fn(ctx, value, vow_result_enter(thread, outcome));
    thread->token = outer_token;
    thread->outcome = outer_outcome;
}

void
vow_result_call_error(vow_on_error fn, void *ctx, const vow_error *error, void *outcome)
{
    vow_result_thread *thread = &vow_result_record;
    uintptr_t outer_token = thread->token;
    void *outer_outcome = thread->outcome;
    fn(ctx, error, vow_result_enter(thread, outcome));
    thread->token = outer_token;
    thread->outcome = outer_outcome;
}

void *
vow_result_outcome(const void *out)
{
    const vow_result_thread *thread = &vow_result_record;
    uintptr_t token = (uintptr_t)out;
    return token != 0 && token == thread->token ? thread->outcome : NULL;
}
