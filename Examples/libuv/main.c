/*
 * main.c: a libuv program whose I/O is chained with Vow, with one step in Swift.
 *
 * The program runs a tiny TCP server and a client on one libuv loop (127.0.0.1, a port the
 * system picks). The client's steps are promises, settled from libuv's callbacks and chained
 * with vow_then; the libuv dispatcher (vow_uv.h) is the default dispatcher, so every vow_then
 * callback runs on the loop's thread, inside uv_run, and needs no lock:
 *
 *   connect --> write "GET poem" --> read to the end --> text_stats (Swift) --> print
 *                                                                          `-> finally: close
 *
 * text_stats (textstats.swift) counts lines and words on Vow's background pool, off the loop;
 * its result comes back to the loop through the dispatcher's uv_async_t. Meanwhile nothing of
 * libuv's is active (the socket is idle once read), and a Vow dispatcher keeps a loop alive
 * only while jobs are queued, as libuv expects of a well-behaved handle: so the program holds
 * a handle of its own (`busy`) until its chain has ended, as it would for any work done on
 * another thread.
 *
 * Exits 0 when the counts arrived, every callback ran on the loop thread and the loop closed
 * cleanly.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vow_uv.h>
#include "textstats.h"

static const char poem[] =
    "I wandered lonely as a cloud\n"
    "That floats on high o'er vales and hills,\n"
    "When all at once I saw a crowd,\n"
    "A host, of golden daffodils;\n";

static pthread_t loop_thread;
static int on_loop, off_loop; /* vow_then callbacks, by thread */

static void note_thread(void) {
    if (pthread_equal(pthread_self(), loop_thread)) on_loop++; else off_loop++;
}

/* ---- libuv operations as promises ---------------------------------------------------------- */

static void settle(vow_resolver *r, int status, vow_value *value) {  /* takes value's reference */
    if (status < 0) {
        vow_error *e = vow_error_new("uv", status, uv_strerror(status));
        vow_resolver_reject(r, e);
        vow_error_release(e);
    } else {
        vow_resolver_fulfill(r, value);
    }
    vow_value_release(value);
    vow_resolver_release(r);
}

static void connected(uv_connect_t *req, int status) {
    settle(req->data, status, vow_value_null());
    free(req);
}

/* A promise of NULL, fulfilled when the connection is made. */
static vow_promise *tcp_connect(uv_tcp_t *socket, const struct sockaddr *address) {
    vow_resolver *r;
    vow_promise *p = vow_promise_pending(&r);
    uv_connect_t *req = malloc(sizeof *req);
    req->data = r;
    int rc = uv_tcp_connect(req, socket, address, connected);
    if (rc < 0) { settle(r, rc, NULL); free(req); }
    return p;
}

static void written(uv_write_t *req, int status) {
    settle(req->data, status, vow_value_null());
    free(req);
}

/* A promise of NULL, fulfilled when libuv has written text (which must outlive the write). */
static vow_promise *stream_write(uv_stream_t *stream, const char *text) {
    vow_resolver *r;
    vow_promise *p = vow_promise_pending(&r);
    uv_write_t *req = malloc(sizeof *req);
    req->data = r;
    uv_buf_t buf = uv_buf_init((char *)text, (unsigned)strlen(text));
    int rc = uv_write(req, stream, &buf, 1, written);
    if (rc < 0) { settle(r, rc, NULL); free(req); }
    return p;
}

typedef struct reading {
    vow_resolver *r;
    char *data;
    size_t size;
} reading;

static void grow(uv_handle_t *handle, size_t suggested, uv_buf_t *buf) {
    (void)handle;
    buf->base = malloc(suggested);
    buf->len = suggested;
}

static void got_some(uv_stream_t *stream, ssize_t n, const uv_buf_t *buf) {
    reading *rd = stream->data;
    if (n > 0) {
        rd->data = realloc(rd->data, rd->size + (size_t)n);
        memcpy(rd->data + rd->size, buf->base, (size_t)n);
        rd->size += (size_t)n;
    }
    free(buf->base);
    if (n >= 0) return;
    uv_read_stop(stream);                                  /* UV_EOF, or an error */
    settle(rd->r, n == UV_EOF ? 0 : (int)n, vow_value_bytes(rd->data, rd->size));
    free(rd->data);
    free(rd);
}

/* A promise of BYTES: everything the peer sends until it closes its side. */
static vow_promise *read_to_end(uv_stream_t *stream) {
    reading *rd = calloc(1, sizeof *rd);
    vow_promise *p = vow_promise_pending(&rd->r);
    stream->data = rd;
    uv_read_start(stream, grow, got_some);
    return p;
}

/* ---- the server: reads one request line, answers with the poem, closes ------------------ */

static uv_tcp_t listener, peer;

static void peer_closed(uv_handle_t *handle) { (void)handle; }

static void shutdown_done(uv_shutdown_t *req, int status) {
    (void)status;
    free(req->data);
    free(req);
    uv_close((uv_handle_t *)&peer, peer_closed);
}

static void peer_request(uv_stream_t *stream, ssize_t n, const uv_buf_t *buf) {
    free(buf->base);
    if (n <= 0) return;                                    /* "GET poem\n" arrives in one read here */
    uv_read_stop(stream);
    uv_write_t *req = malloc(sizeof *req);
    uv_buf_t answer = uv_buf_init((char *)poem, (unsigned)strlen(poem));
    uv_write(req, stream, &answer, 1, NULL);
    uv_shutdown_t *bye = malloc(sizeof *bye);              /* EOF for the client, after the write */
    bye->data = req;
    uv_shutdown(bye, stream, shutdown_done);
}

static void on_connection(uv_stream_t *server, int status) {
    if (status < 0) return;
    uv_tcp_init(server->loop, &peer);
    uv_accept(server, (uv_stream_t *)&peer);
    uv_read_start((uv_stream_t *)&peer, grow, peer_request);
    uv_close((uv_handle_t *)server, NULL);                 /* one client is all this demo serves */
}

/* ---- the client's chain ------------------------------------------------------------------- */

static uv_tcp_t client;
static uv_async_t busy;                                    /* keeps the loop alive until the chain ends */
static int64_t lines, words;
static char longest[64];

static void send_request(void *ctx, const vow_value *value, vow_result *out) {
    note_thread();
    printf("connected to 127.0.0.1:%d\n", *(int *)ctx);
    vow_promise *sent = stream_write((uv_stream_t *)&client, "GET poem\n");
    vow_value *next = vow_value_promise(sent);             /* the chain waits for the write */
    vow_result_return(out, next);
    vow_value_release(next);
    vow_promise_release(sent);
    (void)value;
}

static void read_answer(void *ctx, const vow_value *value, vow_result *out) {
    note_thread();
    printf("sent: GET poem\n");
    vow_promise *answer = read_to_end((uv_stream_t *)&client);
    vow_value *next = vow_value_promise(answer);
    vow_result_return(out, next);
    vow_value_release(next);
    vow_promise_release(answer);
    (void)ctx;
    (void)value;
}

static void print_stats(void *ctx, const vow_value *value, vow_result *out) {
    note_thread();                                         /* back on the loop after Swift */
    vow_value_get_int(vow_value_at(value, 0), &lines);
    vow_value_get_int(vow_value_at(value, 1), &words);
    snprintf(longest, sizeof longest, "%s", vow_value_get_string(vow_value_at(value, 2)));
    printf("Swift counted %lld lines and %lld words; the longest word is \"%s\"\n",
           (long long)lines, (long long)words, longest);
    (void)ctx;
    (void)out;
}

static void report(void *ctx, const vow_error *error, vow_result *out) {
    note_thread();
    printf("failed: %s %lld: %s\n", vow_error_domain(error), (long long)vow_error_code(error),
           vow_error_message(error));
    (void)ctx;
    (void)out;
}

static void close_client(void *ctx) {
    note_thread();
    uv_close((uv_handle_t *)&client, NULL);
    uv_close((uv_handle_t *)&busy, NULL);                  /* the loop's last handles */
    (void)ctx;
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    uv_loop_t *loop = uv_default_loop();
    loop_thread = pthread_self();
    vow_dispatcher *d = vow_uv_dispatcher_new(loop);       /* on the loop's thread */
    vow_set_default_dispatcher(d);                         /* vow_then callbacks run on the loop */

    struct sockaddr_in any;
    uv_ip4_addr("127.0.0.1", 0, &any);
    uv_tcp_init(loop, &listener);
    uv_tcp_bind(&listener, (const struct sockaddr *)&any, 0);
    if (uv_listen((uv_stream_t *)&listener, 1, on_connection) < 0) return 1;
    struct sockaddr_in bound;
    int length = sizeof bound;
    uv_tcp_getsockname(&listener, (struct sockaddr *)&bound, &length);
    int port = ntohs(bound.sin_port);

    uv_async_init(loop, &busy, NULL);
    uv_tcp_init(loop, &client);
    vow_promise *connection = tcp_connect(&client, (const struct sockaddr *)&bound);
    vow_promise *sent = vow_then(connection, send_request, NULL, &port, NULL);
    vow_promise *text = vow_then(sent, read_answer, NULL, NULL, NULL);
    vow_promise *stats = text_stats(text);                 /* the Swift step */
    vow_promise *shown = vow_then(stats, print_stats, report, NULL, NULL);
    vow_promise *done = vow_finally(shown, close_client, NULL, NULL);

    uv_run(loop, UV_RUN_DEFAULT);                          /* returns when every handle closed */

    printf("%d callbacks ran on the loop thread, %d elsewhere\n", on_loop, off_loop);
    vow_set_default_dispatcher(NULL);
    vow_uv_dispatcher_close(d);
    vow_dispatcher_release(d);
    uv_run(loop, UV_RUN_DEFAULT);                          /* the dispatcher's close callback */
    int closed = uv_loop_close(loop) == 0;
    printf("uv_loop_close: %s\n", closed ? "nothing left open" : "handles left open");

    int ok = vow_promise_state(done) == VOW_FULFILLED && lines == 4 && words == 27 &&
             strcmp(longest, "daffodils") == 0 && on_loop == 4 && off_loop == 0 && closed;
    vow_promise *mine[] = {connection, sent, text, stats, shown, done};
    for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++) vow_promise_release(mine[i]);
    printf(ok ? "libuv example: ok\n" : "libuv example: FAILED\n");
    return ok ? 0 : 1;
}
