/* test_uv_tcp.c: a TCP echo on 127.0.0.1 whose client steps (connect, write, read, close)
 * are promises settled from libuv callbacks and chained with vow_then, the uv dispatcher
 * being the default: every callback runs on the loop thread, the echoed bytes add up. */
#define _GNU_SOURCE
#include "uv_support.h"

static pthread_t loop_thread;
static int off_loop; /* chain callbacks that ran off the loop thread */

static void
on_loop_check(void)
{
    if (!pthread_equal(pthread_self(), loop_thread)) off_loop++;
}

/* ---- libuv steps as promises ---------------------------------------------------------- */

static vow_error *
uv_error(int status)
{
    return vow_error_new("uv", status, uv_strerror(status));
}

static void
settle_status(vow_resolver *r, int status)
{
    if (status == 0) {
        vow_value *nothing = vow_value_null();
        vow_resolver_fulfill(r, nothing);
        vow_value_release(nothing);
    } else {
        vow_error *e = uv_error(status);
        vow_resolver_reject(r, e);
        vow_error_release(e);
    }
    vow_resolver_release(r);
}

typedef struct connect_op {
    uv_connect_t req;
    vow_resolver *r;
} connect_op;

static void
connected(uv_connect_t *req, int status)
{
    connect_op *op = req->data;
    settle_status(op->r, status);
    free(op);
}

/* Connects client (initialised by the caller) to addr: a promise of NULL. */
static vow_promise *
tcp_connect(uv_tcp_t *client, const struct sockaddr *addr)
{
    connect_op *op = calloc(1, sizeof *op);
    vow_promise *p = vow_promise_pending(&op->r);
    op->req.data = op;
    int rc = uv_tcp_connect(&op->req, client, addr, connected);
    if (rc != 0) {
        settle_status(op->r, rc);
        free(op);
    }
    return p;
}

typedef struct write_op {
    uv_write_t req;
    vow_resolver *r;
    char *copy;
} write_op;

static void
written(uv_write_t *req, int status)
{
    write_op *op = req->data;
    settle_status(op->r, status);
    free(op->copy);
    free(op);
}

/* Writes n bytes (copied): a promise of NULL once libuv wrote them. */
static vow_promise *
stream_write(uv_stream_t *stream, const void *bytes, size_t n)
{
    write_op *op = calloc(1, sizeof *op);
    vow_promise *p = vow_promise_pending(&op->r);
    op->copy = malloc(n);
    memcpy(op->copy, bytes, n);
    op->req.data = op;
    uv_buf_t buf = uv_buf_init(op->copy, (unsigned)n);
    int rc = uv_write(&op->req, stream, &buf, 1, written);
    if (rc != 0) {
        settle_status(op->r, rc);
        free(op->copy);
        free(op);
    }
    return p;
}

typedef struct read_op {
    vow_resolver *r;
    char *buf;
    size_t want, have;
} read_op;

static void
read_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buf)
{
    read_op *op = handle->data;
    (void)suggested;
    buf->base = op->buf + op->have;
    buf->len = op->want - op->have;
}

static void
read_some(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
    read_op *op = stream->data;
    (void)buf;
    if (nread == 0) return;
    if (nread > 0) op->have += (size_t)nread;
    if (nread < 0 || op->have == op->want) {
        uv_read_stop(stream);
        stream->data = NULL;
        if (nread < 0) {
            vow_error *e = uv_error((int)nread);
            vow_resolver_reject(op->r, e);
            vow_error_release(e);
        } else {
            vow_value *bytes = vow_value_bytes(op->buf, op->have);
            vow_resolver_fulfill(op->r, bytes);
            vow_value_release(bytes);
        }
        vow_resolver_release(op->r);
        free(op->buf);
        free(op);
    }
}

/* Reads exactly n bytes: a promise of BYTES. */
static vow_promise *
stream_read(uv_stream_t *stream, size_t n)
{
    read_op *op = calloc(1, sizeof *op);
    vow_promise *p = vow_promise_pending(&op->r);
    op->buf = malloc(n);
    op->want = n;
    stream->data = op;
    uv_read_start(stream, read_alloc, read_some);
    return p;
}

static void
closed_settle(uv_handle_t *handle)
{
    settle_status(handle->data, 0);
}

/* Closes handle: a promise of NULL, fulfilled in the close callback. */
static vow_promise *
handle_close(uv_handle_t *handle)
{
    vow_resolver *r;
    vow_promise *p = vow_promise_pending(&r);
    handle->data = r;
    uv_close(handle, closed_settle);
    return p;
}

/* ---- the echo server -------------------------------------------------------------------- */

typedef struct server {
    uv_tcp_t listener;
    uv_tcp_t peer;
    int accepted;
    size_t echoed;
} server;

static server the_server;

static void
echo_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buf)
{
    (void)handle;
    buf->base = malloc(suggested);
    buf->len = suggested;
}

static void
echo_written(uv_write_t *req, int status)
{
    CHECK_EQ_INT(status, 0);
    free(req->data);
    free(req);
}

static void
echo_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
    if (nread > 0) {
        uv_write_t *req = malloc(sizeof *req);
        req->data = buf->base;
        uv_buf_t out = uv_buf_init(buf->base, (unsigned)nread);
        the_server.echoed += (size_t)nread;
        uv_write(req, stream, &out, 1, echo_written);
        return;
    }
    free(buf->base);
    if (nread < 0) uv_close((uv_handle_t *)stream, NULL); /* EOF: the client closed */
}

static void
on_connection(uv_stream_t *listener, int status)
{
    CHECK_EQ_INT(status, 0);
    uv_tcp_init(listener->loop, &the_server.peer);
    if (uv_accept(listener, (uv_stream_t *)&the_server.peer) == 0) {
        the_server.accepted++;
        uv_read_start((uv_stream_t *)&the_server.peer, echo_alloc, echo_read);
    }
    uv_close((uv_handle_t *)listener, NULL); /* one client is enough */
}

/* ---- the client chain -------------------------------------------------------------------- */

static const char first_line[] = "hello, loop\n";
static const char second_line[] = "a second line, a little longer than the first\n";

typedef struct session {
    uv_tcp_t client;
    int steps;
    size_t received;
    int mismatches;
} session;

static void
after_connect(void *ctx, const vow_value *value, vow_result *out)
{
    session *s = ctx;
    (void)value;
    on_loop_check();
    s->steps++;
    vow_promise *w = stream_write((uv_stream_t *)&s->client, first_line, strlen(first_line));
    vow_value *next = vow_value_promise(w);
    vow_result_return(out, next);
    vow_value_release(next);
    vow_promise_release(w);
}

static void
read_back(session *s, size_t n, vow_result *out)
{
    vow_promise *r = stream_read((uv_stream_t *)&s->client, n);
    vow_value *next = vow_value_promise(r);
    vow_result_return(out, next);
    vow_value_release(next);
    vow_promise_release(r);
}

static void
after_first_write(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    on_loop_check();
    ((session *)ctx)->steps++;
    read_back(ctx, strlen(first_line), out);
}

static void
compare(session *s, const vow_value *value, const char *expected)
{
    size_t n = 0;
    const void *bytes = vow_value_get_bytes(value, &n);
    s->received += n;
    if (n != strlen(expected) || memcmp(bytes, expected, n) != 0) s->mismatches++;
}

static void
after_first_echo(void *ctx, const vow_value *value, vow_result *out)
{
    session *s = ctx;
    on_loop_check();
    s->steps++;
    compare(s, value, first_line);
    vow_promise *w = stream_write((uv_stream_t *)&s->client, second_line, strlen(second_line));
    vow_value *next = vow_value_promise(w);
    vow_result_return(out, next);
    vow_value_release(next);
    vow_promise_release(w);
}

static void
after_second_write(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    on_loop_check();
    ((session *)ctx)->steps++;
    read_back(ctx, strlen(second_line), out);
}

static void
after_second_echo(void *ctx, const vow_value *value, vow_result *out)
{
    session *s = ctx;
    on_loop_check();
    s->steps++;
    compare(s, value, second_line);
    vow_promise *c = handle_close((uv_handle_t *)&s->client);
    vow_value *next = vow_value_promise(c);
    vow_result_return(out, next);
    vow_value_release(next);
    vow_promise_release(c);
}

static void
after_close(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    (void)out;
    on_loop_check();
    ((session *)ctx)->steps++;
}

static void
report(void *ctx, const vow_error *error, vow_result *out)
{
    (void)ctx;
    (void)out;
    fprintf(stderr, "echo chain failed: %s %lld: %s\n", vow_error_domain(error), (long long)vow_error_code(error),
            vow_error_message(error));
    CHECK(!"the echo chain rejected");
}

static void
test_tcp_echo_as_promises(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    loop_thread = pthread_self();
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    vow_set_default_dispatcher(d); /* vow_then without _on runs on the loop */

    struct sockaddr_in addr;
    uv_ip4_addr("127.0.0.1", 0, &addr);
    memset(&the_server, 0, sizeof the_server);
    uv_tcp_init(&tl.loop, &the_server.listener);
    REQUIRE(uv_tcp_bind(&the_server.listener, (const struct sockaddr *)&addr, 0) == 0);
    REQUIRE(uv_listen((uv_stream_t *)&the_server.listener, 4, on_connection) == 0);
    struct sockaddr_storage bound;
    int len = sizeof bound;
    uv_tcp_getsockname(&the_server.listener, (struct sockaddr *)&bound, &len);

    session s;
    memset(&s, 0, sizeof s);
    uv_tcp_init(&tl.loop, &s.client);
    vow_promise *steps[8];
    steps[0] = tcp_connect(&s.client, (const struct sockaddr *)&bound);
    steps[1] = vow_then(steps[0], after_connect, NULL, &s, NULL);
    steps[2] = vow_then(steps[1], after_first_write, NULL, &s, NULL);
    steps[3] = vow_then(steps[2], after_first_echo, NULL, &s, NULL);
    steps[4] = vow_then(steps[3], after_second_write, NULL, &s, NULL);
    steps[5] = vow_then(steps[4], after_second_echo, NULL, &s, NULL);
    steps[6] = vow_then(steps[5], after_close, NULL, &s, NULL);
    steps[7] = vow_catch(steps[6], report, NULL, NULL);

    CHECK(run_bounded(&tl)); /* ends when the server's peer saw EOF and closed */
    CHECK_EQ_INT(s.steps, 6);
    CHECK_EQ_INT(s.mismatches, 0);
    CHECK_EQ_INT(off_loop, 0);
    CHECK_EQ_INT(the_server.accepted, 1);
    CHECK_EQ_INT(the_server.echoed, strlen(first_line) + strlen(second_line));
    CHECK_EQ_INT(s.received, the_server.echoed);
    CHECK_EQ_INT(vow_promise_state(steps[6]), VOW_FULFILLED);
    for (int i = 0; i < 8; i++) vow_promise_release(steps[i]);

    vow_set_default_dispatcher(NULL);
    CHECK_EQ_INT(vow_uv_dispatcher_close(d), VOW_OK);
    vow_dispatcher_release(d);
    close_loop(&tl);
}

/* A refused connection rejects the connect promise with libuv's error, on the loop. */
static void
record_uv_error(void *ctx, const vow_error *error, vow_result *out)
{
    track *t = ctx;
    (void)out;
    track_hit(t);
    if (strcmp(vow_error_domain(error), "uv") == 0) t->data = (void *)(intptr_t)vow_error_code(error);
}

static void
test_refused_connection_rejects(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    /* A port that nothing listens on: bind one, read its number, close it. */
    uv_tcp_t probe;
    struct sockaddr_in addr;
    uv_ip4_addr("127.0.0.1", 0, &addr);
    uv_tcp_init(&tl.loop, &probe);
    uv_tcp_bind(&probe, (const struct sockaddr *)&addr, 0);
    struct sockaddr_storage bound;
    int len = sizeof bound;
    uv_tcp_getsockname(&probe, (struct sockaddr *)&bound, &len);
    uv_close((uv_handle_t *)&probe, NULL);

    uv_tcp_t client;
    uv_tcp_init(&tl.loop, &client);
    vow_promise *c = tcp_connect(&client, (const struct sockaddr *)&bound);
    track *t = track_new();
    vow_promise *handled = vow_then_on(d, c, NULL, record_uv_error, t, track_destroy);
    CHECK(run_bounded(&tl));
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK(ran_on(t, pthread_self()));
    CHECK_EQ_INT((intptr_t)t->data, UV_ECONNREFUSED);
    vow_promise_release(c);
    vow_promise_release(handled);
    uv_close((uv_handle_t *)&client, NULL);
    vow_uv_dispatcher_close(d);
    vow_dispatcher_release(d);
    close_loop(&tl);
}

TEST_MAIN_BEGIN("test_uv_tcp")
    RUN_TEST(test_tcp_echo_as_promises);
    RUN_TEST(test_refused_connection_rejects);
TEST_MAIN_END
