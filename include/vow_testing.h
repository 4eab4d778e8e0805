/*
 * vow_testing.h: test loops for the tests of C code that uses Vow. A test
 * loop is a serial dispatcher and a virtual clock in one: installed on the
 * test's thread, every Vow timer created there (vow_after, vow_timeout,
 * vow_delay, vow_retry) reads its clock, and callbacks registered there on
 * the default dispatcher wait in the loop until the test runs it. A test of
 * a 30-second timeout runs in microseconds, and nothing runs on its own:
 *
 *     vow_test_loop *l = vow_test_loop_new(0);
 *     vow_test_loop_install(l);                  // this thread's loop
 *     vow_promise *t = vow_timeout(request, 30); // a virtual 30 s
 *     vow_test_loop_advance(l, 29.0);            // nothing yet
 *     vow_test_loop_advance(l, 1.0);             // the timeout fires, its callbacks run
 *     assert(vow_promise_state(t) == VOW_REJECTED);
 *     ...
 *     assert(vow_test_loop_pending(l) == 0);     // no promise left pending
 *     vow_test_loop_release(l);                  // uninstalls it
 *
 * The functions live in libvow.so; this header only declares them (the
 * conventions of vow.h hold: ownership, NULL in, misuse lines, threads).
 * Swift tests use the same loop through VowTesting's TestLoop.
 *
 * Installed on a thread (vow_test_loop_install), and until uninstalled or
 * released, on that thread and only there:
 *   - the timers of vow_after, vow_timeout, vow_delay and vow_retry called
 *     there run on the loop's clock (a timer keeps the clock of the call that
 *     asked for it: the pause of a vow_delay starts when its source fulfils,
 *     on whatever thread, and still counts virtual time);
 *   - the default dispatcher is the loop (vow_then, vow_catch, ... without a
 *     dispatcher, and vow_dispatcher_default(), registered there);
 *   - the promises made there are counted by vow_test_loop_pending and listed
 *     by vow_test_loop_dump_pending (their sites are recorded as in debug
 *     mode: "C", or "file.c:42" for a program compiled with VOW_DEBUG_SITES).
 * Other threads keep real time and their own default: tests running in
 * parallel in one process do not see each other's loops.
 *
 * Work. Jobs submitted to the loop (callbacks, Swift jobs of actors whose
 * executor it is) wait until a call below runs them, on the calling thread,
 * which is then the loop's thread. With seed 0 they run in submission order.
 * With another seed, each step picks at random (a generator seeded with it)
 * among the oldest waiting job of each promise: the callbacks of one promise
 * keep their registration order (Promises/A+ 2.2.6), callbacks of different
 * promises run in an order the seed decides, the same on every run. A test
 * that tries seeds 1, 2, ... finds code that depends on an order nobody
 * promised; printing the seed of a failing run lets it be reproduced.
 *
 * Time. The loop is a dispatcher with a clock of its own: the timers asked
 * for where it is the default dispatcher run on it (vow.h,
 * vow_dispatcher_new_with_timers, says which). vow_test_loop_now starts at 0
 * and moves only in vow_test_loop_advance, and reaches any finite time (it
 * counts nanoseconds in 128 bits: vow_after(1e10), 317 years, fires at
 * vow_test_loop_advance(l, 1e10)). Times follow the library's rule (vow.h):
 * zero, negative and -infinity mean now; +infinity means no limit (and only
 * it); NaN is a mistake (a misuse line) and means now.
 *
 * Waiting. vow_wait does not run the loop: only vow_test_loop_advance and
 * vow_test_loop_run_until_idle do. A vow_wait on a promise that needs the
 * loop (a callback waiting in it, a timer on its clock) therefore returns
 * VOW_PENDING when its time runs out, and with no limit (-1) waits until
 * another thread runs the loop (any thread may advance it) or settles the
 * promise: with none, it never returns, as a real loop's thread blocked in a
 * wait would not. So run the loop, then read the promise
 * (vow_promise_state). Inside one of the loop's own jobs such a wait returns
 * VOW_DEADLOCK at once (the loop is that thread's serial dispatcher).
 *
 * Misuse lines (see vow.h, "Misuse lines"):
 *   vow: FN: expected a vow_test_loop, got a OTHER
 *       A handle of another kind, or a released loop (while that can still
 *       be seen: using a released loop is undefined, vow.h "Released").
 *       Answered as for NULL.
 *   vow: vow_test_loop_install: this thread has a test loop installed already
 *   vow: vow_test_loop_install: the loop is installed on another thread
 *       Returns VOW_EALREADY; nothing changes.
 *   vow: vow_test_loop_uninstall: the loop is not installed on this thread
 *       Returns VOW_EINVAL; nothing changes.
 *   vow: FN: the loop is running already (called from one of its jobs, or
 *   from another thread while it runs)
 *       vow_test_loop_advance, vow_test_loop_run_until_idle: runs nothing,
 *       returns 0.
 *   vow: vow_test_loop_advance: NaN seconds (a caller's mistake), treated as 0
 *       Runs what is due now, moves no time.
 */
#ifndef VOW_TESTING_H
#define VOW_TESTING_H

#include <stdint.h>
#include <stdio.h>

#include "vow.h"

VOW_BEGIN_DECLS

/** A test loop: a serial dispatcher and a virtual clock (see the top of this header). */
typedef struct vow_test_loop vow_test_loop;

/**
 * A new test loop, not installed, its clock at 0. seed 0: jobs run in
 * submission order; any other seed: jobs of different promises run in the
 * order the seed decides (see "Work" above). Returns +1, never NULL:
 * release it with vow_test_loop_release. Any thread.
 */
VOW_EXTERN vow_test_loop *VOW_NULLABLE
vow_test_loop_new(uint64_t seed);

/**
 * The loop as a dispatcher, for the _on functions of vow.h (vow_then_on(d,
 * ...)) and for vow_set_default_dispatcher. Borrowed: valid until the loop
 * is released (vow_dispatcher_retain it to keep it longer; a dispatcher of a
 * released loop drops what it gets, which cancels the promises). The same
 * handle on every call. NULL for NULL. Any thread.
 */
VOW_EXTERN vow_dispatcher *VOW_NULLABLE
vow_test_loop_dispatcher(vow_test_loop *VOW_NONNULL l) VOW_NONNULL_ARGS(1);

/**
 * Installs the loop on the calling thread (see the top of this header): its
 * timers, its default dispatcher, its census. One loop per thread and one
 * thread per loop: installing a second loop on a thread, or the same loop
 * on a second thread (or again on this one), returns VOW_EALREADY with a
 * misuse line and changes nothing. VOW_OK when installed; VOW_EINVAL for
 * NULL or a released loop. The calling thread only.
 */
VOW_EXTERN int
vow_test_loop_install(vow_test_loop *VOW_NONNULL l) VOW_NONNULL_ARGS(1);

/**
 * Uninstalls the loop from the calling thread: timers created there from
 * now on use real time again, and the default dispatcher is the process's.
 * Timers armed meanwhile stay on the loop's clock, and jobs waiting in the
 * loop stay there (run them, or release the loop). VOW_OK; VOW_EINVAL (with
 * a misuse line) when the loop is not installed on this thread, and for
 * NULL. The calling thread only.
 */
VOW_EXTERN int
vow_test_loop_uninstall(vow_test_loop *VOW_NONNULL l) VOW_NONNULL_ARGS(1);

/**
 * Moves the loop's clock forward by seconds, running on the calling thread,
 * in order, the waiting jobs and the timers that fall due: a timer due
 * earlier fires first (timers due at the same time in the order they were
 * created), and the jobs it makes ready run before the next one fires. Then
 * the clock reads the old time + seconds. Returns how many jobs and timers
 * ran. Zero, negative and -infinity: runs what is due now, moves no time.
 * +infinity: fires every timer, including those armed meanwhile, and leaves
 * the clock at the last one's deadline (a timer that re-arms itself keeps it
 * going, as it would a real loop). NaN: a misuse line, and as 0. Called from
 * one of the loop's own jobs, or while another thread runs the loop: a
 * misuse line, runs nothing, returns 0. 0 for NULL. Any thread; the jobs
 * run on the calling thread.
 */
VOW_EXTERN size_t
vow_test_loop_advance(vow_test_loop *VOW_NONNULL l, double seconds) VOW_NONNULL_ARGS(1);

/**
 * Runs the waiting jobs, and the timers due now, until none is left (jobs
 * they make ready included), on the calling thread; the clock does not move.
 * Returns how many jobs and timers ran. Called from one of the loop's own
 * jobs, or while another thread runs the loop: a misuse line, returns 0.
 * 0 for NULL. Any thread.
 */
VOW_EXTERN size_t
vow_test_loop_run_until_idle(vow_test_loop *VOW_NONNULL l) VOW_NONNULL_ARGS(1);

/**
 * The loop's clock: virtual seconds since vow_test_loop_new. NaN for NULL
 * or a released loop. Any thread.
 */
VOW_EXTERN double
vow_test_loop_now(const vow_test_loop *VOW_NONNULL l) VOW_NONNULL_ARGS(1);

/**
 * How many promises made on the loop's thread while it was installed are
 * still pending (still referenced by something: a variable of the test, a
 * timer of the loop, a callback waiting in it). A test ends with 0 when it
 * let go of everything it started; vow_test_loop_dump_pending says where
 * the others were made. 0 for NULL. Any thread.
 */
VOW_EXTERN size_t
vow_test_loop_pending(const vow_test_loop *VOW_NONNULL l) VOW_NONNULL_ARGS(1);

/**
 * Writes to out one line per promise that vow_test_loop_pending counts,
 * oldest first, in the census format of vow_debug_dump_pending ("SITE:
 * pending for AGE s, waiting on SITE (chain began at SITE)"), and returns
 * how many it wrote. NULL l or out: writes nothing, returns 0. Any thread.
 */
VOW_EXTERN size_t
vow_test_loop_dump_pending(const vow_test_loop *VOW_NONNULL l, FILE *VOW_NULLABLE out) VOW_NONNULL_ARGS(1);

/**
 * Releases the loop, at once, from any thread, also from inside one of its
 * own jobs (the run in progress then stops after that job: nothing queued
 * behind it runs, no timer fires). An installed loop is uninstalled first
 * (from whichever thread it was installed on). The jobs still waiting are dropped: their
 * callbacks never run, their destroy runs, and the promises they would have
 * settled are cancelled (Swift jobs still run, on this thread: Swift requires
 * every job to run). The timers still armed never fire: the promise of a
 * vow_after is cancelled, a vow_timeout no longer times out, a vow_delay's
 * promise is cancelled. NULL does nothing. Any thread.
 */
VOW_EXTERN void
vow_test_loop_release(vow_test_loop *VOW_NULLABLE l);

VOW_END_DECLS

#endif /* VOW_TESTING_H */
