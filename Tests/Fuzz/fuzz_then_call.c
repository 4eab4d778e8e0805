/*
 * fuzz_then_call.c: libFuzzer harness for the C face of the libffi layer (libvow.so).
 *
 *   clang -fsanitize=fuzzer,address -fuse-ld=lld -I include Tests/Fuzz/fuzz_then_call.c \
 *         -L BIN -lvow -Wl,-rpath,BIN -o fuzz_then_call
 *
 * Calling a C function through a signature that does not match it is undefined
 * behaviour, so the fuzzer never chooses the pair: the first byte picks a mode.
 *
 *   0  parser path: the rest of the input is a signature (cut at the first NUL) given to
 *      vow_then_call_on on an already REJECTED promise with a function that aborts if
 *      called. A malformed signature must return NULL; a valid one must give a promise
 *      rejected with the very same error (the rejection passes through, the function
 *      never runs). destroy must have run exactly once either way.
 *   1  conversion path: the second byte picks one of a fixed set of real C functions
 *      whose signatures are known; the rest builds a random LIST of values (every kind,
 *      nested lists included). vow_then_call_on runs the function on the inline
 *      dispatcher. An independent oracle written here from c-api.md's table and the
 *      header's manifold rule (a missing s, p or V argument is NULL; extra values are
 *      ignored beside pointer parameters only) decides
 *      whether the values fit the signature: if they do, the promise must fulfil with
 *      what the function computes from those values (so each argument must arrive
 *      intact); if not, it must reject with VOW_ERROR_TYPE and the function must not
 *      run.
 *   2  trampolines: the rest is a signature for vow_trampoline_new; NULL result and NULL
 *      *promise_out go together, and releasing an unused trampoline rejects its promise
 *      with VOW_ERROR_BROKEN.
 *   3  trampoline calls: the second byte picks one of a fixed set of parameter lists the
 *      harness can call with real C types; arguments come from the input, the trampoline
 *      is called (once or twice), and its promise must hold a LIST of exactly those
 *      arguments (strings copied: the caller's buffer is scribbled over after the call).
 *
 * Every POINTER value made here carries a destroy that counts: after each input, every
 * one must have run (no value leaked by the library). A failed check aborts, which
 * libFuzzer reports as a crash with the input saved.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <unistd.h>

#include "vow.h"

/* stderr is pointed at /dev/null while the library is called with malformed
 * signatures (it writes one line per refusal, as documented); FUZZ_VERBOSE=1 keeps it. */
static int saved_stderr = -1;
static int dev_null = -1;

static void
quiet_begin(void)
{
    if (dev_null >= 0 && saved_stderr < 0) {
        saved_stderr = dup(2);
        dup2(dev_null, 2);
    }
}

static void
quiet_end(void)
{
    if (saved_stderr >= 0) {
        dup2(saved_stderr, 2);
        close(saved_stderr);
        saved_stderr = -1;
    }
}

#define CHECK(cond)                                                                            \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            quiet_end();                                                                       \
            fprintf(stderr, "fuzz_then_call: check failed at line %d: %s\n", __LINE__, #cond); \
            abort();                                                                           \
        }                                                                                      \
    } while (0)

/* ---------------------------------------------------------------------- input reader */

typedef struct reader {
    const uint8_t *data;
    size_t size;
    size_t at;
} reader;

static uint8_t
next_byte(reader *r)
{
    return r->at < r->size ? r->data[r->at++] : 0;
}

static uint64_t
next_u64(reader *r)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | next_byte(r);
    return v;
}

/* ---------------------------------------------------------------------- counters */

static long calls;         /* fuzzed functions that ran */
static long ctx_destroys;  /* destroy(ctx) runs */
static long ptr_made;      /* POINTER values made with a counting destroy */
static long ptr_destroyed; /* their destroys */

static void count_ctx_destroy(void *ctx) { (void)ctx; ctx_destroys++; }
static void count_ptr_destroy(void *p) { (void)p; ptr_destroyed++; }

/* ---------------------------------------------------------------------- functions */

/* What the functions return is computed from their arguments, so the oracle can predict
 * it and a corrupted argument shows. Unsigned arithmetic: no overflow UB. */
static int64_t
f_q_qq(int64_t a, int64_t b, void *ctx)
{
    (void)ctx;
    calls++;
    return (int64_t)((uint64_t)a * 3u + (uint64_t)b);
}

static double
f_d_dfi(double d, float f, int32_t i, void *ctx)
{
    (void)ctx;
    calls++;
    return d + (double)f * 2.0 + (double)i * 4.0;
}

static bool
f_b_bs(bool b, const char *s, void *ctx)
{
    (void)ctx;
    calls++;
    return b != (s != NULL && strlen(s) % 2 == 1);
}

static int32_t
f_i_sp(const char *s, void *p, void *ctx)
{
    (void)ctx;
    calls++;
    return (int32_t)((s ? strlen(s) : 1000u) + (p ? 1u : 0u));
}

static const vow_value *
f_V_V(const vow_value *v, void *ctx)
{
    (void)ctx;
    calls++;
    return vow_value_retain(v);
}

static float
f_f_fq(float f, int64_t q, void *ctx)
{
    (void)ctx;
    calls++;
    return f + (float)(q & 0xff);
}

static void
f_v(void *ctx)
{
    (void)ctx;
    calls++;
}

static void *
f_p_pVb(void *p, const vow_value *v, bool b, void *ctx)
{
    (void)v;
    (void)ctx;
    calls++;
    return b ? p : NULL;
}

static void
f_abort(void *ctx)
{
    (void)ctx;
    abort();
}

typedef struct known {
    const char *signature;
    vow_fnptr fn;
} known;

static const known functions[] = {
    {"q(qq)", (vow_fnptr)f_q_qq}, {"d(dfi)", (vow_fnptr)f_d_dfi}, {"b(bs)", (vow_fnptr)f_b_bs},
    {"i(sp)", (vow_fnptr)f_i_sp}, {"V(V)", (vow_fnptr)f_V_V},     {"f(fq)", (vow_fnptr)f_f_fq},
    {"v()", (vow_fnptr)f_v},      {"p(pVb)", (vow_fnptr)f_p_pVb},
};
#define FUNCTION_COUNT (sizeof functions / sizeof *functions)

/* ---------------------------------------------------------------------- random values */

static vow_value *make_value(reader *r, int depth);

static vow_value *
make_list(reader *r, int depth)
{
    size_t n = next_byte(r) % 5;
    vow_value *items[4];
    for (size_t i = 0; i < n; i++) items[i] = make_value(r, depth + 1);
    vow_value *list = vow_value_list((const vow_value *const *)items, n);
    for (size_t i = 0; i < n; i++) vow_value_release(items[i]);
    return list;
}

static vow_value *
make_value(reader *r, int depth)
{
    switch (next_byte(r) % 10) {
    case 0: return vow_value_null();
    case 1: return vow_value_bool(next_byte(r) & 1);
    case 2: {
        /* Small ints often, so int32 ranges are hit on both sides. */
        uint8_t shape = next_byte(r);
        uint64_t raw = next_u64(r);
        if (shape & 1) raw = (uint64_t)(int64_t)(int32_t)raw;
        return vow_value_int((int64_t)raw);
    }
    case 3: {
        uint64_t raw = next_u64(r);
        double d;
        memcpy(&d, &raw, sizeof d);
        return vow_value_double(d);
    }
    case 4: {
        char text[64];
        size_t n = next_byte(r) % sizeof text;
        for (size_t i = 0; i < n; i++) text[i] = (char)(next_byte(r) | 1); /* no NUL inside */
        text[n] = '\0';
        return vow_value_string(text);
    }
    case 5: {
        uint8_t bytes[8];
        size_t n = next_byte(r) % sizeof bytes;
        for (size_t i = 0; i < n; i++) bytes[i] = next_byte(r);
        return vow_value_bytes(bytes, n);
    }
    case 6:
        ptr_made++;
        return vow_value_pointer((void *)(uintptr_t)(next_u64(r) | 1), count_ptr_destroy);
    case 7:
        if (depth < 3) return make_list(r, depth);
        return vow_value_null();
    case 8: {
        vow_error *e = vow_error_new("fuzz", (int64_t)next_byte(r), "carried");
        vow_value *v = vow_value_error(e);
        vow_error_release(e);
        return v;
    }
    default: return vow_value_int(next_byte(r));
    }
}

/* ---------------------------------------------------------------------- the oracle */

/* Does value v fit parameter code c (c-api.md's table)? */
static bool
fits(char c, const vow_value *v)
{
    vow_kind k = vow_value_kind(v);
    int64_t n = 0;
    switch (c) {
    case 'b': return k == VOW_KIND_BOOL;
    case 'i':
        if (k != VOW_KIND_INT) return false;
        vow_value_get_int(v, &n);
        return n >= INT32_MIN && n <= INT32_MAX;
    case 'q': return k == VOW_KIND_INT;
    case 'd':
    case 'f': return k == VOW_KIND_INT || k == VOW_KIND_DOUBLE;
    case 's': return k == VOW_KIND_STRING || k == VOW_KIND_NULL;
    case 'p': return k == VOW_KIND_POINTER || k == VOW_KIND_NULL;
    case 'V': return true;
    default: return false;
    }
}

/* The arguments a value spreads into (items of a LIST, the NULL value for a
 * parameterless signature is none, anything else is one). */
/* s, p and V: the codes whose missing argument is passed as NULL. */
static bool
is_pointer_code(char c)
{
    return c == 's' || c == 'p' || c == 'V';
}

static size_t
spread(const vow_value *v, size_t params, const vow_value **out, size_t capacity)
{
    if (vow_value_kind(v) == VOW_KIND_LIST) {
        size_t n = vow_value_count(v);
        for (size_t i = 0; i < n && i < capacity; i++) out[i] = vow_value_at(v, i);
        return n;
    }
    if (params == 0 && vow_value_kind(v) == VOW_KIND_NULL) return 0;
    out[0] = v;
    return 1;
}

static double
as_double(const vow_value *v)
{
    double d = 0;
    vow_value_get_double(v, &d); /* INT widens */
    return d;
}

static int64_t
as_int(const vow_value *v)
{
    int64_t n = 0;
    vow_value_get_int(v, &n);
    return n;
}

/* A value passed for 'f', as C converts it: an INT goes to float directly (one rounding). */
static float
as_float(const vow_value *v)
{
    if (vow_value_kind(v) == VOW_KIND_INT) return (float)as_int(v);
    return (float)as_double(v);
}

/* Checks that result is what the function computes from args. */
static void
check_result(size_t which, const vow_value **args, const vow_value *result)
{
    bool b = false;
    double d = 0;
    switch (which) {
    case 0: /* q(qq) */
        CHECK(vow_value_kind(result) == VOW_KIND_INT);
        CHECK(as_int(result) == (int64_t)((uint64_t)as_int(args[0]) * 3u + (uint64_t)as_int(args[1])));
        break;
    case 1: { /* d(dfi) */
        CHECK(vow_value_kind(result) == VOW_KIND_DOUBLE);
        double expected = as_double(args[0]) + (double)as_float(args[1]) * 2.0 + (double)as_int(args[2]) * 4.0;
        vow_value_get_double(result, &d);
        CHECK(d == expected || (d != d && expected != expected));
        break;
    }
    case 2: { /* b(bs) */
        const char *s = vow_value_get_string(args[1]);
        bool flag = false;
        vow_value_get_bool(args[0], &flag);
        CHECK(vow_value_get_bool(result, &b) == VOW_OK);
        CHECK(b == (flag != (s != NULL && strlen(s) % 2 == 1)));
        break;
    }
    case 3: { /* i(sp) */
        const char *s = vow_value_get_string(args[0]);
        void *p = vow_value_get_pointer(args[1]);
        CHECK(as_int(result) == (int64_t)(int32_t)((s ? strlen(s) : 1000u) + (p ? 1u : 0u)));
        break;
    }
    case 4: /* V(V): the same handle comes back (a missing one: NULL, which gives the NULL value) */
        if (args[0] == NULL) {
            CHECK(vow_value_kind(result) == VOW_KIND_NULL);
        } else {
            CHECK(result == args[0]);
        }
        break;
    case 5: { /* f(fq) */
        float expected = as_float(args[0]) + (float)(as_int(args[1]) & 0xff);
        vow_value_get_double(result, &d);
        CHECK((float)d == expected || (d != d && expected != expected));
        break;
    }
    case 6: /* v() */
        CHECK(vow_value_kind(result) == VOW_KIND_NULL);
        break;
    case 7: { /* p(pVb) */
        bool flag = false;
        vow_value_get_bool(args[2], &flag);
        CHECK(vow_value_kind(result) == VOW_KIND_POINTER);
        CHECK(vow_value_get_pointer(result) == (flag ? vow_value_get_pointer(args[0]) : NULL));
        break;
    }
    default: abort();
    }
}

/* ---------------------------------------------------------------------- modes */

static vow_promise *rejected_source;
static vow_error *rejected_error;

static void
fuzz_parser(reader *r)
{
    size_t n = r->size - r->at;
    char *signature = malloc(n + 1);
    CHECK(signature != NULL);
    memcpy(signature, r->data + r->at, n);
    signature[n] = '\0';
    long destroys = ctx_destroys;
    quiet_begin();
    vow_promise *q = vow_then_call_on(vow_dispatcher_inline(), rejected_source, signature, (vow_fnptr)f_abort, NULL,
                                      count_ctx_destroy);
    quiet_end();
    if (q != NULL) {
        vow_error *e = NULL;
        CHECK(vow_wait(q, 0, NULL, &e) == VOW_REJECTED);
        CHECK(e == rejected_error);
        vow_error_release(e);
        vow_promise_release(q);
    }
    CHECK(ctx_destroys == destroys + 1);
    free(signature);
}

static void
fuzz_conversion(reader *r)
{
    size_t which = next_byte(r) % FUNCTION_COUNT;
    const char *signature = functions[which].signature;
    const char *codes = strchr(signature, '(') + 1;
    size_t params = strlen(codes) - 1;

    vow_value *value = (next_byte(r) & 1) ? make_list(r, 0) : make_value(r, 0);
    const vow_value *args[8];
    size_t count = spread(value, params, args, 8);
    /* The manifold rule: a missing pointer argument (s, p, V) is NULL, extra values are
     * ignored when every parameter is a pointer; scalars need a value each, and no extra. */
    bool ok = true;
    for (size_t i = count; i < params; i++) {
        if (!is_pointer_code(codes[i])) ok = false;
        args[i] = NULL;
    }
    for (size_t i = 0; count > params && i < params; i++) {
        if (!is_pointer_code(codes[i])) ok = false;
    }
    for (size_t i = 0; ok && i < params && i < count; i++) ok = fits(codes[i], args[i]);

    vow_promise *p = vow_promise_fulfilled(value);
    long before = calls, destroys = ctx_destroys;
    vow_promise *q = vow_then_call_on(vow_dispatcher_inline(), p, signature, functions[which].fn, NULL,
                                      count_ctx_destroy);
    CHECK(q != NULL);
    vow_value *result = NULL;
    vow_error *e = NULL;
    vow_state s = vow_wait(q, 0, &result, &e);
    if (ok) {
        CHECK(s == VOW_FULFILLED);
        CHECK(calls == before + 1);
        check_result(which, args, result);
    } else {
        CHECK(s == VOW_REJECTED);
        CHECK(calls == before);
        CHECK(strcmp(vow_error_domain(e), "vow") == 0);
        CHECK(vow_error_code(e) == VOW_ERROR_TYPE);
        CHECK(strncmp(vow_error_message(e), "argument ", 9) == 0);
    }
    CHECK(ctx_destroys == destroys + 1);
    vow_value_release(result);
    vow_error_release(e);
    vow_promise_release(q);
    vow_promise_release(p);
    vow_value_release(value);
}

/* Parameter lists the harness can call with real C types. */
typedef void (*fn_q_d)(int64_t, double);
typedef void (*fn_s_i_b)(const char *, int32_t, bool);
typedef void (*fn_f_p_V)(float, void *, const vow_value *);
static const char *const callable[] = {"v(qd)", "v(sib)", "v(fpV)"};

static void
fuzz_trampoline_call(reader *r)
{
    size_t which = next_byte(r) % 3;
    int twice = next_byte(r) & 1;
    vow_promise *p = NULL;
    vow_trampoline *t = vow_trampoline_new(callable[which], &p);
    CHECK(t != NULL && p != NULL);
    vow_fnptr fn = vow_trampoline_function(t);
    int64_t q = (int64_t)next_u64(r);
    uint64_t raw = next_u64(r);
    double d;
    memcpy(&d, &raw, sizeof d);
    char text[32];
    size_t n = next_byte(r) % sizeof text;
    for (size_t i = 0; i < n; i++) text[i] = (char)((next_byte(r) % 95) + 32); /* printable ASCII */
    text[n] = '\0';
    char original[32];
    memcpy(original, text, n + 1);
    bool null_text = (next_byte(r) % 4) == 0;
    int32_t i32 = (int32_t)next_u64(r);
    bool flag = next_byte(r) & 1;
    float f = (float)(int16_t)next_u64(r) / 8.0f;
    void *pointer = (void *)(uintptr_t)next_u64(r);
    vow_value *carried = (next_byte(r) & 1) ? vow_value_int(q) : NULL;
    for (int call = 0; call < 1 + twice; call++) {
        switch (which) {
        case 0: ((fn_q_d)fn)(q + call, d); break;
        case 1: ((fn_s_i_b)fn)(null_text ? NULL : text, i32 + call, flag); break;
        default: ((fn_f_p_V)fn)(f + (float)call, pointer, carried); break;
        }
        memset(text, 'x', n); /* the copy must not see this */
    }
    vow_trampoline_release(t);
    vow_value *list = NULL;
    CHECK(vow_wait(p, 0, &list, NULL) == VOW_FULFILLED);
    CHECK(vow_value_kind(list) == VOW_KIND_LIST);
    bool b = false;
    double got = 0;
    switch (which) {
    case 0:
        CHECK(vow_value_count(list) == 2);
        CHECK(as_int(vow_value_at(list, 0)) == q);
        vow_value_get_double(vow_value_at(list, 1), &got);
        CHECK(got == d || (got != got && d != d));
        break;
    case 1:
        CHECK(vow_value_count(list) == 3);
        if (null_text) {
            CHECK(vow_value_kind(vow_value_at(list, 0)) == VOW_KIND_NULL);
        } else {
            /* The first call's text, copied: not the buffer scribbled over afterwards. */
            const char *copied = vow_value_get_string(vow_value_at(list, 0));
            CHECK(copied != NULL && strcmp(copied, original) == 0);
        }
        CHECK(as_int(vow_value_at(list, 1)) == i32);
        CHECK(vow_value_get_bool(vow_value_at(list, 2), &b) == VOW_OK && b == flag);
        break;
    default:
        CHECK(vow_value_count(list) == 3);
        vow_value_get_double(vow_value_at(list, 0), &got);
        CHECK(got == (double)f);
        CHECK(vow_value_get_pointer(vow_value_at(list, 1)) == pointer);
        if (carried != NULL) {
            CHECK(vow_value_at(list, 2) == carried);
        } else {
            CHECK(vow_value_kind(vow_value_at(list, 2)) == VOW_KIND_NULL);
        }
        break;
    }
    vow_value_release(list);
    vow_value_release(carried);
    vow_promise_release(p);
}

static void
fuzz_trampoline(reader *r)
{
    size_t n = r->size - r->at;
    char *signature = malloc(n + 1);
    CHECK(signature != NULL);
    memcpy(signature, r->data + r->at, n);
    signature[n] = '\0';
    vow_promise *p = (vow_promise *)&p;
    quiet_begin();
    vow_trampoline *t = vow_trampoline_new(signature, &p);
    quiet_end();
    CHECK((t == NULL) == (p == NULL));
    if (t != NULL) {
        CHECK(signature[0] == 'v');
        CHECK(vow_trampoline_function(t) != NULL);
        vow_trampoline_release(t);
        vow_error *e = NULL;
        CHECK(vow_wait(p, 0, NULL, &e) == VOW_REJECTED);
        CHECK(vow_error_code(e) == VOW_ERROR_BROKEN);
        vow_error_release(e);
        vow_promise_release(p);
    }
    free(signature);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    rejected_error = vow_error_new("fuzz", 1, "the source rejected");
    rejected_source = vow_promise_rejected(rejected_error);
    const char *verbose = getenv("FUZZ_VERBOSE");
    if (verbose == NULL || strcmp(verbose, "1") != 0) dev_null = open("/dev/null", O_WRONLY);
    return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size, 0};
    long made = ptr_made;
    switch (next_byte(&r) % 4) {
    case 0: fuzz_parser(&r); break;
    case 1: fuzz_conversion(&r); break;
    case 2: fuzz_trampoline(&r); break;
    default: fuzz_trampoline_call(&r); break;
    }
    /* Every POINTER value made for this input has been freed: nothing leaked. */
    CHECK(ptr_destroyed == ptr_made);
    (void)made;
    return 0;
}
