/*
 * vow_result_tokens.h: which vow_result * belongs to the callback running on this thread.
 * Internal to Vow, not part of vow.h (it is in the CVow module for the C face; C programs
 * never include it). Its functions are named vowresult_*, not vow_*: the names vow_* are
 * the headers' (a program that links the engine statically defines none of them).
 *
 * A C callback's `vow_result *out` is not the address of its outcome but a token that
 * names one call of one callback: an address inside a region of the library that nothing
 * writes (so a token passed where a handle is expected reads as a stray pointer, not a
 * fault), never that of an object, handed out again only after half a million others.
 * Each thread keeps, in a thread-local record, the token of the callback
 * running innermost on it and where that call's outcome lives (on the stack of the job
 * that runs it, alive for the whole call). vow_result_return, _throw and _adopt write
 * only when out is that token: an out kept past its callback, used inside another
 * callback, or used from another thread while its callback runs finds no outcome, and the
 * check reads nothing but the calling thread's own record (never a dead stack frame).
 *
 * The callback is called from here (vowresult_call_value, _error), so that starting and
 * ending it costs one thread-local access, and so does each check (vowresult_outcome,
 * from the vow_result_* entry points in Sources/Vow/C/CChaining.swift): no pthread key,
 * no call into the Swift runtime. (The default, dynamic, thread-local model: libvow.so
 * may be loaded with dlopen, where the initial-exec model can fail to load.)
 */
#ifndef VOW_RESULT_TOKENS_H
#define VOW_RESULT_TOKENS_H

#include "vow.h"

/* Calls fn(ctx, value, out) as the callback running innermost on this thread: out is a
   fresh token, whose outcome lives at outcome. The callback that ran before (an outer
   one, when callbacks run inline inside each other) is the running one again once fn
   returned. */
__attribute__((visibility("hidden")))
void vowresult_call_value(vow_on_value fn, void *ctx, const vow_value *value, void *outcome);

/* The same for an error callback. */
__attribute__((visibility("hidden")))
void vowresult_call_error(vow_on_error fn, void *ctx, const vow_error *error, void *outcome);

/* The outcome of the callback running innermost on this thread if out is its token;
   NULL otherwise (and for NULL). */
__attribute__((visibility("hidden")))
void *vowresult_outcome(const void *out);

#endif
