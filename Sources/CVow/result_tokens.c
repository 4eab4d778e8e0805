/* The thread-local record behind vow_result tokens (vow_result_tokens.h). */
#include "vow_result_tokens.h"

#include <stdatomic.h>
#include <stdint.h>

/* A thread's record. */
typedef struct vow_result_thread {
    uintptr_t token;   /* the token of the callback running innermost here; 0: none */
    void *outcome;     /* where its outcome lives (valid while token is not 0) */
    uintptr_t next;    /* the index of the next token this thread hands out */
    uintptr_t end;     /* the end of this thread's block of tokens */
} vow_result_thread;

static _Thread_local vow_result_thread vowresult_record;

/* Tokens are addresses inside this region, which nothing ever writes: 8 MiB of zeros in
   .bss (address space only; a page is mapped, as the zero page, only where something
   reads it). A token passed where a handle is expected (vow_value_kind((vow_value *)out))
   is read there like any stray pointer, finds no tag and gets the misuse line, rather
   than faulting. Each token is 16 * k + 4 bytes into the region: never 0, never the
   address of an object (objects are 16-byte aligned), and a tag read 16 bytes further
   stays inside and aligned. The 512K tokens are handed out in blocks of 1024, one block
   at a time per thread from a process-wide counter; a token comes back only after all
   the others did (a kept out could match a running callback's again only if it were
   used exactly when that callback runs, half a million callbacks later). */
#define VOW_RESULT_SPACE ((size_t)8 << 20)
#define VOW_RESULT_TOKENS (VOW_RESULT_SPACE / 16 - 1)
#define VOW_RESULT_BLOCK ((uintptr_t)1024)

static unsigned char vowresult_space[VOW_RESULT_SPACE] __attribute__((aligned(16)));

static _Atomic uintptr_t vowresult_next_block;

static __attribute__((noinline)) void
vowresult_new_block(vow_result_thread *thread)
{
    uintptr_t block = atomic_fetch_add_explicit(&vowresult_next_block, 1, memory_order_relaxed);
    thread->next = block % (VOW_RESULT_TOKENS / VOW_RESULT_BLOCK) * VOW_RESULT_BLOCK;
    thread->end = thread->next + VOW_RESULT_BLOCK;
}

/* What vowresult_begin saved for vowresult_end: the callback that ran before (an outer
   one, when callbacks run inline inside each other). */
typedef struct vow_result_outer {
    uintptr_t token;
    void *outcome;
} vow_result_outer;

/* Makes the callback whose outcome lives at outcome the running one; returns its token. */
static inline vow_result *
vowresult_begin(vow_result_thread *thread, void *outcome, vow_result_outer *outer)
{
    outer->token = thread->token;
    outer->outcome = thread->outcome;
    if (__builtin_expect(thread->next == thread->end, 0)) vowresult_new_block(thread);
    uintptr_t token = (uintptr_t)vowresult_space + 16 * thread->next + 4;
    thread->next += 1;
    thread->token = token;
    thread->outcome = outcome;
    return (vow_result *)token;
}

/* The callback returned: the one that ran before is the running one again. */
static inline void
vowresult_end(vow_result_thread *thread, const vow_result_outer *outer)
{
    thread->token = outer->token;
    thread->outcome = outer->outcome;
}

void
vowresult_call_value(vow_on_value fn, void *ctx, const vow_value *value, void *outcome)
{
    vow_result_thread *thread = &vowresult_record;
    vow_result_outer outer;
    fn(ctx, value, vowresult_begin(thread, outcome, &outer));
    vowresult_end(thread, &outer);
}

void
vowresult_call_error(vow_on_error fn, void *ctx, const vow_error *error, void *outcome)
{
    vow_result_thread *thread = &vowresult_record;
    vow_result_outer outer;
    fn(ctx, error, vowresult_begin(thread, outcome, &outer));
    vowresult_end(thread, &outer);
}

void *
vowresult_outcome(const void *out)
{
    const vow_result_thread *thread = &vowresult_record;
    uintptr_t token = (uintptr_t)out;
    return token != 0 && token == thread->token ? thread->outcome : NULL;
}
