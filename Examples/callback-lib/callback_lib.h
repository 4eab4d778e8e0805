/*
 * callback_lib.h: a small C library of the old school, for the swift-wraps-c example.
 *
 * It does its work on threads of its own and reports completion through a callback
 * that receives no context pointer: the caller cannot pass its own state through, so a
 * wrapper needs one C function per pending request. Vow's trampolines (vow_trampoline_new)
 * make such functions at run time.
 */
#ifndef CALLBACK_LIB_H
#define CALLBACK_LIB_H

#ifdef __cplusplus
extern "C" {
#endif

/* Called once per job, from the library's own thread: result is the job's text
   (borrowed for the call), or NULL if the job failed. */
typedef void (*cb_done_fn)(int job, const char *result);

/* Starts job number `job` on a new thread and returns 0; done(job, result) is called
   from that thread about 10 ms later. Jobs 13 and above fail (result NULL). Returns -1
   (and never calls done) for a negative job or a NULL done. */
int cb_lib_start(int job, cb_done_fn done);

/* Waits until every job started so far has returned from its done callback. */
void cb_lib_finish(void);

#ifdef __cplusplus
}
#endif

#endif /* CALLBACK_LIB_H */
