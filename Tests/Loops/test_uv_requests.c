/* test_uv_requests.c: libuv requests as promises (vow_uv_fs_*, vow_uv_getaddrinfo,
 * vow_uv_queue_work, vow_uv_timer): values, "uv" errors, cancellation of the request, and
 * every resource freed once whichever way it ends (valgrind, ASan, open file count). */
#define _GNU_SOURCE
#include "uv_support.h"

#include <dirent.h>
#include <netdb.h>
#include <sys/stat.h>

static char dir[256];

static void
make_files(void)
{
    /* Vow's timers open a few descriptors of their own the first time: before any count. */
    vow_promise *after = vow_after(0.001);
    vow_promise *warm = vow_timeout(after, 1);
    vow_wait(warm, 5, NULL, NULL);
    vow_promise_release(warm);
    vow_promise_release(after);
    snprintf(dir, sizeof dir, "/tmp/vow-uv-requests-%d", (int)getpid());
    mkdir(dir, 0700);
    char path[512];
    snprintf(path, sizeof path, "%s/hello.txt", dir);
    FILE *f = fopen(path, "w");
    fputs("hello, loop\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/empty.txt", dir);
    f = fopen(path, "w");
    fclose(f);
    snprintf(path, sizeof path, "%s/big.bin", dir);
    f = fopen(path, "w");
    for (int i = 0; i < 100000; i++) fputc('a' + i % 26, f);
    fclose(f);
    snprintf(path, sizeof path, "%s/a-directory", dir);
    mkdir(path, 0700);
}

static void
remove_files(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK_EQ_INT(system(cmd), 0);
}

static const char *
in_dir(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

static int
open_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL) return -1;
    while (readdir(d) != NULL) n++;
    closedir(d);
    return n;
}

typedef struct env {
    test_loop tl;
    vow_dispatcher *d;
} env;

static int
env_open(env *e)
{
    if (!test_loop_init(&e->tl)) return 0;
    e->d = vow_uv_dispatcher_new(&e->tl.loop);
    return e->d != NULL;
}

static void
env_close(env *e)
{
    vow_uv_dispatcher_close(e->d);
    vow_dispatcher_release(e->d);
    close_loop(&e->tl);
}

/* Runs the loop until p settles (the request keeps it alive); returns p's state. */
static vow_state
settle(env *e, vow_promise *p)
{
    CHECK(run_bounded(&e->tl));
    return vow_promise_state(p);
}

/* p rejected with domain "uv", code status, and a message that names the libuv call and
   its argument before libuv's words: operation is `uv_fs_open("/tmp/x")`. */
static void
check_uv_error(vow_promise *p, int status, const char *operation)
{
    char expected_message[1024];
    snprintf(expected_message, sizeof expected_message, "%s: %s", operation, uv_strerror(status));
    vow_error *err = vow_promise_error(p);
    CHECK(err != NULL);
    if (err == NULL) return;
    CHECK_EQ_STR(vow_error_domain(err), "uv");
    CHECK_EQ_INT(vow_error_code(err), status);
    CHECK_EQ_STR(vow_error_message(err), expected_message);
    vow_error_release(err);
    CHECK_EQ_INT(vow_wait(p, 0, NULL, NULL), VOW_REJECTED); /* handled */
}

static void
test_fs_open_read_stat_close(void)
{
    env e;
    REQUIRE(env_open(&e));
    int fds = open_fds();
    vow_promise *opened = vow_uv_fs_open(e.d, in_dir("hello.txt"), O_RDONLY, 0);
    CHECK_EQ_INT(settle(&e, opened), VOW_FULFILLED);
    vow_value *v = vow_promise_value(opened);
    int64_t fd = -1;
    CHECK_EQ_INT(vow_value_get_int(v, &fd), VOW_OK);
    vow_value_release(v);
    CHECK(fd >= 0);

    vow_promise *stat = vow_uv_fs_fstat(e.d, (uv_file)fd);
    vow_promise *read = vow_uv_fs_read(e.d, (uv_file)fd, 5, 7);
    CHECK_EQ_INT(settle(&e, read), VOW_FULFILLED);
    CHECK_EQ_INT(vow_promise_state(stat), VOW_FULFILLED);
    v = vow_promise_value(stat);
    const uv_stat_t *st = vow_value_get_pointer(v);
    CHECK(st != NULL && st->st_size == 12);
    vow_value_release(v);
    v = vow_promise_value(read);
    size_t n = 0;
    const char *bytes = vow_value_get_bytes(v, &n);
    CHECK_EQ_INT(n, 5); /* "loop" and the newline: 5 asked at offset 7 */
    CHECK(bytes != NULL && n == 5 && memcmp(bytes, "loop\n", 5) == 0);
    vow_value_release(v);

    vow_promise *closed = vow_uv_fs_close(e.d, (uv_file)fd);
    CHECK_EQ_INT(settle(&e, closed), VOW_FULFILLED);
    v = vow_promise_value(closed);
    CHECK_EQ_INT(vow_value_kind(v), VOW_KIND_NULL);
    vow_value_release(v);
    CHECK_EQ_INT(open_fds(), fds);

    vow_promise *by_path = vow_uv_fs_stat(e.d, in_dir("big.bin"));
    CHECK_EQ_INT(settle(&e, by_path), VOW_FULFILLED);
    v = vow_promise_value(by_path);
    st = vow_value_get_pointer(v);
    CHECK(st != NULL && st->st_size == 100000);
    vow_value_release(v);

    vow_promise *missing = vow_uv_fs_open(e.d, in_dir("no-such-file"), O_RDONLY, 0);
    CHECK_EQ_INT(settle(&e, missing), VOW_REJECTED);
    char operation[600];
    snprintf(operation, sizeof operation, "uv_fs_open(\"%s\")", in_dir("no-such-file"));
    check_uv_error(missing, UV_ENOENT, operation);
    vow_promise *bad_close = vow_uv_fs_close(e.d, 987654);
    CHECK_EQ_INT(settle(&e, bad_close), VOW_REJECTED);
    check_uv_error(bad_close, UV_EBADF, "uv_fs_close(file 987654)");

    vow_promise *all[] = {opened, stat, read, closed, by_path, missing, bad_close};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) vow_promise_release(all[i]);
    env_close(&e);
}

/* The BYTES of p, which must have fulfilled, compared with want (n bytes). */
#define CHECK_BYTES(p, want, n) check_bytes((p), (want), (n), __FILE__, __LINE__)
static void
check_bytes(vow_promise *p, const char *want, size_t n, const char *file, int line)
{
    vow_value *v = vow_promise_value(p);
    size_t got_n = 0;
    const char *got = vow_value_get_bytes(v, &got_n);
    ts_check(v != NULL && got_n == n && (n == 0 || (got != NULL && memcmp(got, want, n) == 0)), file, line,
             "the read fulfilled with the expected bytes");
    if (v == NULL || got_n != n) fprintf(stderr, "    got %zu bytes, expected %zu\n", got_n, n);
    vow_value_release(v);
}

/* vow_uv_fs_read: an offset below -1 is refused with a clear error; the buffer is sized by
   what can be read (a regular file's size from the position, 64 KiB for anything else),
   never by the length asked for (before: malloc(length) up front, so a length of 2^40
   rejected with UV_ENOMEM, or aborted under ASan). */
static void
test_fs_read_edges(void)
{
    env e;
    REQUIRE(env_open(&e));
    int fd = open(in_dir("hello.txt"), O_RDONLY);
    int big = open(in_dir("big.bin"), O_RDONLY);
    REQUIRE(fd >= 0 && big >= 0);

    vow_promise *negative = vow_uv_fs_read(e.d, fd, 5, -5);
    CHECK_EQ_INT(settle(&e, negative), VOW_REJECTED);
    vow_error *err = vow_promise_error(negative);
    CHECK_EQ_STR(vow_error_domain(err), "uv");
    CHECK_EQ_INT(vow_error_code(err), UV_EINVAL);
    CHECK(err != NULL && strstr(vow_error_message(err), "offset -5") != NULL);
    vow_error_release(err);
    CHECK_EQ_INT(vow_wait(negative, 0, NULL, NULL), VOW_REJECTED);
    vow_promise *lowest = vow_uv_fs_read(e.d, fd, 5, INT64_MIN);
    CHECK_EQ_INT(settle(&e, lowest), VOW_REJECTED);
    CHECK_EQ_INT(vow_wait(lowest, 0, NULL, NULL), VOW_REJECTED);

    vow_promise *huge = vow_uv_fs_read(e.d, fd, (size_t)1 << 40, 0);
    vow_promise *all = vow_uv_fs_read(e.d, fd, SIZE_MAX, 7);
    vow_promise *tail = vow_uv_fs_read(e.d, big, SIZE_MAX, 99990);
    vow_promise *past = vow_uv_fs_read(e.d, big, 100, 200000);
    vow_promise *none = vow_uv_fs_read(e.d, big, 0, 0);
    CHECK_EQ_INT(settle(&e, huge), VOW_FULFILLED);
    CHECK_BYTES(huge, "hello, loop\n", 12);
    CHECK_BYTES(all, "loop\n", 5);
    CHECK_BYTES(tail, "uvwxyzabcd", 10); /* bytes 99990..99999: 'a' + i % 26 */
    CHECK_BYTES(past, "", 0);
    CHECK_BYTES(none, "", 0);

    /* -1: the file's current position, which the read moves on. */
    vow_promise *first = vow_uv_fs_read(e.d, fd, 5, -1);
    CHECK_EQ_INT(settle(&e, first), VOW_FULFILLED);
    vow_promise *rest = vow_uv_fs_read(e.d, fd, (size_t)1 << 40, -1);
    CHECK_EQ_INT(settle(&e, rest), VOW_FULFILLED);
    CHECK_BYTES(first, "hello", 5);
    CHECK_BYTES(rest, ", loop\n", 7);

    /* A pipe: one read of what is there, at most 64 KiB, whatever the length. */
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    CHECK_EQ_INT(write(fds[1], "0123456789", 10), 10);
    vow_promise *piped = vow_uv_fs_read(e.d, fds[0], (size_t)1 << 40, -1);
    CHECK_EQ_INT(settle(&e, piped), VOW_FULFILLED);
    CHECK_BYTES(piped, "0123456789", 10);
    close(fds[0]);
    close(fds[1]);

    /* A file that is not open: fstat says so. */
    vow_promise *closed = vow_uv_fs_read(e.d, 987654, 10, 0);
    CHECK_EQ_INT(settle(&e, closed), VOW_REJECTED);
    check_uv_error(closed, UV_EBADF, "uv_fs_fstat(file 987654)");

    vow_promise *made[] = {negative, lowest, huge, all, tail, past, none, first, rest, piped, closed};
    for (size_t i = 0; i < sizeof made / sizeof *made; i++) vow_promise_release(made[i]);
    close(fd);
    close(big);
    env_close(&e);
}

static void
test_read_file(void)
{
    env e;
    REQUIRE(env_open(&e));
    int fds = open_fds();
    vow_promise *hello = vow_uv_fs_read_file(e.d, in_dir("hello.txt"), 1 << 20);
    vow_promise *empty = vow_uv_fs_read_file(e.d, in_dir("empty.txt"), 1 << 20);
    vow_promise *big = vow_uv_fs_read_file(e.d, in_dir("big.bin"), 1 << 20);
    vow_promise *too_big = vow_uv_fs_read_file(e.d, in_dir("big.bin"), 99999);
    vow_promise *exact = vow_uv_fs_read_file(e.d, in_dir("big.bin"), 100000);
    vow_promise *a_dir = vow_uv_fs_read_file(e.d, in_dir("a-directory"), 1 << 20);
    vow_promise *missing = vow_uv_fs_read_file(e.d, in_dir("missing.txt"), 1 << 20);
    vow_promise *proc = vow_uv_fs_read_file(e.d, "/proc/self/stat", 1 << 20); /* says size 0 */
    vow_promise *no_limit = vow_uv_fs_read_file(e.d, in_dir("hello.txt"), SIZE_MAX);
    CHECK(run_bounded(&e.tl));
    size_t n = 0;
    vow_value *v = vow_promise_value(hello);
    const char *bytes = vow_value_get_bytes(v, &n);
    CHECK_EQ_INT(n, 12);
    CHECK(bytes != NULL && memcmp(bytes, "hello, loop\n", 12) == 0);
    vow_value_release(v);
    v = vow_promise_value(empty);
    CHECK_EQ_INT(vow_value_kind(v), VOW_KIND_BYTES);
    vow_value_get_bytes(v, &n);
    CHECK_EQ_INT(n, 0);
    vow_value_release(v);
    v = vow_promise_value(big);
    bytes = vow_value_get_bytes(v, &n);
    CHECK_EQ_INT(n, 100000);
    CHECK(bytes != NULL && bytes[99999] == 'a' + 99999 % 26);
    vow_value_release(v);
    v = vow_promise_value(exact);
    vow_value_get_bytes(v, &n);
    CHECK_EQ_INT(n, 100000);
    vow_value_release(v);
    v = vow_promise_value(proc);
    vow_value_get_bytes(v, &n);
    CHECK(n > 10);
    vow_value_release(v);
    v = vow_promise_value(no_limit);
    vow_value_get_bytes(v, &n);
    CHECK_EQ_INT(n, 12);
    vow_value_release(v);
    char operation[600];
    snprintf(operation, sizeof operation, "vow_uv_fs_read_file(\"%s\")", in_dir("big.bin"));
    check_uv_error(too_big, UV_EFBIG, operation);
    snprintf(operation, sizeof operation, "uv_fs_read(\"%s\")", in_dir("a-directory"));
    check_uv_error(a_dir, UV_EISDIR, operation);
    snprintf(operation, sizeof operation, "uv_fs_open(\"%s\")", in_dir("missing.txt"));
    check_uv_error(missing, UV_ENOENT, operation);
    CHECK_EQ_INT(open_fds(), fds); /* every file closed, whatever happened */
    vow_promise *all[] = {hello, empty, big, too_big, exact, a_dir, missing, proc, no_limit};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) vow_promise_release(all[i]);
    env_close(&e);
}

/* Cancelling many reads at every stage: each promise ends cancelled or fulfilled (a step
   that already ran), no file stays open, nothing leaks. */
static void
test_cancel_reads(void)
{
    env e;
    REQUIRE(env_open(&e));
    int fds = open_fds();
    enum { N = 64 };
    vow_promise *reads[N];
    for (int i = 0; i < N; i++) reads[i] = vow_uv_fs_read_file(e.d, in_dir(i % 2 ? "big.bin" : "hello.txt"), 1 << 20);
    /* Cancel half at once (most still queued for the pool), the rest after one loop turn. */
    for (int i = 0; i < N; i += 2) vow_cancel(reads[i]);
    uv_run(&e.tl.loop, UV_RUN_NOWAIT);
    for (int i = 1; i < N; i += 2) vow_cancel(reads[i]);
    CHECK(run_bounded(&e.tl));
    int cancelled = 0, fulfilled = 0;
    for (int i = 0; i < N; i++) {
        if (vow_promise_is_cancelled(reads[i])) cancelled++;
        if (vow_promise_state(reads[i]) == VOW_FULFILLED) fulfilled++;
    }
    CHECK_EQ_INT(cancelled + fulfilled, N);
    CHECK(cancelled >= N / 2);
    CHECK_EQ_INT(open_fds(), fds);
    for (int i = 0; i < N; i++) vow_promise_release(reads[i]);
    /* A time-out cancels the same way (here before the loop runs again). */
    vow_promise *slow = vow_uv_fs_read_file(e.d, in_dir("big.bin"), 1 << 20);
    vow_promise *limited = vow_timeout(slow, 0);
    CHECK_EQ_INT(wait_promise(limited, NULL, NULL), VOW_REJECTED);
    CHECK_EQ_INT(wait_promise(slow, NULL, NULL), VOW_REJECTED); /* cancelled a moment later */
    CHECK(vow_promise_is_cancelled(slow));
    CHECK(run_bounded(&e.tl));
    CHECK_EQ_INT(open_fds(), fds);
    vow_promise_release(slow);
    vow_promise_release(limited);
    env_close(&e);
}

/* Closing the dispatcher cancels the requests it started that are still pending. */
static void
test_close_cancels_pending(void)
{
    env e;
    REQUIRE(env_open(&e));
    int fds = open_fds();
    vow_promise *timer = vow_uv_timer(e.d, 60000);
    vow_promise *read = vow_uv_fs_read_file(e.d, in_dir("big.bin"), 1 << 20);
    CHECK_EQ_INT(vow_uv_dispatcher_close(e.d), VOW_OK);
    CHECK(vow_promise_is_cancelled(timer));
    CHECK(vow_promise_is_cancelled(read));
    CHECK(vow_uv_timer(e.d, 1) == NULL); /* closed: nothing starts */
    CHECK(vow_uv_fs_read_file(e.d, in_dir("hello.txt"), 10) == NULL);
    CHECK(run_bounded(&e.tl)); /* the stopped timer does not keep the loop 60 s */
    CHECK_EQ_INT(open_fds(), fds);
    vow_promise_release(timer);
    vow_promise_release(read);
    vow_dispatcher_release(e.d);
    close_loop(&e.tl);
}

static void
test_getaddrinfo(void)
{
    env e;
    REQUIRE(env_open(&e));
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST;
    vow_promise *local = vow_uv_getaddrinfo(e.d, "127.0.0.1", "80", &hints);
    CHECK_EQ_INT(settle(&e, local), VOW_FULFILLED);
    vow_value *v = vow_promise_value(local);
    const struct addrinfo *ai = vow_value_get_pointer(v);
    CHECK(ai != NULL && ai->ai_family == AF_INET);
    vow_value_release(v);
    vow_promise_release(local);
    /* Neither node nor service: libuv refuses at once, the promise rejects. */
    vow_promise *neither = vow_uv_getaddrinfo(e.d, NULL, NULL, NULL);
    REQUIRE(neither != NULL);
    CHECK_EQ_INT(vow_promise_state(neither), VOW_REJECTED);
    check_uv_error(neither, UV_EINVAL, "uv_getaddrinfo(NULL, NULL)");
    vow_promise_release(neither);
    /* Not a number with AI_NUMERICHOST: a resolver error, as libuv maps it. */
    vow_promise *bad = vow_uv_getaddrinfo(e.d, "not-a-number", "80", &hints);
    CHECK_EQ_INT(settle(&e, bad), VOW_REJECTED);
    vow_error *err = vow_promise_error(bad);
    CHECK_EQ_STR(vow_error_domain(err), "uv");
    CHECK(vow_error_code(err) < 0);
    vow_error_release(err);
    CHECK_EQ_INT(vow_wait(bad, 0, NULL, NULL), VOW_REJECTED);
    vow_promise_release(bad);
    /* Cancelled at once: the list (if any came) is freed. */
    vow_promise *cancelled = vow_uv_getaddrinfo(e.d, "127.0.0.1", "80", &hints);
    vow_cancel(cancelled);
    CHECK(run_bounded(&e.tl));
    CHECK(vow_promise_is_cancelled(cancelled));
    vow_promise_release(cancelled);
    env_close(&e);
}

/* ---- queue_work ---- */

typedef struct work_ctx {
    track *t;
    pthread_t ran_on;
    atomic_int ran;
    double sleep;
    int fail;
    pthread_t destroyed_on;
} work_ctx;

static vow_value *
work_square(void *ctx, vow_error **error)
{
    work_ctx *w = ctx;
    w->ran_on = pthread_self();
    atomic_fetch_add(&w->ran, 1);
    if (w->sleep > 0) sleep_seconds(w->sleep);
    if (w->fail) {
        *error = vow_error_new("test.work", 3, "the work failed");
        return NULL;
    }
    return vow_value_int(12 * 12);
}

static void
work_destroy(void *ctx)
{
    work_ctx *w = ctx;
    w->destroyed_on = pthread_self();
    track_destroy(w->t);
}

static void
test_queue_work(void)
{
    env e;
    REQUIRE(env_open(&e));
    work_ctx ok = {.t = track_new()}, bad = {.t = track_new(), .fail = 1};
    vow_promise *p = vow_uv_queue_work(e.d, work_square, &ok, work_destroy);
    vow_promise *q = vow_uv_queue_work(e.d, work_square, &bad, work_destroy);
    CHECK(run_bounded(&e.tl));
    vow_value *v = vow_promise_value(p);
    int64_t i = 0;
    CHECK_EQ_INT(vow_value_get_int(v, &i), VOW_OK);
    CHECK_EQ_INT(i, 144);
    vow_value_release(v);
    CHECK(!pthread_equal(ok.ran_on, pthread_self())); /* on the pool */
    CHECK(pthread_equal(ok.destroyed_on, pthread_self())); /* destroy on the loop thread */
    CHECK_DESTROYED_ONCE(ok.t);
    vow_error *err = vow_promise_error(q);
    CHECK_EQ_STR(vow_error_domain(err), "test.work");
    vow_error_release(err);
    CHECK_EQ_INT(vow_wait(q, 0, NULL, NULL), VOW_REJECTED);
    CHECK_DESTROYED_ONCE(bad.t);
    vow_promise_release(p);
    vow_promise_release(q);
    env_close(&e);
}

/* A work that returns a value and sets *error: the error wins (the promise rejects with it,
   as a GIO finish function's GError does) and the value is released, once. */
static atomic_int both_value_freed;

static void
both_value_gone(void *p)
{
    (void)p;
    atomic_fetch_add(&both_value_freed, 1);
}

static vow_value *
work_value_and_error(void *ctx, vow_error **error)
{
    (void)ctx;
    *error = vow_error_new("test.work", 7, "both");
    return vow_value_pointer(&both_value_freed, both_value_gone);
}

static void
test_queue_work_value_and_error(void)
{
    env e;
    REQUIRE(env_open(&e));
    atomic_store(&both_value_freed, 0);
    track *t = track_new();
    vow_promise *p = vow_uv_queue_work(e.d, work_value_and_error, t, track_destroy);
    CHECK_EQ_INT(settle(&e, p), VOW_REJECTED);
    vow_error *err = vow_promise_error(p);
    CHECK_EQ_STR(vow_error_domain(err), "test.work");
    CHECK_EQ_INT(vow_error_code(err), 7);
    vow_error_release(err);
    CHECK_EQ_INT(vow_wait(p, 0, NULL, NULL), VOW_REJECTED);
    CHECK(wait_counter(&both_value_freed, 1, ts_wait_seconds()));
    CHECK_EQ_INT(atomic_load(&both_value_freed), 1);
    CHECK_DESTROYED_ONCE(t);
    vow_promise_release(p);
    env_close(&e);
}

/* Cancelled while queued behind busy pool threads: never runs, destroy once; cancelled
   while running: finishes, its value is released. */
static void
test_queue_work_cancel(void)
{
    env e;
    REQUIRE(env_open(&e));
    enum { BUSY = 4 }; /* libuv's default pool size (UV_THREADPOOL_SIZE unset) */
    work_ctx busy[BUSY];
    vow_promise *running[BUSY];
    for (int k = 0; k < BUSY; k++) {
        busy[k] = (work_ctx){.t = track_new(), .sleep = 0.2};
        running[k] = vow_uv_queue_work(e.d, work_square, &busy[k], work_destroy);
    }
    work_ctx queued = {.t = track_new()};
    vow_promise *waiting = vow_uv_queue_work(e.d, work_square, &queued, work_destroy);
    /* Let the pool pick up the busy ones, then cancel everything. */
    for (int k = 0; k < BUSY; k++) CHECK(wait_counter(&busy[k].ran, 1, ts_wait_seconds()));
    vow_cancel(waiting);
    for (int k = 0; k < BUSY; k++) vow_cancel(running[k]);
    CHECK(run_bounded(&e.tl));
    CHECK(vow_promise_is_cancelled(waiting));
    CHECK_EQ_INT(atomic_load(&queued.ran), 0);
    CHECK_DESTROYED_ONCE(queued.t);
    for (int k = 0; k < BUSY; k++) {
        CHECK(vow_promise_is_cancelled(running[k]));
        CHECK_EQ_INT(atomic_load(&busy[k].ran), 1);
        CHECK_DESTROYED_ONCE(busy[k].t);
        vow_promise_release(running[k]);
    }
    vow_promise_release(waiting);
    env_close(&e);
}

static void
test_timer(void)
{
    env e;
    REQUIRE(env_open(&e));
    double start = now_seconds();
    vow_promise *t = vow_uv_timer(e.d, 30);
    CHECK_EQ_INT(settle(&e, t), VOW_FULFILLED);
    CHECK(now_seconds() - start >= 0.029);
    vow_value *v = vow_promise_value(t);
    CHECK_EQ_INT(vow_value_kind(v), VOW_KIND_NULL);
    vow_value_release(v);
    vow_promise_release(t);
    /* Cancelled: stopped, the loop does not wait for it. */
    start = now_seconds();
    vow_promise *long_one = vow_uv_timer(e.d, 60000);
    vow_promise *raced = vow_timeout(long_one, 0.02);
    CHECK(run_bounded(&e.tl));
    CHECK(now_seconds() - start < 5);
    CHECK(vow_promise_is_cancelled(long_one));
    CHECK_EQ_INT(wait_promise(raced, NULL, NULL), VOW_REJECTED);
    vow_promise_release(long_one);
    vow_promise_release(raced);
    env_close(&e);
}

static void
test_bad_input(void)
{
    env e;
    REQUIRE(env_open(&e));
    vow_dispatcher *not_uv = vow_dispatcher_default();
    CHECK(vow_uv_fs_open(NULL, "x", O_RDONLY, 0) == NULL);
    CHECK(vow_uv_fs_open(not_uv, "x", O_RDONLY, 0) == NULL);
    CHECK(vow_uv_fs_open(e.d, NULL, O_RDONLY, 0) == NULL);
    CHECK(vow_uv_fs_stat(e.d, NULL) == NULL);
    CHECK(vow_uv_fs_read_file(e.d, NULL, 10) == NULL);
    CHECK(vow_uv_fs_read(NULL, 0, 1, 0) == NULL);
    CHECK(vow_uv_fs_close(not_uv, 0) == NULL);
    CHECK(vow_uv_fs_fstat(NULL, 0) == NULL);
    CHECK(vow_uv_getaddrinfo(not_uv, "127.0.0.1", NULL, NULL) == NULL);
    CHECK(vow_uv_timer(NULL, 1) == NULL);
    track *t = track_new(), *u = track_new();
    CHECK(vow_uv_queue_work(e.d, NULL, t, track_destroy) == NULL);
    CHECK_EQ_INT(track_destroyed(t), 1);
    CHECK(vow_uv_queue_work(not_uv, work_square, u, track_destroy) == NULL);
    CHECK_EQ_INT(track_destroyed(u), 1);
    /* A read of nothing is fine: empty BYTES. */
    vow_promise *nothing = vow_uv_fs_read(e.d, 0, 0, -1);
    CHECK_EQ_INT(settle(&e, nothing), VOW_FULFILLED);
    vow_promise_release(nothing);
    env_close(&e);
}

TEST_MAIN_BEGIN("test_uv_requests")
    make_files();
    RUN_TEST(test_fs_open_read_stat_close);
    RUN_TEST(test_fs_read_edges);
    RUN_TEST(test_read_file);
    RUN_TEST(test_cancel_reads);
    RUN_TEST(test_close_cancels_pending);
    RUN_TEST(test_getaddrinfo);
    RUN_TEST(test_queue_work);
    RUN_TEST(test_queue_work_value_and_error);
    RUN_TEST(test_queue_work_cancel);
    RUN_TEST(test_timer);
    RUN_TEST(test_bad_input);
    remove_files();
TEST_MAIN_END
