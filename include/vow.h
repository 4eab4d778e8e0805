/*
 * vow.h: the C interface of Vow, a promise library (Swift engine, C face).
 *
 * This header is the reference for the C API. A vow_promise is the same
 * object as a Swift AnyPromise: a chain may start in C, pass through Swift
 * and end in C. Conventions that hold for every declaration below:
 *
 * Ownership  A returned handle is +1: the caller releases it with the
 *            matching *_release, unless its block says "borrowed".
 *            Everything passed in is borrowed: the library retains what it
 *            keeps. Arguments handed to a callback are borrowed for the
 *            duration of that call; retain them to keep them.
 *            *_release(NULL) does nothing; every *_retain returns its
 *            argument.
 * Context    Every callback comes with a void *ctx, handed back untouched,
 *            and an optional destroy(ctx) that runs exactly once: after the
 *            callback has run, or as soon as it is certain it never will,
 *            including when the registering call fails.
 * Status     Functions that can fail return int: VOW_OK (0) or a negative
 *            VOW_E* code (see vow_status_string). Functions that return a
 *            handle return NULL on failure.
 * NULL in    A NULL handle never crashes. The call returns NULL (handles,
 *            strings), VOW_EINVAL (status), the *_INVALID member (enums),
 *            false (bool) or 0 (integers), and still runs the destroy it was
 *            given. An out-pointer may be NULL only where its block says so.
 *            Parameters marked VOW_NONNULL are ones where NULL is always a
 *            mistake: clang warns about a literal NULL there (gcc does
 *            not, on purpose: see VOW_NONNULL below). The annotation never
 *            changes what the compiled program does.
 * Misuse     A handle of the wrong kind (or one already released, while
 *            that can still be seen: see Released), a count too large for
 *            the machine, an unknown enum value or a malformed signature
 *            gets the same answer as NULL, plus one line on standard error
 *            saying what was wrong ("Misuse lines" below lists them;
 *            vow_set_misuse_handler routes or silences them). NULL itself
 *            is answered silently.
 * Released   Using a handle after its last reference was released (a
 *            second release, any call after the release that freed it) is
 *            undefined behaviour, as using memory after free() is: a handle
 *            is the address of its object, whose memory goes back to the
 *            allocator at the last release and may hold another object
 *            (of any kind) by the time the handle comes back, so no check
 *            can tell without reading memory that is gone. The library
 *            reads the handle's tag where it stands and refuses the call
 *            ("got a released handle", a misuse line) while the memory
 *            still says so; that read is the program's use after free, and
 *            valgrind and AddressSanitizer report it as such. Never rely on
 *            it. This holds for every handle of every Vow header: promises,
 *            values, errors, resolvers, dispatchers (host dispatchers too),
 *            trampolines, jobs, test loops. Two cases are well defined: a
 *            built-in dispatcher ignores release and stays valid; and the
 *            resolver of vow_promise_pending lives inside its promise, so
 *            while the program holds the promise, a released resolver is
 *            always refused (a misuse line) and no memory that is gone is
 *            read.
 * Memory     The library is written in Swift, whose runtime ends the process
 *            when an allocation fails: no function answers "out of memory"
 *            (VOW_ENOMEM is never returned), and a function documented to
 *            return a handle for valid input always does.
 * Threads    Every function may be called from any thread. Callbacks run on
 *            a dispatcher, never while the library holds a lock, and never
 *            inline in the call that registered them or the call that
 *            settled the promise, unless the inline dispatcher was chosen.
 *            The default dispatcher is a serial queue owned by the library;
 *            it needs nothing from the host and is never the main dispatch
 *            queue (which a C program does not drain).
 * Const      Values and errors are immutable and always taken as const
 *            pointers; vow_value_retain / vow_error_retain turn a borrowed
 *            const pointer into an owned one.
 * NULL-ness  Pointers are marked VOW_NULLABLE (clang's _Nullable, empty for
 *            other compilers) because every pointer may be NULL in the
 *            sense above, except those marked VOW_NONNULL (see below), for
 *            which NULL is still answered at run time but is always a
 *            mistake. The header is C99 and C++; it needs no extension.
 * Swift      Loading libvow loads the Swift runtime, which installs crash
 *            handlers (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP) in
 *            the host process. Set SWIFT_BACKTRACE=enable=no in the
 *            environment to turn them off.
 */
#ifndef VOW_H
#define VOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The export macro. May be predefined (e.g. empty for a static build). */
#ifndef VOW_EXTERN
#  if defined(__GNUC__) || defined(__clang__)
#    define VOW_EXTERN extern __attribute__((visibility("default")))
#  else
#    define VOW_EXTERN extern
#  endif
#endif

/*
 * Nullability annotations: clang only, ignored elsewhere. VOW_NONNULL marks
 * a parameter for which NULL is always a mistake (vow_then's promise, a
 * resolver to settle): clang's -Wnonnull then warns at compile time about a
 * NULL passed there. The library still answers NULL at run time as "NULL in"
 * says. Both are neutral (nullable) when Swift reads the header (the
 * library's own implementation accepts NULL) or when VOW_NO_NONNULL is
 * defined (for code that passes NULL on purpose, such as tests of the
 * run-time answer).
 *
 * Clang only, on purpose. clang's _Nonnull is a type qualifier that only
 * feeds warnings: the optimizer ignores it. GCC has no such qualifier; its
 * one tool, the function attribute __attribute__((nonnull(i, ...))), also
 * tells the optimizer that the argument cannot be NULL, so at -O2
 * (-fdelete-null-pointer-checks, on by default) GCC deletes the caller's own
 * later `if (p == NULL)` checks of a pointer it passed, and a program that
 * handled a NULL from its own code takes the wrong branch. That contradicts
 * "NULL in" above, so gcc (and g++) get no annotation: VOW_NONNULL_ARGS(i,
 * ...), which until 0.2 expanded to that attribute for gcc, is empty for
 * every compiler and stays only so that the declarations keep their shape
 * (and code that used the macro still builds). Tests/C/test_nonnull_gcc.c
 * checks that a caller's NULL check survives gcc -O2.
 */
#if defined(__swift__) || defined(VOW_NO_NONNULL)
#  if defined(__clang__)
#    define VOW_NONNULL _Nullable
#  else
#    define VOW_NONNULL
#  endif
#elif defined(__clang__)
#  define VOW_NONNULL _Nonnull
#else
#  define VOW_NONNULL
#endif
#define VOW_NONNULL_ARGS(...)
#if defined(__clang__)
#  define VOW_NULLABLE _Nullable
#else
#  define VOW_NULLABLE
#endif

/*
 * VOW_BEGIN_DECLS ... VOW_END_DECLS: around the declarations of vow.h and of
 * the headers built on it (vow_uv.h, vow_glib.h, vow_testing.h): C linkage
 * for C++, and clang's nullability extension without its warnings (the
 * annotations above are clang's own; completeness is checked by the test
 * command with the VOW_NULLABILITY_QUIET_ line removed).
 */
#if defined(__clang__)
#  define VOW_NULLABILITY_QUIET_ _Pragma("clang diagnostic ignored \"-Wnullability-completeness\"")
#  define VOW_PRAGMAS_BEGIN_                                                                                \
      _Pragma("clang diagnostic push") _Pragma("clang diagnostic ignored \"-Wnullability-extension\"")     \
      VOW_NULLABILITY_QUIET_
#  define VOW_PRAGMAS_END_ _Pragma("clang diagnostic pop")
#else
#  define VOW_PRAGMAS_BEGIN_
#  define VOW_PRAGMAS_END_
#endif
#ifndef VOW_NULLABILITY_QUIET_
#  define VOW_NULLABILITY_QUIET_
#endif
#ifdef __cplusplus
#  define VOW_BEGIN_DECLS VOW_PRAGMAS_BEGIN_ extern "C" {
#  define VOW_END_DECLS } VOW_PRAGMAS_END_
#else
#  define VOW_BEGIN_DECLS VOW_PRAGMAS_BEGIN_
#  define VOW_END_DECLS VOW_PRAGMAS_END_
#endif
/**
 * \def VOW_BEGIN_DECLS
 * Opens the declarations of a header built on vow.h: C linkage under C++,
 * clang's nullability extension without its warnings. Close with
 * VOW_END_DECLS.
 */
/**
 * \def VOW_END_DECLS
 * Closes what VOW_BEGIN_DECLS opened.
 */

VOW_BEGIN_DECLS

/* ======================================================================
 * Versioning
 * ====================================================================== */

/** @{ */
/**
 * The release, and the one place its version is written: vow_version(),
 * vow.pc, the CMake package (VowConfigVersion.cmake) and the Debian packages
 * are made from these three macros (CHANGELOG.md says what each release
 * changed). A program tests for a function by version, e.g.
 * `#if VOW_VERSION_NUMBER >= 300` for vow_when_limited.
 */
#define VOW_VERSION_MAJOR 0
#define VOW_VERSION_MINOR 3
#define VOW_VERSION_PATCH 0
/** @} */
/**
 * The header's version as one integer constant, major*10000 + minor*100 +
 * patch. A plain literal so that Swift imports it too; the `#if` below keeps
 * it equal to its parts.
 */
#define VOW_VERSION_NUMBER 300
#if VOW_VERSION_NUMBER != VOW_VERSION_MAJOR * 10000 + VOW_VERSION_MINOR * 100 + VOW_VERSION_PATCH
#  error "VOW_VERSION_NUMBER does not match VOW_VERSION_MAJOR/_MINOR/_PATCH"
#endif

/**
 * The loaded library's version, computed like VOW_VERSION_NUMBER; compare
 * the two to detect a header / library mismatch. Any thread.
 */
VOW_EXTERN int
vow_version_number(void);

/**
 * The loaded library's version as "major.minor.patch". Returns a static
 * string (borrowed, never freed, never NULL). Any thread.
 */
VOW_EXTERN const char *VOW_NULLABLE
vow_version(void);

/* ======================================================================
 * Status codes
 * ====================================================================== */

/** What functions that can fail return (as int): VOW_OK or a negative code. */
typedef enum vow_status {
    VOW_OK = 0,          /**< success */
    VOW_EINVAL = -1,     /**< NULL or invalid argument, or a handle of the wrong type */
    VOW_EALREADY = -2,   /**< the resolver was already used */
    VOW_ETYPE = -3,      /**< the value is of another kind */
    VOW_ESIGNATURE = -4, /**< malformed libffi signature */
    VOW_ENOMEM = -5      /**< never returned (kept for source compatibility; see "Memory" above) */
} vow_status;

/**
 * A short description of a status code. Returns a static string (borrowed,
 * never NULL); "unknown status" for a code not in vow_status. Any thread.
 */
VOW_EXTERN const char *VOW_NULLABLE
vow_status_string(int status);

/* ======================================================================
 * Handles (opaque, reference-counted unless noted)
 * ====================================================================== */

/** A promise: the same object as a Swift AnyPromise. */
typedef struct vow_promise vow_promise;
/** The right to settle one pending promise. */
typedef struct vow_resolver vow_resolver;
/** An immutable value. */
typedef struct vow_value vow_value;
/** An immutable rejection reason. */
typedef struct vow_error vow_error;
/** The outcome slot a callback fills in: borrowed, valid only inside the callback. */
typedef struct vow_result vow_result;
/** Where callbacks run. */
typedef struct vow_dispatcher vow_dispatcher;
/** A C function pointer made at run time by libffi (not reference-counted). */
typedef struct vow_trampoline vow_trampoline;
/** A host's description of its own promise-like objects (defined below). */
typedef struct vow_thenable_class vow_thenable_class;

/* ======================================================================
 * Enums
 * ====================================================================== */

/** The kind of a vow_value (see vow_value_kind). */
typedef enum vow_kind {
    VOW_KIND_INVALID = -1, /**< not a value (NULL handle) */
    VOW_KIND_NULL = 0,     /**< nothing: Swift nil, (), Optional.none */
    VOW_KIND_BOOL,         /**< bool */
    VOW_KIND_INT,          /**< int64_t */
    VOW_KIND_DOUBLE,       /**< double */
    VOW_KIND_STRING,       /**< UTF-8 string */
    VOW_KIND_BYTES,        /**< byte buffer */
    VOW_KIND_POINTER,      /**< void * with an optional destroy */
    VOW_KIND_LIST,         /**< list of values: a manifold, tuple or array */
    VOW_KIND_PROMISE,      /**< a promise carried as a value */
    VOW_KIND_ERROR,        /**< an error carried as a value */
    VOW_KIND_THENABLE,     /**< a foreign promise-like object */
    VOW_KIND_SWIFT         /**< a Swift value with no C form: pass-through only */
} vow_kind;

/** The state of a promise (see vow_promise_state), or what vow_wait found. */
typedef enum vow_state {
    VOW_STATE_INVALID = -1, /**< not a promise (NULL handle) */
    VOW_PENDING = 0,        /**< not settled yet (vow_wait: the time ran out) */
    VOW_FULFILLED = 1,      /**< settled with a value */
    VOW_REJECTED = 2,       /**< settled with an error */
    VOW_DEADLOCK = 3        /**< vow_wait only: the wait could never end; the promise is still pending */
} vow_state;

/**
 * Codes of the library's own errors, all in domain "vow" (a tag only). The
 * one list of them: Swift's VowError.Code reads its numbers from here, and
 * a test (ErrorCodeTableTests) fails when it or the engine's EngineError
 * names a code this list does not, or misses one.
 */
enum vow_error_codes {
    VOW_ERROR_CANCELLED = 1, /**< cancelled (vow_cancel, race losers, timeouts) */
    VOW_ERROR_BROKEN,        /**< the last reference to an unused resolver was released */
    VOW_ERROR_CYCLE,         /**< resolved with itself, or a chain leading back to itself */
    VOW_ERROR_TIMEOUT,       /**< vow_timeout ran out first */
    VOW_ERROR_TYPE,          /**< a value of the wrong type; the message names expected and found */
    VOW_ERROR_SIGNATURE,     /**< bad libffi signature */
    VOW_ERROR_EMPTY,         /**< vow_race over nothing */
    VOW_ERROR_DEADLOCK       /**< vow_wait that could never end */
};

/** What vow_thenable_class.get_then (and call_then) answer. */
enum vow_then_lookup {
    VOW_THEN_NONE = 0,  /**< the object is not a thenable */
    VOW_THEN_FOUND = 1, /**< *method was set */
    VOW_THEN_THREW = 2  /**< the lookup or call threw; *error was set (+1) */
};

/** Which errors a catch receives (see vow_catch_policy). */
typedef enum vow_policy {
    VOW_CATCH_ALL_EXCEPT_CANCELLATION = 0, /**< the default: cancellation passes through */
    VOW_CATCH_ALL_ERRORS = 1               /**< cancellation included */
} vow_policy;

/* ======================================================================
 * Values
 *
 * Values keep their identity: a vow_value that goes into a promise comes
 * out of it (to a callback, vow_promise_value, a list) as the same handle.
 * Swift values appear as: nil/()/none NULL, Bool BOOL, integers that fit
 * INT, Double/Float DOUBLE, String STRING, [UInt8] BYTES, arrays and tuples
 * LIST, AnyPromise/Promise<T> PROMISE, Error ERROR, a non-promise Thenable
 * THENABLE, raw pointers POINTER, anything else SWIFT (comes back to Swift
 * as the same value).
 * ====================================================================== */

/** The NULL value (kind VOW_KIND_NULL). Returns +1 (never NULL). Any thread. */
VOW_EXTERN vow_value *VOW_NULLABLE
vow_value_null(void);

/** A BOOL value. Returns +1 (never NULL). Any thread. */
VOW_EXTERN vow_value *VOW_NULLABLE
vow_value_bool(bool b);

/** An INT value. Returns +1 (never NULL). Any thread. */
VOW_EXTERN vow_value *VOW_NULLABLE
vow_value_int(int64_t i);

/** A DOUBLE value. Returns +1 (never NULL). Any thread. */
VOW_EXTERN vow_value *VOW_NULLABLE
vow_value_double(double d);

/**
 * A STRING value holding a copy of the NUL-terminated UTF-8 string utf8
 * (invalid UTF-8 sequences are replaced with U+FFFD). Returns +1.
 * NULL utf8 returns NULL. Any thread.
 */
VOW_EXTERN vow_value *VOW_NULLABLE
vow_value_string(const char *VOW_NONNULL utf8) VOW_NONNULL_ARGS(1);

/**
 * A BYTES value holding a copy of n bytes at bytes. Returns +1. NULL bytes
 * with n == 0 makes an empty buffer; NULL bytes with n > 0 returns NULL.
 * A count that does not fit in a signed size (the top bit set, e.g.
 * (size_t)-1) or that runs past the end of the address space from bytes is
 * misuse: NULL, with a misuse line. Any thread.
 */
VOW_EXTERN vow_value *VOW_NULLABLE
vow_value_bytes(const void *VOW_NULLABLE bytes, size_t n);

/**
 * A POINTER value holding p (which may be NULL). Returns +1. destroy (may be
 * NULL) runs exactly once with p, on whichever thread drops the last
 * reference; if this call fails (NULL returned), destroy runs before it
 * returns. Any thread.
 */
VOW_EXTERN vow_value *VOW_NULLABLE
vow_value_pointer(void *VOW_NULLABLE p, void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE p));

/**
 * A LIST value (a manifold, tuple or array) of the n values in items, which
 * the list retains. Returns +1. A NULL item, or NULL items with n > 0,
 * returns NULL; NULL items with n == 0 makes an empty list. A count too
 * large (as for vow_value_bytes) is misuse: NULL, with a misuse line. Any
 * thread.
 *
 * items may be a plain array of handles, `vow_value *items[2]`, or an array
 * of const handles, `const vow_value *items[2]`, without a cast: in C++ by
 * the language's own conversion, in C11 and later through the macro below
 * (C99 has no _Generic: cast a non-const array there). Any other pointer
 * type is still an error. (vow_value_list)(...) calls the function itself.
 */
VOW_EXTERN vow_value *VOW_NULLABLE
vow_value_list(const vow_value *VOW_NULLABLE const *VOW_NULLABLE items, size_t n);
#if !defined(__cplusplus) && !defined(__swift__) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#  define vow_value_list(items, n)                                                   \
      (vow_value_list)(_Generic((items),                                              \
                           vow_value **: (const vow_value *const *)(items),           \
                           vow_value *const *: (const vow_value *const *)(items),     \
                           default: (items)),                                         \
                       (n))
#endif

/**
 * A PROMISE value carrying p (retained): resolving a promise with it adopts
 * p's eventual state. Returns +1. NULL p returns NULL. Any thread.
 */
VOW_EXTERN vow_value *VOW_NULLABLE
vow_value_promise(vow_promise *VOW_NONNULL p) VOW_NONNULL_ARGS(1);

/**
 * An ERROR value carrying e (retained): an error as data, as in vow_join
 * results; it does not reject anything. Returns +1. NULL e returns NULL.
 * Any thread.
 */
VOW_EXTERN vow_value *VOW_NULLABLE
vow_value_error(const vow_error *VOW_NONNULL e) VOW_NONNULL_ARGS(1);

/**
 * A THENABLE value: a host object described by cls. The library keeps the
 * cls pointer, so *cls must stay valid and unchanged while any value made
 * with it lives (normally a static const). destroy (may be NULL) runs once
 * with object when the last reference goes. Returns +1. NULL cls, or a cls
 * without get_then or call_then, returns NULL; if this call fails (NULL
 * returned), destroy runs before it returns. Any thread.
 */
VOW_EXTERN vow_value *VOW_NULLABLE
vow_value_thenable(const vow_thenable_class *VOW_NONNULL cls, void *VOW_NULLABLE object,
                   void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE object)) VOW_NONNULL_ARGS(1);

/**
 * Adds a reference to v and returns v (non-const, so a borrowed value can be
 * kept). NULL returns NULL. Any thread.
 */
VOW_EXTERN vow_value *VOW_NULLABLE
vow_value_retain(const vow_value *VOW_NULLABLE v);

/**
 * Drops a reference to v. The last one frees it; a POINTER's or THENABLE's
 * destroy then runs on this thread. NULL does nothing. Any thread.
 */
VOW_EXTERN void
vow_value_release(const vow_value *VOW_NULLABLE v);

/** The kind of v; VOW_KIND_INVALID (< 0) for NULL. Any thread. */
VOW_EXTERN vow_kind
vow_value_kind(const vow_value *VOW_NULLABLE v);

/**
 * Stores v's BOOL in *out. Returns VOW_OK, VOW_ETYPE if v is of another
 * kind (*out unchanged), VOW_EINVAL if v or out is NULL. Any thread.
 */
VOW_EXTERN int
vow_value_get_bool(const vow_value *VOW_NULLABLE v, bool *VOW_NULLABLE out);

/**
 * Stores v's INT in *out. Returns VOW_OK, VOW_ETYPE if v is of another kind
 * (DOUBLE included; *out unchanged), VOW_EINVAL if v or out is NULL. Any
 * thread.
 */
VOW_EXTERN int
vow_value_get_int(const vow_value *VOW_NULLABLE v, int64_t *VOW_NULLABLE out);

/**
 * Stores v's DOUBLE in *out; an INT widens to double. Returns VOW_OK,
 * VOW_ETYPE for other kinds (*out unchanged), VOW_EINVAL if v or out is
 * NULL. Any thread.
 */
VOW_EXTERN int
vow_value_get_double(const vow_value *VOW_NULLABLE v, double *VOW_NULLABLE out);

/**
 * v's STRING as NUL-terminated UTF-8: borrowed, valid as long as v lives.
 * NULL if v is NULL or not a STRING. Any thread.
 */
VOW_EXTERN const char *VOW_NULLABLE
vow_value_get_string(const vow_value *VOW_NULLABLE v);

/**
 * v's BYTES: borrowed, valid as long as v lives; their count goes to *n
 * (n may be NULL). Returns NULL and sets *n = 0 if v is NULL or not BYTES;
 * an empty buffer may return NULL with *n = 0 too. Any thread.
 */
VOW_EXTERN const void *VOW_NULLABLE
vow_value_get_bytes(const vow_value *VOW_NULLABLE v, size_t *VOW_NULLABLE n);

/** v's POINTER (not retained, not owned). NULL if v is NULL or not a POINTER. Any thread. */
VOW_EXTERN void *VOW_NULLABLE
vow_value_get_pointer(const vow_value *VOW_NULLABLE v);

/** The length of a LIST; 0 for other kinds and for NULL. Any thread. */
VOW_EXTERN size_t
vow_value_count(const vow_value *VOW_NULLABLE v);

/**
 * Item i of a LIST: borrowed, valid as long as v lives. NULL if v is NULL,
 * not a LIST, or i is out of range. Any thread.
 */
VOW_EXTERN const vow_value *VOW_NULLABLE
vow_value_at(const vow_value *VOW_NULLABLE v, size_t i);

/**
 * The promise a PROMISE value carries: borrowed, valid as long as v lives.
 * NULL for other kinds and NULL. Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_value_get_promise(const vow_value *VOW_NULLABLE v);

/**
 * The host object of a THENABLE value (borrowed, not owned); its class goes
 * to *cls_out (cls_out may be NULL). Returns NULL, and sets *cls_out to
 * NULL, if v is NULL or not THENABLE. Any thread.
 */
VOW_EXTERN void *VOW_NULLABLE
vow_value_get_thenable(const vow_value *VOW_NULLABLE v,
                       const vow_thenable_class *VOW_NULLABLE *VOW_NULLABLE cls_out);

/**
 * The error an ERROR value carries: borrowed, valid as long as v lives. NULL
 * for other kinds and NULL. Any thread.
 */
VOW_EXTERN const vow_error *VOW_NULLABLE
vow_value_get_error(const vow_value *VOW_NULLABLE v);

/* ======================================================================
 * Errors
 *
 * An error has a domain, an integer code, a message and an optional
 * payload value. The library's own errors use domain "vow" and the codes of
 * enum vow_error_codes. A Swift Error crossing into C keeps its identity:
 * its domain is the Swift type's name, its code the integer raw value where
 * it has one, its message String(describing:); back in Swift it is the
 * same error. Swift's CancellationError and a CancellableError with
 * isCancelled are cancellation errors in C, and vice versa.
 * ====================================================================== */

/**
 * A new error; domain and message (UTF-8) are copied. Returns +1. NULL
 * domain returns NULL; NULL message means "". Any thread.
 */
VOW_EXTERN vow_error *VOW_NULLABLE
vow_error_new(const char *VOW_NONNULL domain, int64_t code, const char *VOW_NULLABLE message)
    VOW_NONNULL_ARGS(1);

/**
 * Like vow_error_new, with a payload value (retained; NULL means none).
 * Returns +1. NULL domain returns NULL; NULL message means "". Any thread.
 */
VOW_EXTERN vow_error *VOW_NULLABLE
vow_error_with_payload(const char *VOW_NONNULL domain, int64_t code, const char *VOW_NULLABLE message,
                       const vow_value *VOW_NULLABLE payload) VOW_NONNULL_ARGS(1);

/** The cancellation error: domain "vow", code VOW_ERROR_CANCELLED. Returns +1. Any thread. */
VOW_EXTERN vow_error *VOW_NULLABLE
vow_error_cancelled(void);

/**
 * Adds a reference to e and returns e (non-const, so a borrowed error can be
 * kept). NULL returns NULL. Any thread.
 */
VOW_EXTERN vow_error *VOW_NULLABLE
vow_error_retain(const vow_error *VOW_NULLABLE e);

/** Drops a reference to e; the last one frees it. NULL does nothing. Any thread. */
VOW_EXTERN void
vow_error_release(const vow_error *VOW_NULLABLE e);

/** e's domain (UTF-8): borrowed, valid as long as e lives. NULL for NULL. Any thread. */
VOW_EXTERN const char *VOW_NULLABLE
vow_error_domain(const vow_error *VOW_NULLABLE e);

/**
 * e's code; 0 for NULL. For a Swift error that crossed into C: its raw value
 * if the error type is RawRepresentable with an integer raw value (truncated
 * to 64 bits), else 0. Any thread.
 */
VOW_EXTERN int64_t
vow_error_code(const vow_error *VOW_NULLABLE e);

/**
 * e's message (UTF-8, possibly ""): borrowed, valid as long as e lives. NULL
 * for NULL. Any thread.
 */
VOW_EXTERN const char *VOW_NULLABLE
vow_error_message(const vow_error *VOW_NULLABLE e);

/**
 * e's payload: borrowed, valid as long as e lives. NULL if it has none, or
 * for NULL. Any thread.
 */
VOW_EXTERN const vow_value *VOW_NULLABLE
vow_error_payload(const vow_error *VOW_NULLABLE e);

/**
 * Whether e counts as cancellation: ("vow", VOW_ERROR_CANCELLED), a pair
 * registered with vow_register_cancellation, or a Swift cancellation error.
 * false for NULL. Any thread.
 */
VOW_EXTERN bool
vow_error_is_cancelled(const vow_error *VOW_NULLABLE e);

/**
 * Makes (domain, code) count as cancellation from now on, for errors made
 * before too. domain is copied. Registering twice is harmless (VOW_OK);
 * there is no unregister. Returns VOW_OK, or VOW_EINVAL for NULL domain.
 * Any thread.
 */
VOW_EXTERN int
vow_register_cancellation(const char *VOW_NONNULL domain, int64_t code) VOW_NONNULL_ARGS(1);

/* ======================================================================
 * Promises and resolvers
 * ====================================================================== */

/**
 * A new pending promise and, in *resolver_out, the resolver that settles it;
 * both +1. NULL resolver_out returns NULL and creates nothing; on failure
 * NULL is returned and *resolver_out set to NULL. Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_promise_pending(vow_resolver *VOW_NULLABLE *VOW_NONNULL resolver_out) VOW_NONNULL_ARGS(1);

/**
 * A promise already fulfilled with value (retained, as it is: a PROMISE or
 * THENABLE value is not adopted). Returns +1. NULL value returns NULL (use
 * vow_value_null() for "nothing"). Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_promise_fulfilled(const vow_value *VOW_NONNULL value) VOW_NONNULL_ARGS(1);

/**
 * A promise already rejected with error (retained). Returns +1. NULL error
 * returns NULL. If it is dropped without a handler, the unhandled-error
 * handler sees the error. Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_promise_rejected(const vow_error *VOW_NONNULL error) VOW_NONNULL_ARGS(1);

/** Adds a reference to p and returns p. NULL returns NULL. Any thread. */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_promise_retain(vow_promise *VOW_NULLABLE p);

/**
 * Drops a reference to p. Callbacks already registered on p still run when
 * it settles. When the last reference to a rejected promise with no
 * handlers goes and the rejection was never handled, the unhandled-error
 * handler is called. NULL does nothing. Any thread.
 */
VOW_EXTERN void
vow_promise_release(vow_promise *VOW_NULLABLE p);

/** p's state right now; VOW_STATE_INVALID (< 0) for NULL. Any thread. */
VOW_EXTERN vow_state
vow_promise_state(const vow_promise *VOW_NULLABLE p);

/**
 * p's value if p is fulfilled (+1, the same handle it was fulfilled with);
 * NULL otherwise or for NULL. Any thread.
 */
VOW_EXTERN vow_value *VOW_NULLABLE
vow_promise_value(const vow_promise *VOW_NULLABLE p);

/**
 * p's error if p is rejected (+1); NULL otherwise or for NULL. Reading it
 * here does not count as handling the rejection (vow_wait and callbacks
 * do). Any thread.
 */
VOW_EXTERN vow_error *VOW_NULLABLE
vow_promise_error(const vow_promise *VOW_NULLABLE p);

/**
 * Whether p is rejected with an error that counts as cancellation (what
 * vow_error_is_cancelled says of vow_promise_error(p): the library's
 * VOW_ERROR_CANCELLED, Swift's CancellationError or a cancelled
 * CancellableError, or a pair registered with vow_register_cancellation),
 * in one call and without a reference to release. false while p is pending,
 * when it fulfilled or rejected otherwise, and for NULL; a handle of another
 * kind answers false with a misuse line. Like vow_promise_error, asking does
 * not count as handling the rejection. Any thread.
 */
VOW_EXTERN bool
vow_promise_is_cancelled(const vow_promise *VOW_NULLABLE p);

/**
 * The resolution procedure: a PROMISE x is adopted, a THENABLE x is
 * assimilated (its class functions run later, as jobs on the default
 * dispatcher), any other x fulfils the promise (x retained). Once x was
 * adopted the resolver is used up (vow_resolver_is_used is true while the
 * promise is still pending). Resolving with the promise itself, or a
 * promise leading back to it (through a chain, or through any input of a
 * combinator on the way: vow_when, vow_join, vow_race, vow_any, a bounded
 * combinator's inputs), or fulfilling it with a value that holds it (see
 * vow_resolver_fulfill), rejects it with VOW_ERROR_CYCLE and returns VOW_OK.
 * Returns VOW_OK, VOW_EALREADY if the resolver was already used (nothing
 * changes), VOW_EINVAL if r or x is NULL. Any thread.
 */
VOW_EXTERN int
vow_resolver_resolve(vow_resolver *VOW_NONNULL r, const vow_value *VOW_NONNULL x)
    VOW_NONNULL_ARGS(1, 2);

/**
 * Fulfils the promise with x as it is (retained; a PROMISE or THENABLE is
 * not adopted). The state changes before this returns; callbacks are only
 * queued. An x that holds the promise itself (a PROMISE value of it,
 * directly, inside a LIST, in an ERROR value's payload, or inside the value
 * of a settled promise x holds) would make a cycle that is never freed: the
 * promise is rejected with VOW_ERROR_CYCLE instead (VOW_OK is returned, as
 * for vow_resolver_resolve with the promise itself). Returns VOW_OK,
 * VOW_EALREADY if the resolver was already used (nothing changes),
 * VOW_EINVAL if r or x is NULL. Any thread.
 */
VOW_EXTERN int
vow_resolver_fulfill(vow_resolver *VOW_NONNULL r, const vow_value *VOW_NONNULL x)
    VOW_NONNULL_ARGS(1, 2);

/**
 * Rejects the promise with e (retained). The state changes before this
 * returns; callbacks are only queued. Returns VOW_OK, VOW_EALREADY if the
 * resolver was already used (nothing changes), VOW_EINVAL if r or e is NULL.
 * Any thread.
 */
VOW_EXTERN int
vow_resolver_reject(vow_resolver *VOW_NONNULL r, const vow_error *VOW_NONNULL e)
    VOW_NONNULL_ARGS(1, 2);

/**
 * Whether r is used up, so that settling through it would answer
 * VOW_EALREADY: its promise was settled (by r or by cancellation), or r
 * adopted a promise or thenable (then the promise may still be pending:
 * vow_promise_state says whether it settled). false for NULL. Any thread.
 */
VOW_EXTERN bool
vow_resolver_is_used(const vow_resolver *VOW_NULLABLE r);

/**
 * The name Vow 0.1 gave vow_resolver_is_used, kept so 0.1 programs build:
 * the same answer (true also for a resolver that adopted a promise still
 * pending, which its name does not suggest). Deprecated: use
 * vow_resolver_is_used. Any thread.
 */
VOW_EXTERN bool
vow_resolver_is_settled(const vow_resolver *VOW_NULLABLE r);

/**
 * Registers fn(ctx) to run once, on the default dispatcher, when
 * cancellation reaches this producer, so the work behind it can stop.
 * "The default dispatcher" is read when the cancellation arrives, not when
 * fn is registered: a program that replaces the default in between (with
 * vow_set_default_dispatcher) has fn run on the new one. To fix the
 * dispatcher at registration (a producer on an event loop that must hear
 * the cancellation on the loop's thread), use vow_resolver_on_cancel_on.
 * Registered after that, fn is queued at once. If the promise settles
 * otherwise (or already has), fn is dropped: it never runs and destroy runs.
 * Returns VOW_OK, VOW_EINVAL if r or fn is NULL. If this call fails (an error
 * status returned), fn is never called and destroy (if given) runs before the
 * call returns. Any thread.
 */
VOW_EXTERN int
vow_resolver_on_cancel(vow_resolver *VOW_NONNULL r, void (*VOW_NONNULL fn)(void *VOW_NULLABLE ctx),
                       void *VOW_NULLABLE ctx, void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx))
    VOW_NONNULL_ARGS(1, 2);

/**
 * vow_resolver_on_cancel with fn run on d (retained until fn ran or was
 * dropped) instead of the default dispatcher: when cancellation reaches this
 * producer, fn(ctx) is submitted to d, so a producer on a host loop (a
 * vow_uv or vow_glib dispatcher) hears it on the loop's thread without
 * making the loop the process-wide default. Registered after that, fn is
 * submitted to d at once. If the promise settles otherwise (or already has),
 * or d drops the job (a closed loop), fn never runs and destroy runs, once,
 * on the thread that settled the promise or dropped the job. Returns
 * VOW_OK; VOW_EINVAL if r, d or fn is NULL or a handle of the wrong kind (a
 * misuse line for the latter). If this call fails (an error status
 * returned), fn is never called and destroy (if given) runs before the call
 * returns. Any thread.
 */
VOW_EXTERN int
vow_resolver_on_cancel_on(vow_resolver *VOW_NONNULL r, vow_dispatcher *VOW_NONNULL d,
                          void (*VOW_NONNULL fn)(void *VOW_NULLABLE ctx), void *VOW_NULLABLE ctx,
                          void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)) VOW_NONNULL_ARGS(1, 2, 3);

/** Adds a reference to r and returns r. NULL returns NULL. Any thread. */
VOW_EXTERN vow_resolver *VOW_NULLABLE
vow_resolver_retain(vow_resolver *VOW_NULLABLE r);

/**
 * Drops a reference to r. Releasing the last reference to an unused
 * resolver (it neither settled its promise nor adopted a promise or
 * thenable) rejects the promise with VOW_ERROR_BROKEN, so a forgotten
 * resolver cannot hang a chain; one that adopted a pending promise may be
 * released freely. NULL does nothing. Any thread.
 */
VOW_EXTERN void
vow_resolver_release(vow_resolver *VOW_NULLABLE r);

/* ======================================================================
 * Chaining
 * ====================================================================== */

/**
 * A value callback: value is borrowed for the call; out is the derived
 * promise's outcome slot, valid only during the call. The library passes
 * non-NULL value and out (vow_dispatch passes value NULL).
 *
 * out names this one call of the callback: it is valid on the thread that
 * runs the callback, until the callback returns, and not inside another
 * callback that runs meanwhile on that thread (an inline dispatcher's). An
 * out used anywhere else (kept and used after the callback returned, used
 * from another thread while the callback runs, or inside another callback)
 * is refused by vow_result_return, vow_result_throw and vow_result_adopt
 * with the misuse line "expected the vow_result of a running callback":
 * the outcome of the callback running then is not touched (vow_result_adopt
 * still releases its p). out is a token, not the address of the outcome:
 * the check reads nothing behind it, so a kept out never reaches memory
 * that is gone. Pass it nowhere but to those three functions (where a handle
 * is expected, it is refused as "a pointer that is not a vow handle").
 */
typedef void (*vow_on_value)(void *VOW_NULLABLE ctx, const vow_value *VOW_NULLABLE value,
                             vow_result *VOW_NULLABLE out);

/** An error callback: error (non-NULL) is borrowed for the call; out as for vow_on_value. */
typedef void (*vow_on_error)(void *VOW_NULLABLE ctx, const vow_error *VOW_NULLABLE error,
                             vow_result *VOW_NULLABLE out);

/**
 * Inside a callback: the derived promise is resolved with v (retained) by
 * the resolution procedure of vow_resolver_resolve (so a v that holds the
 * derived promise itself rejects it with VOW_ERROR_CYCLE). NULL v means the
 * NULL value. A callback that sets nothing resolves with the NULL value;
 * setting again replaces the earlier outcome. NULL out does nothing; an out
 * that is not the running callback's is refused (see vow_on_value).
 * Callback's thread.
 */
VOW_EXTERN void
vow_result_return(vow_result *VOW_NULLABLE out, const vow_value *VOW_NULLABLE v);

/**
 * Inside a callback: the derived promise is rejected with e (retained).
 * Setting again replaces the earlier outcome. NULL out or NULL e does
 * nothing (the outcome stays as it was); an out that is not the running
 * callback's is refused (see vow_on_value). Callback's thread.
 */
VOW_EXTERN void
vow_result_throw(vow_result *VOW_NULLABLE out, const vow_error *VOW_NULLABLE e);

/**
 * Inside a callback: the derived promise follows p (adopts it: settles as p
 * settles), and the library takes over the caller's reference to p. This is
 * the one exception to "everything passed in is borrowed": the reference is
 * consumed whatever happens, so returning the promise of a next step is one
 * line, `vow_result_adopt(out, make_step());`, with nothing to release.
 * It does what vow_value_promise + vow_result_return + two releases do,
 * without making the PROMISE value. NULL p (a step
 * that could not start) rejects the derived promise with a VOW_ERROR_TYPE
 * error naming vow_result_adopt, so a failed step is never taken for a
 * value; setting the outcome again replaces it. NULL out, or an out that is
 * not the running callback's (a misuse line: see vow_on_value; from another
 * thread too, while the callback runs), still releases p. A p that is not a
 * vow_promise handle (a misuse line) is left alone (the caller still owns
 * it: the library releases only what it can tell is a promise) and the
 * outcome is not changed. p may be a promise of the same chain: a p that
 * leads back to the derived promise (through a chain, or through any input
 * of a combinator on the way: vow_when, vow_join, vow_race, vow_any, a
 * bounded combinator's inputs) rejects it with VOW_ERROR_CYCLE, also when
 * another thread closes the cycle at the same moment (two callbacks adopting
 * each other's promises: both end rejected, as one after the other). Callback's
 * thread.
 */
VOW_EXTERN void
vow_result_adopt(vow_result *VOW_NULLABLE out, vow_promise *VOW_NULLABLE p);

/**
 * Promises/A+ then. Returns a new promise (+1) settled from the callback
 * that runs: on_value if p fulfils, on_error for every rejection,
 * cancellation included (this is recover). A NULL callback passes the value
 * or error through. Callbacks run on the default dispatcher as it is when
 * this is called (a library-owned serial queue unless replaced with
 * vow_set_default_dispatcher), never inline here or in the settling call,
 * never under a library lock; handlers of one promise run in attach order.
 * Releasing the returned promise does not unregister the callbacks;
 * cancelling it does (they never run). NULL p returns NULL.
 * If this call fails (NULL returned), the callback is never called and
 * destroy (if given) runs before the call returns. destroy runs exactly
 * once: after the callback has run, or as soon as it is certain the callback
 * never will (the derived promise was cancelled, the source was released
 * unsettled, the dispatcher dropped the job). Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_then(vow_promise *VOW_NONNULL p, vow_on_value VOW_NULLABLE on_value, vow_on_error VOW_NULLABLE on_error,
         void *VOW_NULLABLE ctx, void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx))
    VOW_NONNULL_ARGS(1);

/**
 * vow_then with the callbacks run on d (retained) instead of the default
 * dispatcher. NULL d or NULL p returns NULL. If this call fails (NULL
 * returned), the callback is never called and destroy (if given) runs
 * before the call returns. destroy runs exactly once: after the callback has
 * run, or as soon as it is certain the callback never will (the derived
 * promise was cancelled, the source was released unsettled, the dispatcher
 * dropped the job). Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_then_on(vow_dispatcher *VOW_NONNULL d, vow_promise *VOW_NONNULL p, vow_on_value VOW_NULLABLE on_value,
            vow_on_error VOW_NULLABLE on_error, void *VOW_NULLABLE ctx,
            void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)) VOW_NONNULL_ARGS(1, 2);

/**
 * vow_catch_policy with VOW_CATCH_ALL_EXCEPT_CANCELLATION: on_error runs, on
 * the default dispatcher (as for vow_then), only for errors that are not
 * cancellation. The returned promise (+1) fulfils with p's value if p
 * fulfilled, settles from the callback's result if it ran, and stays
 * rejected with the cancellation error if it was skipped (so a vow_finally
 * after it always runs). NULL p or on_error returns NULL. If this call fails
 * (NULL returned), the callback is never called and destroy (if given) runs
 * before the call returns. destroy runs exactly once: after the callback has
 * run, or as soon as it is certain the callback never will (the derived
 * promise was cancelled, the source was released unsettled, the dispatcher
 * dropped the job). Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_catch(vow_promise *VOW_NONNULL p, vow_on_error VOW_NONNULL on_error, void *VOW_NULLABLE ctx,
          void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)) VOW_NONNULL_ARGS(1, 2);

/**
 * vow_catch with a policy: VOW_CATCH_ALL_ERRORS also gives on_error the
 * cancellation errors. Callback on the default dispatcher, as for vow_then.
 * NULL p, NULL on_error or an unknown policy returns NULL. If this call fails
 * (NULL returned), the callback is never called and destroy (if given) runs
 * before the call returns. destroy runs exactly once: after the callback has
 * run, or as soon as it is certain the callback never will (the derived
 * promise was cancelled, the source was released unsettled, the dispatcher
 * dropped the job). Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_catch_policy(vow_promise *VOW_NONNULL p, vow_policy policy, vow_on_error VOW_NONNULL on_error,
                 void *VOW_NULLABLE ctx, void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx))
    VOW_NONNULL_ARGS(1, 3);

/**
 * Runs fn(ctx) once p settles, whatever happened, on the default dispatcher
 * (as for vow_then). The returned promise (+1) settles like p, after fn has
 * run; a rejection is not handled by this. fn is cleanup: cancelling the
 * returned promise still lets fn run once p settles (the cancellation
 * travels upstream). NULL p or fn returns NULL. If this call fails (NULL
 * returned), the callback is never called and destroy (if given) runs before
 * the call returns. destroy runs exactly once: after the callback has run,
 * or as soon as it is certain the callback never will (the source was
 * released unsettled, the dispatcher dropped the job). Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_finally(vow_promise *VOW_NONNULL p, void (*VOW_NONNULL fn)(void *VOW_NULLABLE ctx),
            void *VOW_NULLABLE ctx, void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx))
    VOW_NONNULL_ARGS(1, 2);

/**
 * vow_catch with the callback run on d (retained). NULL d, p or on_error
 * returns NULL. If this call fails (NULL returned), the callback is never
 * called and destroy (if given) runs before the call returns. destroy runs
 * exactly once: after the callback has run, or as soon as it is certain the
 * callback never will (the derived promise was cancelled, the source was
 * released unsettled, the dispatcher dropped the job). Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_catch_on(vow_dispatcher *VOW_NONNULL d, vow_promise *VOW_NONNULL p, vow_on_error VOW_NONNULL on_error,
             void *VOW_NULLABLE ctx, void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx))
    VOW_NONNULL_ARGS(1, 2, 3);

/**
 * vow_catch_policy with the callback run on d (retained). NULL d, p or
 * on_error, or an unknown policy, returns NULL. If this call fails (NULL
 * returned), the callback is never called and destroy (if given) runs before
 * the call returns. destroy runs exactly once: after the callback has run,
 * or as soon as it is certain the callback never will (the derived promise
 * was cancelled, the source was released unsettled, the dispatcher dropped
 * the job). Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_catch_policy_on(vow_dispatcher *VOW_NONNULL d, vow_promise *VOW_NONNULL p, vow_policy policy,
                    vow_on_error VOW_NONNULL on_error, void *VOW_NULLABLE ctx,
                    void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)) VOW_NONNULL_ARGS(1, 2, 4);

/**
 * vow_finally with fn run on d (retained). NULL d, p or fn returns NULL. If
 * this call fails (NULL returned), the callback is never called and destroy
 * (if given) runs before the call returns. destroy runs exactly once: after
 * the callback has run, or as soon as it is certain the callback never will
 * (the source was released unsettled, the dispatcher dropped the job). Any
 * thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_finally_on(vow_dispatcher *VOW_NONNULL d, vow_promise *VOW_NONNULL p,
               void (*VOW_NONNULL fn)(void *VOW_NULLABLE ctx), void *VOW_NULLABLE ctx,
               void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)) VOW_NONNULL_ARGS(1, 2, 3);

/**
 * Watches p without joining its chain: once p settles, fn(ctx) is submitted
 * to d (retained until then), whatever the outcome. Unlike vow_finally_on it
 * makes no derived promise and is not a handler: p stays the end of its
 * branch (a rejection nobody handles is still reported, once, when p is
 * freed) and a rejection is not handled by this; it does not keep p wanted
 * (cancelling what depends on p cancels p as if the watch were not there)
 * and does not keep p alive. It starts a lazy p, as vow_wait does. This is
 * what an event-loop bridge needs to learn that work is over (vow_uv_hold,
 * vow_glib_hold); fn reads the outcome through a reference of its own, if
 * it kept one. If p is already settled, fn is submitted at once; with
 * vow_dispatcher_inline() it runs where p settles (inside the settling call,
 * never under a library lock). destroy runs exactly once: after fn ran, or
 * as soon as it is certain fn never will (p was freed unsettled, d dropped
 * the job). Returns VOW_OK; VOW_EINVAL for NULL d, p or fn, or a handle of
 * the wrong kind (a misuse line for the latter). If this call fails, fn is
 * never called and destroy (if given) runs before the call returns. Any
 * thread.
 */
VOW_EXTERN int
vow_observe_on(vow_dispatcher *VOW_NONNULL d, vow_promise *VOW_NONNULL p,
               void (*VOW_NONNULL fn)(void *VOW_NULLABLE ctx), void *VOW_NULLABLE ctx,
               void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)) VOW_NONNULL_ARGS(1, 2, 3);

/**
 * Chains without keeping the intermediates: releases the caller's reference
 * to prev and returns next (the caller's reference to next passes through).
 * Written around any call that makes a promise from prev, so that one
 * variable walks down the chain and only its last promise is left to
 * release:
 *
 *     vow_promise *p = start();
 *     p = vow_consume(p, vow_then(p, parse, NULL, ctx, NULL));
 *     p = vow_consume(p, vow_timeout(p, 5.0));
 *     p = vow_consume(p, vow_catch(p, report, NULL, NULL));
 *     ...
 *     vow_promise_release(p);
 *
 * Both arguments are evaluated before the call, so vow_then(p, ...) sees p
 * alive; releasing prev then does not unregister anything (a promise's
 * callbacks run whether or not the program still holds it). One function
 * for every chaining call, so there are no _consume twins (nor _site twins:
 * it makes no promise). A NULL next (the chaining call failed) still
 * releases prev and returns NULL, so a failure travels down the chain as
 * NULL and the next calls answer NULL too: check the last one. NULL prev
 * releases nothing. A prev that is not a promise handle gets the misuse line
 * of vow_promise_release; a next that is not one gets a misuse line and
 * NULL is returned, next is left alone (the caller still owns it) and prev
 * is still released, as for a NULL next. prev == next is a mistake unless
 * the caller holds two references. Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_consume(vow_promise *VOW_NULLABLE prev, vow_promise *VOW_NULLABLE next);

/* ======================================================================
 * Foreign thenables
 *
 * For a host with promise-like objects of its own (a script engine, another
 * library). When a promise is resolved with a THENABLE value the library
 * runs the Promises/A+ 2.3.3 procedure: it calls get_then exactly once,
 * then call_then with a fresh once-only resolver, ignores every settle
 * after the first and a throw after settling. A lookup or call that throws
 * rejects with the error the class hands back. These functions run as jobs
 * on the default dispatcher, never inline in vow_resolver_resolve or a
 * callback's return, so a host that plugs its loop in as the default
 * dispatcher sees its objects on that loop's thread.
 * ====================================================================== */

/** A host's class of promise-like objects: how the library finds and calls their then. */
struct vow_thenable_class {
    /**
     * Looks up object's then-method. Returns VOW_THEN_NONE if object is not
     * a thenable (the promise fulfils with the THENABLE value itself),
     * VOW_THEN_FOUND after setting *method, or VOW_THEN_THREW after setting
     * *error (+1, the library takes it; left NULL, the library uses an
     * error of its own in domain "vow"). method and error are never NULL.
     */
    int (*VOW_NULLABLE get_then)(void *VOW_NULLABLE object, void *VOW_NULLABLE *VOW_NULLABLE method,
                                 vow_error *VOW_NULLABLE *VOW_NULLABLE error);
    /**
     * Calls method on object with resolver (borrowed for the call: retain it
     * to settle later; an unused resolver nobody holds rejects with
     * VOW_ERROR_BROKEN). Returns VOW_OK, or VOW_THEN_THREW after setting
     * *error (+1) if the call threw; ignored once the resolver was used.
     */
    int (*VOW_NULLABLE call_then)(void *VOW_NULLABLE object, void *VOW_NULLABLE method,
                                  vow_resolver *VOW_NULLABLE resolver,
                                  vow_error *VOW_NULLABLE *VOW_NULLABLE error);
    /** Releases a method found by get_then, once it is no longer needed. May be NULL. */
    void (*VOW_NULLABLE release_method)(void *VOW_NULLABLE method);
};

/* ======================================================================
 * Dispatchers
 * ====================================================================== */

/** A job the library hands to a dispatcher's submit: the host calls run(job) or vow_job_drop(job). */
typedef void (*vow_job)(void *VOW_NULLABLE job);

/**
 * A dispatcher backed by the host's loop (libuv, GLib, a script engine).
 * The library calls submit(ctx, run, job), from any thread, never under a
 * library lock. Each job is the host's to finish exactly once, later (after
 * submit returned): either run(job), in submission order, on the loop's
 * thread, or vow_job_drop(job) when the loop will never run it (it shuts
 * down, its queue is full). Jobs still queued at process exit are simply
 * never run. Every job the host still holds keeps the dispatcher alive:
 * destroy(ctx) runs once the last reference is released and every submitted
 * job was run or dropped, so a host that shuts its loop down drops what is
 * still queued, then releases the dispatcher. A job costs no allocation of
 * its own: a callback's job is the library's object for that callback,
 * handed over as it is (the allocation stage of the test command holds 0
 * per job). Returns +1; NULL submit
 * returns NULL. If this call fails (NULL returned), submit is never called
 * and destroy (if given) runs before the call returns. Any thread.
 *
 * Swift actors and tasks may use the dispatcher as their executor (Swift:
 * VowRuntime.dispatcher(unsafeHandle: d)?.executor, a VowExecutor). Their
 * jobs reach submit like the others, with a run function of their own and the
 * Swift job itself as job: the host treats them like any job (run it once,
 * in order, or drop it). While the host holds such a job, the dispatcher and
 * ctx stay alive (destroy waits for the executor too).
 */
VOW_EXTERN vow_dispatcher *VOW_NULLABLE
vow_dispatcher_new(void (*VOW_NONNULL submit)(void *VOW_NULLABLE ctx, vow_job VOW_NULLABLE run,
                                               void *VOW_NULLABLE job),
                   void *VOW_NULLABLE ctx, void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx))
    VOW_NONNULL_ARGS(1);

/**
 * A host loop's timer start (vow_dispatcher_new_with_timers): starts a one-shot
 * timer of the loop due in seconds (finite, not negative; 0: as soon as
 * possible) and returns the host's own handle for it (any pointer, NULL
 * too), which the library passes back to cancel. When the time has come the
 * host calls run(timer), once, on the loop's thread; if it never will (the
 * loop shuts down) it calls vow_job_drop(timer) instead. Never inside arm.
 */
typedef void *VOW_NULLABLE (*vow_timer_arm)(void *VOW_NULLABLE ctx, double seconds, vow_job VOW_NULLABLE run,
                                            void *VOW_NULLABLE timer);

/**
 * A host loop's timer stop (vow_dispatcher_new_with_timers): the library no
 * longer needs the timer host_timer (what arm returned): the host stops it
 * and finishes it with vow_job_drop(timer), there or later (run(timer) would
 * do nothing).
 */
typedef void (*vow_timer_cancel)(void *VOW_NULLABLE ctx, void *VOW_NULLABLE host_timer);

/**
 * vow_dispatcher_new for a host loop with timers of its own (libuv's
 * uv_timer, GLib's g_timeout_add, timerfd): the library's timers that run on
 * d then count the loop's time, not the library's real clock (Dispatch), and
 * fire on the loop's thread. Which timers run on d: vow_after, vow_timeout,
 * vow_delay and the pauses of vow_retry called where d is the default
 * dispatcher (vow_set_default_dispatcher(d), or a test loop's dispatcher
 * installed on the thread), and Swift's after(seconds:on: d), timeout,
 * delay and retry likewise. submit, ctx and destroy as for vow_dispatcher_new.
 *
 * The library calls arm and cancel on the loop's thread only: each is the
 * body of a job it submits to d first (so a host calls its loop's timer
 * functions directly, without a lock). arm(ctx, seconds, run, timer) starts a
 * timer (seconds counts from the vow_after, not from the job: what the job's
 * wait took is subtracted); the host then calls run(timer) exactly once, on
 * the loop's thread, when it is due, or vow_job_drop(timer) if it never will
 * (the loop shuts down: the promise of a vow_after is then cancelled). A
 * timer the host holds keeps d alive, as a job does. cancel(ctx, host_timer)
 * is called at most once per timer, only before the host ran or dropped it,
 * when the library no longer needs it (its promise settled, or was
 * cancelled): the host stops the timer and finishes it with
 * vow_job_drop(timer). NULL cancel: a timer no longer needed still runs at
 * its time, and does nothing. A job carrying an arm or a cancel is an
 * ordinary job: dropped, its timer is dropped (or, for a cancel, left to the
 * host, which drops its timers when it shuts down).
 *
 * Returns +1; NULL submit or arm returns NULL (and destroy, if given, runs
 * before the call returns). Any thread.
 */
VOW_EXTERN vow_dispatcher *VOW_NULLABLE
vow_dispatcher_new_with_timers(void (*VOW_NONNULL submit)(void *VOW_NULLABLE ctx, vow_job VOW_NULLABLE run,
                                                           void *VOW_NULLABLE job),
                               vow_timer_arm VOW_NONNULL arm, vow_timer_cancel VOW_NULLABLE cancel,
                               void *VOW_NULLABLE ctx, void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx))
    VOW_NONNULL_ARGS(1, 2);

/**
 * Hands a job back instead of running it: for a host loop that will never
 * run it (the loop shuts down, its queue is full). The callback the job
 * would have run never runs, its destroy runs exactly once, and the promise
 * it would have settled is cancelled (rejected with VOW_ERROR_CANCELLED at
 * once: waiters return, finally callbacks run, the cancellation travels
 * upstream), as when a Swift Dispatcher drops work. A job is run once or
 * dropped once: running or dropping it again is undefined, like a double
 * free; it is usually caught (always while the library still holds the
 * object, as it does for a callback whose promise is still referenced): a
 * line on standard error, "expected a job, got a released handle", and
 * nothing else happens. A pointer that never was a job (a vow_promise, a
 * stray pointer) is refused with a line too. NULL does nothing. Any thread, also inside the
 * submit that received the job (a loop that is gone drops at once; a long
 * chain dropped this way ends in a loop, not a recursion), but not while
 * holding a lock that submit takes: the drop runs destroy functions and
 * settles promises, which may submit more jobs.
 *
 * A Swift job (an actor's or a task's, see vow_dispatcher_new) is not lost
 * when dropped: Swift requires every job to run, so it runs, on the calling
 * thread, at once (or right after the job of the same executor running at
 * that moment, on that job's thread), marked as running the dispatcher so
 * its isolation checks pass. Its task goes on, no longer on the loop's thread.
 */
VOW_EXTERN void
vow_job_drop(void *VOW_NULLABLE job);

/**
 * The current default dispatcher, borrowed: the library keeps it alive for
 * the calling thread until that thread calls vow_dispatcher_default or
 * vow_set_default_dispatcher again, or ends, even if another thread replaces
 * the default meanwhile (so `vow_then_on(vow_dispatcher_default(), ...)` and
 * `vow_dispatcher_retain(vow_dispatcher_default())` are safe against a
 * concurrent vow_set_default_dispatcher). Retain it to keep it longer.
 * Unless replaced, the library's own serial queue, which needs nothing from
 * the host and is never the main dispatch queue. Swift's default dispatcher
 * is the same setting. Any thread.
 */
VOW_EXTERN vow_dispatcher *VOW_NULLABLE
vow_dispatcher_default(void);

/** A concurrent pool owned by the library (borrowed, lives as long as the process). Any thread. */
VOW_EXTERN vow_dispatcher *VOW_NULLABLE
vow_dispatcher_background(void);

/**
 * The inline dispatcher (borrowed, lives as long as the process): callbacks
 * run where the promise settles, inside the settling call (or inside the
 * registering call if it has settled already), still never under a library
 * lock. Any thread.
 */
VOW_EXTERN vow_dispatcher *VOW_NULLABLE
vow_dispatcher_inline(void);

/** Adds a reference to d and returns d. NULL returns NULL. Any thread. */
VOW_EXTERN vow_dispatcher *VOW_NULLABLE
vow_dispatcher_retain(vow_dispatcher *VOW_NULLABLE d);

/**
 * Drops a reference to d; the last one runs its destroy. Built-in
 * dispatchers ignore it. NULL does nothing. Any thread.
 */
VOW_EXTERN void
vow_dispatcher_release(vow_dispatcher *VOW_NULLABLE d);

/**
 * The ctx given to vow_dispatcher_new or vow_dispatcher_new_with_timers when
 * d was made, as it was given (borrowed: the library never reads it); NULL
 * for the library's own dispatchers (vow_dispatcher_default,
 * vow_dispatcher_background, vow_dispatcher_inline, a Swift dispatcher, a
 * test loop's), for NULL d, and for a d that is not a dispatcher (with a
 * misuse line). A host that makes dispatchers finds its state from a
 * vow_dispatcher * this way (the bridges of vow_uv.h and vow_glib.h do).
 * Any thread, while the caller holds a reference to d; the answer stays
 * valid until d's destroy(ctx) runs, which the host decides.
 */
VOW_EXTERN void *VOW_NULLABLE
vow_dispatcher_context(vow_dispatcher *VOW_NULLABLE d);

/**
 * The ctx of d when d was made by vow_dispatcher_new or
 * vow_dispatcher_new_with_timers with this submit function; NULL otherwise
 * (NULL d, the library's own dispatchers, a dispatcher made with another
 * submit, and a d that is not a dispatcher, with a misuse line). A host that
 * makes dispatchers with a submit function of its own learns this way that d
 * is one of its own before it reads its ctx: the library compares the
 * function, it never reads ctx, so a dispatcher of another host whose ctx is
 * anything at all (even not a pointer) is answered NULL. The bridges of
 * vow_uv.h and vow_glib.h find their state this way. Thread rules as
 * vow_dispatcher_context.
 */
VOW_EXTERN void *VOW_NULLABLE
vow_dispatcher_host_context(vow_dispatcher *VOW_NULLABLE d,
                            void (*VOW_NULLABLE submit)(void *VOW_NULLABLE ctx, vow_job VOW_NULLABLE run,
                                                        void *VOW_NULLABLE job));

/**
 * Makes d (retained) the default dispatcher, for C and Swift alike; NULL
 * restores the library's own serial queue. Callbacks registered earlier keep
 * the dispatcher they were registered with. The hold vow_dispatcher_default
 * keeps for the calling thread is dropped. Any thread.
 */
VOW_EXTERN void
vow_set_default_dispatcher(vow_dispatcher *VOW_NULLABLE d);

/* ======================================================================
 * Waiting
 * ====================================================================== */

/**
 * Blocks until p settles or timeout_seconds pass and returns the state:
 * VOW_PENDING when time ran out. Negative (-INFINITY too) or +INFINITY: no
 * limit; 0: no wait; NaN: a caller's mistake, treated as 0 (it never hangs)
 * and reported with one misuse line on standard error. (The one exception to
 * the time rule of the other calls, where negative means now: -1 has always
 * meant "no limit" here.) A wait that times out does not count as handling
 * p: rejected and released unhandled later, p is still reported. On
 * fulfilment *value_out, on rejection *error_out gets +1; the other is set to
 * NULL (both may be NULL). Observing a rejection here handles it, even with
 * NULL error_out. Called where the chain needs this thread (a callback on a
 * serial dispatcher waiting for work queued behind it, or for its own
 * promise) it does not hang, whatever the timeout: it returns VOW_DEADLOCK
 * at once, with *value_out NULL and *error_out set to a VOW_ERROR_DEADLOCK
 * error (+1); p stays pending. (Vow 0.1 answered VOW_PENDING here.) A wait
 * runs no loop: a promise that needs a test loop's work or clock
 * (vow_testing.h, "Waiting") settles only when some thread runs that loop, so
 * on the loop's thread the wait ends with its time (VOW_PENDING), or with no
 * limit when another thread runs the loop. NULL p returns VOW_STATE_INVALID.
 * Any thread.
 */
VOW_EXTERN vow_state
vow_wait(vow_promise *VOW_NONNULL p, double timeout_seconds, vow_value *VOW_NULLABLE *VOW_NULLABLE value_out,
         vow_error *VOW_NULLABLE *VOW_NULLABLE error_out) VOW_NONNULL_ARGS(1);

/* ======================================================================
 * Combinators
 *
 * Arrays are borrowed; the promises in them are retained. A NULL element,
 * or NULL ps with n > 0, returns NULL; NULL ps with n == 0 is allowed. A
 * count too large (the top bit set, or more than the address space after ps
 * holds) is misuse: NULL, with a misuse line. ps is a plain array of
 * handles, `vow_promise *ps[n]`.
 * ====================================================================== */

/**
 * All of ps: fulfils with a LIST of their values in input order, or
 * rejects with the first rejection's error (that same error). n == 0
 * fulfils with an empty LIST. The first rejection does not cancel the other
 * inputs: they keep running, and their outcomes are ignored (counted as
 * handled). Cancelling the returned promise while it is pending cancels
 * every input (each only if nothing else still waits on it). Returns +1.
 * Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_when(vow_promise *VOW_NULLABLE const *VOW_NULLABLE ps, size_t n);

/**
 * Waits for all of ps and never rejects: fulfils with a LIST in input order
 * holding each one's value, or an ERROR value (vow_value_error) for each
 * rejection; those rejections count as handled. n == 0 fulfils with an empty
 * LIST. Returns +1. Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_join(vow_promise *VOW_NULLABLE const *VOW_NULLABLE ps, size_t n);

/**
 * Settles like the first of ps to settle. Inputs already settled when this
 * is called count first, in array order: the first of them wins. Once
 * settled, the losers are cancelled (each only if nothing else still waits
 * on it). n == 0 rejects with VOW_ERROR_EMPTY. Returns +1. Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_race(vow_promise *VOW_NULLABLE const *VOW_NULLABLE ps, size_t n);

/**
 * The first fulfilment of ps (PromiseKit's PMKRaceFulfilled, Swift's any):
 * fulfils like the first of ps to fulfil, skipping rejections; once it has,
 * the others are cancelled (each only if nothing else still waits on it). If
 * every one rejects, rejects with the error of the one that rejected last
 * (that same error, not a summary of them; the other rejections count as
 * handled). Inputs already rejected when vow_any is called count as
 * rejecting in array order, before any input that rejects later: if every
 * input had rejected before the call, the error is that of ps[n - 1]. n == 0
 * rejects with VOW_ERROR_EMPTY. Returns +1. Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_any(vow_promise *VOW_NULLABLE const *VOW_NULLABLE ps, size_t n);

/**
 * Makes the promise for input i of vow_when_limited / vow_join_limited and
 * returns it (+1: the library takes the reference), or NULL (that input
 * fails with a VOW_ERROR_TYPE error). A handle of another kind also fails
 * the input with VOW_ERROR_TYPE, with a misuse line, and is left alone: the
 * library releases only what it can tell is a promise, so that reference is
 * still the program's (a make that may return one must keep its own pointer
 * to release it). The result itself, or a promise that leads back to it (a
 * vow_then of it, a promise that follows it), fails the input with
 * VOW_ERROR_CYCLE: the result would wait on itself.
 */
typedef vow_promise *VOW_NULLABLE (*vow_limited_make)(void *VOW_NULLABLE ctx, size_t i);

/**
 * Bounded concurrency (PromiseKit's when(fulfilled:concurrently:)): n
 * inputs, made lazily by make(ctx, i), at most limit of them pending at
 * once. Fulfils with a LIST of their n values in input order (the same
 * handles), or rejects when an input rejects: with an error of that input's
 * domain, code and payload whose message names the input, "input I: " and
 * the input's message (I its index, in decimal), so a program that prints it
 * learns which input failed (the input keeps its own error; a cancellation
 * error stays one). vow_when, whose inputs the caller holds, rejects with
 * that same error instead: the caller can ask each input.
 *
 * make is called with i = 0, 1, ..., n - 1 in that order, each once, one
 * call at a time, on the default dispatcher as it is when this function is
 * called (a vow_set_default_dispatcher made later does not move it), never
 * inside this call: first up to limit calls, then one more each time an
 * input settles. Use vow_when_limited_on to run make on a loop's thread (a
 * libuv program that starts uv_fs_* requests inside make). A NULL from make
 * (or a handle that is not a promise, with a misuse line) fails that input
 * with a VOW_ERROR_TYPE error, as for vow_retry.
 *
 * The first rejection settles the result, stops making inputs and cancels
 * the ones still pending (each only if nothing else still waits on it; their
 * outcomes count as handled). Cancelling the returned promise does the same:
 * no more calls to make, the pending inputs cancelled.
 *
 * destroy runs exactly once, when no call to make can come any more: after
 * the call that made input n - 1 returned, or once the result settled or was
 * cancelled and no call to make is running; on the thread where that
 * happens (the dispatcher's, or the one that settled an input or cancelled
 * the result). n == 0 fulfils with an empty LIST at once (make is never
 * called; destroy runs before this call returns). limit larger than n makes
 * every input at once (still lazily, on the dispatcher). While inputs remain
 * to be made (until the call of make that makes the last one returned), a
 * vow_wait on the result from a job of that (serial) dispatcher, make's own
 * calls included, could never end: it answers VOW_DEADLOCK at once.
 *
 * Returns +1. NULL make returns NULL; limit == 0, or n with the top bit set,
 * is misuse (NULL and a misuse line), also with n == 0: the arguments are
 * checked before anything else, so vow_when_limited(0, 0, ...) is NULL, not
 * an empty LIST. On every failure destroy runs before the call returns and
 * make is never called. Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_when_limited(size_t n, size_t limit, vow_limited_make VOW_NULLABLE make, void *VOW_NULLABLE ctx,
                 void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx));

/**
 * vow_when_limited with make run on d (retained) instead of the default
 * dispatcher. If d drops the job that would call make
 * (a loop shutting down), the result is cancelled. With the inline
 * dispatcher, the first calls to make run inside this call and later ones
 * where an input settles. NULL d returns NULL (destroy runs before the call
 * returns). Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_when_limited_on(vow_dispatcher *VOW_NONNULL d, size_t n, size_t limit, vow_limited_make VOW_NULLABLE make,
                    void *VOW_NULLABLE ctx, void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx))
    VOW_NONNULL_ARGS(1);

/**
 * vow_when_limited that never rejects (vow_join over lazily made inputs):
 * fulfils with a LIST of n entries in input order, each input's value or an
 * ERROR value (vow_value_error) for each rejection, which counts as handled
 * (a NULL from make is an ERROR value holding a VOW_ERROR_TYPE error). A
 * rejection does not stop anything. Cancelling the returned promise stops
 * making inputs and cancels the pending ones, as for vow_when_limited.
 * Everything else (make's calls and thread, destroy, n == 0, limit, failures)
 * as for vow_when_limited. Returns +1. Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_join_limited(size_t n, size_t limit, vow_limited_make VOW_NULLABLE make, void *VOW_NULLABLE ctx,
                 void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx));

/** vow_join_limited with make run on d (see vow_when_limited_on). NULL d returns NULL. Any thread. */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_join_limited_on(vow_dispatcher *VOW_NONNULL d, size_t n, size_t limit, vow_limited_make VOW_NULLABLE make,
                    void *VOW_NULLABLE ctx, void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx))
    VOW_NONNULL_ARGS(1);

/**
 * A promise that fulfils with the NULL value after seconds (zero, negative,
 * -INFINITY: without waiting; +INFINITY: never; NaN: a caller's mistake,
 * treated as 0 and reported with one misuse line on standard error).
 * Cancelling it stops the timer. Returns +1. Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_after(double seconds);

/**
 * Settles like p, unless seconds pass first: then it rejects with
 * VOW_ERROR_TIMEOUT and cancels p (only if nothing else still waits on it).
 * Zero, negative, -INFINITY: the time is up at once (a p already settled
 * may still win); +INFINITY: never times out; NaN: a caller's mistake,
 * treated as 0 and reported with one misuse line on standard error.
 * Once the result settles the timer is stopped and keeps neither p nor the
 * result (nor their value) until its deadline. Returns +1. NULL p returns
 * NULL. Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_timeout(vow_promise *VOW_NONNULL p, double seconds) VOW_NONNULL_ARGS(1);

/**
 * Runs fn(ctx, NULL, out) on d and returns a promise (+1) settled from out.
 * NULL d or fn returns NULL. If this call fails (NULL returned), the
 * callback is never called and destroy (if given) runs before the call
 * returns. destroy runs exactly once: after the callback has run, or as
 * soon as it is certain the callback never will (the returned promise was
 * cancelled first, the dispatcher dropped the job). Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_dispatch(vow_dispatcher *VOW_NONNULL d, vow_on_value VOW_NONNULL fn, void *VOW_NULLABLE ctx,
             void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)) VOW_NONNULL_ARGS(1, 2);

/* ======================================================================
 * Unhandled errors and cancellation
 * ====================================================================== */

/** Called once per unhandled rejection; error is borrowed for the call. */
typedef void (*vow_unhandled_handler)(void *VOW_NULLABLE ctx, const vow_error *VOW_NULLABLE error);

/**
 * Sets the process-wide handler (shared with Swift) called exactly once for
 * each rejection nobody handled, when the last reference to the rejected
 * promise at the end of a chain goes away. It runs on no particular thread
 * (possibly inside that release), never under a library lock. NULL h
 * restores the default (destroy then runs at once), which says nothing for
 * cancellations and writes exactly one line per error to stderr, in one
 * write: `vow: unhandled error: DOMAIN CODE: MESSAGE` (a Swift error:
 * `Type: description`), with control characters escaped (`\n`, `\r`, `\t`, a
 * backslash as `\\`, other bytes below 0x20 and DEL as `\xNN`) and the text cut
 * at 1024 bytes of UTF-8, ending in "…" when cut. The previous handler's
 * destroy runs when it is replaced and no call to it is still running.
 * Any thread.
 */
VOW_EXTERN void
vow_set_unhandled_error_handler(vow_unhandled_handler VOW_NULLABLE h, void *VOW_NULLABLE ctx,
                                void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx));

/*
 * Misuse lines. When a call gets something it cannot use, beyond a plain
 * NULL (answered silently), it answers as for NULL (see "NULL in") and
 * reports one line, by default to stderr in one write. Every line starts
 * with "vow: " and the function's name; the lines are:
 *
 *   vow: FN: expected a TYPE, got a OTHER
 *   vow: FN: expected a TYPE, got a released handle
 *   vow: FN: expected a TYPE, got a pointer that is not a vow handle
 *       A handle of another kind (a vow_value * where a vow_promise * is
 *       expected), one whose last reference was released, or a stray
 *       pointer (detected by a tag the library checks before using a
 *       handle; a freed handle is caught only while its memory was not
 *       reused, and using one is undefined: see Released at the top).
 *       TYPE is vow_promise, vow_resolver, vow_value, vow_error,
 *       vow_dispatcher, vow_trampoline or job. FN is the entry point, or
 *       run(job) for a host dispatcher's run function: a job run or
 *       dropped twice gets "expected a job, got a released handle", a
 *       vow_promise given as a job "expected a job, got a vow_promise".
 *       A Swift job (vow_dispatcher_new) run twice gets "expected a Swift
 *       job, got a released handle"; vow_testing.h adds vow_test_loop.
 *       The call returns as for NULL.
 *   vow: FN: count N is too large
 *       vow_value_bytes, vow_value_list, vow_when, vow_join, vow_race,
 *       vow_any: a count with the top bit set, or more than the address
 *       space after the array holds (N printed as the size_t it was).
 *       vow_when_limited, vow_join_limited and their _on forms: n with the
 *       top bit set. Returns NULL (destroy runs, for the _limited calls).
 *   vow: FN: limit is 0 (at least one promise must be allowed to run)
 *       vow_when_limited, vow_join_limited and their _on forms. Returns
 *       NULL; destroy runs.
 *   vow: FN: unknown policy N
 *       vow_catch_policy, vow_catch_policy_on: a vow_policy that is not one
 *       of the constants (N printed as a signed int). Returns NULL; destroy
 *       runs.
 *   vow: FN: expected the vow_result of a running callback
 *       vow_result_return, vow_result_throw, vow_result_adopt: an out that
 *       is not the one of the callback running on this thread (kept past
 *       its callback, used inside another callback, or from another thread
 *       while its callback runs; see vow_on_value). Does nothing (but
 *       vow_result_adopt still releases the promise it was given).
 *   vow: FN: malformed signature "SIG": PROBLEM
 *   vow: vow_trampoline_new: signature "SIG": PROBLEM
 *       vow_then_call, vow_then_call_on, vow_trampoline_new: a signature
 *       the grammar refuses (too long, unknown code, unbalanced
 *       parentheses, too many parameters, a return code for a trampoline
 *       other than v). Returns NULL; destroy runs.
 *   vow: vow_trampoline_new: libffi could not make a closure (out of memory?)
 *       libffi refused to allocate executable memory. Returns NULL.
 *   vow: FN: the TYPE belongs to another copy of the Vow engine (in FILE),
 *       not to this one (in FILE): ...
 *       The process holds two copies of the engine (a Swift library or
 *       program that linked one of its own next to libvow.so) and a handle
 *       crossed from one to the other; FN may also be
 *       AnyPromise(unsafeHandle:), which answers nil. The call returns as for
 *       NULL. Such a process also gets, once, when the second copy loads and
 *       before any handler can be set, the line "vow: two copies of the Vow
 *       engine are loaded in this process, ...", always on stderr, naming
 *       both files and the fix: Swift code that shares promises with C links
 *       this libvow.so (README, "One engine per process").
 *
 *   vow: vow_uv_fs_open: called off the loop's thread (...)
 *   vow: vow_glib_async: another thread owns d's context (...)
 *   vow: uv_run: returns (nothing keeps the loop alive) while N promises ...
 *       The loop bridges (vow_uv.h, vow_glib.h), through vow_report_misuse:
 *       a call that must be made on the loop's thread made on another one
 *       (any libuv request of vow_uv.h, vow_uv_dispatcher_close); in debug
 *       mode, a libuv loop that ends with promises pending (vow_uv.h,
 *       "Forgetting the hold"). The call goes on as documented.
 *
 * The text after "FN: " is for people; match on the function name if you
 * must. Misuse lines are not errors of the promise machinery: nothing is
 * rejected, and the unhandled-error handler is not called.
 */

/** Receives one misuse line (borrowed for the call, UTF-8, no newline). */
typedef void (*vow_misuse_handler)(void *VOW_NULLABLE ctx, const char *VOW_NULLABLE line);

/**
 * Sets the process-wide misuse handler: each misuse line (see above) goes to
 * h(ctx, line) instead of stderr, on the thread that made the faulty call,
 * inside that call, never under a library lock (h may call the library).
 * To silence the lines, install a handler that does nothing. NULL h
 * restores the default line on stderr (destroy then runs at once). The
 * previous handler's destroy runs when it is replaced and no call to it is
 * still running. Any thread.
 */
VOW_EXTERN void
vow_set_misuse_handler(vow_misuse_handler VOW_NULLABLE h, void *VOW_NULLABLE ctx,
                       void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx));

/**
 * Writes the misuse line "vow: function: message" the way the library writes
 * its own (to the handler set with vow_set_misuse_handler, else to stderr in
 * one write), for a library built on vow.h that checks how its own calls are
 * used: the bridges of vow_uv.h and vow_glib.h report a call made off their
 * loop's thread this way. function names the caller's public function,
 * message says what was wrong (no newline). NULL function or message writes
 * nothing. Any thread, not under a lock the handler may need.
 */
VOW_EXTERN void
vow_report_misuse(const char *VOW_NULLABLE function, const char *VOW_NULLABLE message);

/**
 * Cancels p: if pending, p is rejected with the cancellation error at once
 * (its finally callbacks then run; its value and error callbacks never do).
 * The request travels upstream: a promise p waits on is cancelled once
 * every promise depending on it was cancelled, and at the head the
 * producer's vow_resolver_on_cancel handlers run. A callback already
 * running when p is cancelled runs to its end; a promise it returns
 * (vow_result_adopt, a PROMISE value) is then cancelled under the same rule,
 * unless something else still waits on it. A settled p is left as it is.
 * NULL does nothing. Any thread.
 */
VOW_EXTERN void
vow_cancel(vow_promise *VOW_NULLABLE p);

/* ======================================================================
 * libffi: calling and making C functions at run time
 * ====================================================================== */

/**
 * Signature grammar: a return code, then the parameter codes in
 * parentheses, no spaces ("d(qs)", "v()"). Codes: v void (return only),
 * b bool, i int32_t, q int64_t, d double, f float, s const char * (UTF-8),
 * p void *, V const vow_value *. At most VOW_FFI_MAX_SIGNATURE characters
 * (the NUL not counted) and VOW_FFI_MAX_PARAMETERS parameters (vow_then_call's
 * trailing ctx not counted). Signatures are parsed defensively: too long,
 * unknown codes, unbalanced parentheses, too many parameters give a clear
 * error, never a crash or undefined behaviour.
 */
#define VOW_FFI_MAX_SIGNATURE 256
/** The most parameters a signature may have (vow_then_call's trailing ctx not counted). */
#define VOW_FFI_MAX_PARAMETERS 32

/** Any C function pointer, cast to the type its signature describes when called. */
typedef void (*vow_fnptr)(void);

/**
 * When p fulfils, spreads its value (a LIST, or any other value taken as a
 * list of one; a NULL value given to a signature with no parameters, such as
 * "v()" after vow_after, counts as no arguments) into fn's parameters and
 * calls fn through libffi on the
 * default dispatcher, with ctx as an extra last argument: "d(qs)" is
 * double fn(int64_t, const char *, void *ctx). Arguments: INT -> q, i (if it
 * fits, else a type error), d, f; DOUBLE -> d, f; BOOL -> b; STRING -> s;
 * POINTER -> p; NULL -> p or s (a NULL pointer); any value -> V (borrowed
 * for the call). Returns: v -> NULL value; b -> BOOL; i, q -> INT; d, f ->
 * DOUBLE; s -> STRING (copied, not freed; NULL -> NULL value); p -> POINTER
 * (no destroy); V -> the returned vow_value, whose reference passes to the
 * library (NULL -> NULL value; a handle that is not a vow_value rejects
 * with VOW_ERROR_TYPE and is not released). The result resolves the
 * returned promise (+1) like vow_result_return: a PROMISE value is adopted,
 * a THENABLE assimilated.
 *
 * Counts follow PromiseKit's manifolds for pointer parameters (s, p, V): a
 * parameter past the end of the values (a manifold of one given to
 * "v(VVV)") receives NULL (a NULL pointer, for V too), and values past the
 * last parameter are ignored when every parameter is s, p or V, or there is
 * none (a function that takes fewer arguments than the LIST holds). Scalars
 * (b, i, q, d, f) keep the strict check: a missing scalar, or a value left
 * over beside a scalar parameter, rejects with VOW_ERROR_TYPE ("argument N
 * missing" / "argument N unexpected"), as does a value of the wrong kind
 * (naming its position); fn is not called then. A rejection of p passes
 * through.
 * Parsed signatures are cached (the 32 most recent), so many links with one
 * signature share one prepared libffi call. NULL p, signature or fn, or a
 * malformed signature, returns NULL. If this call fails (NULL returned), the
 * callback is never called and destroy (if given) runs before the call
 * returns. destroy runs exactly once: after the callback has run, or as soon
 * as it is certain the callback never will (the derived promise was
 * cancelled, the source was released unsettled, the dispatcher dropped the
 * job). Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_then_call(vow_promise *VOW_NONNULL p, const char *VOW_NONNULL signature, vow_fnptr VOW_NONNULL fn,
              void *VOW_NULLABLE ctx, void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx))
    VOW_NONNULL_ARGS(1, 2, 3);

/**
 * vow_then_call with fn called on d (retained). NULL d returns NULL. If this
 * call fails (NULL returned), the callback is never called and destroy (if
 * given) runs before the call returns. destroy runs exactly once: after the
 * callback has run, or as soon as it is certain the callback never will (the
 * derived promise was cancelled, the source was released unsettled, the
 * dispatcher dropped the job). Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_then_call_on(vow_dispatcher *VOW_NONNULL d, vow_promise *VOW_NONNULL p,
                 const char *VOW_NONNULL signature, vow_fnptr VOW_NONNULL fn, void *VOW_NULLABLE ctx,
                 void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)) VOW_NONNULL_ARGS(1, 2, 3, 4);

/**
 * Makes a real C function pointer with the signature's parameter list (its
 * return must be v; no ctx is added), for C APIs whose callbacks take no
 * context. Its first call, from any thread, fulfils *promise_out with a
 * LIST of the arguments (b BOOL, i q INT, d f DOUBLE, s STRING copied, p
 * POINTER without destroy, V the value retained; NULL s or V give the NULL
 * value); later calls do nothing. Returns the trampoline and *promise_out,
 * both +1. On failure (NULL signature or promise_out, malformed signature,
 * libffi refusing to allocate a closure's executable memory) returns NULL
 * and sets *promise_out to NULL. Any thread.
 */
VOW_EXTERN vow_trampoline *VOW_NULLABLE
vow_trampoline_new(const char *VOW_NONNULL signature, vow_promise *VOW_NULLABLE *VOW_NONNULL promise_out)
    VOW_NONNULL_ARGS(1, 2);

/**
 * The function pointer of t, to be cast to the type its signature
 * describes; valid until vow_trampoline_release(t). NULL for NULL. Any
 * thread.
 */
VOW_EXTERN vow_fnptr VOW_NULLABLE
vow_trampoline_function(const vow_trampoline *VOW_NULLABLE t);

/**
 * Frees t and its function pointer: calling the pointer afterwards (or while
 * this runs) is undefined behaviour, so release only once no call can come.
 * Released before its first call, t's promise rejects with VOW_ERROR_BROKEN.
 * NULL does nothing. Any thread.
 */
VOW_EXTERN void
vow_trampoline_release(vow_trampoline *VOW_NULLABLE t);

/* ======================================================================
 * Helpers: lazy promises, delay, retry
 *
 * Times are seconds, under the rule of every time-taking call: zero,
 * negative and -INFINITY mean now (no wait); +INFINITY means never; NaN is
 * a caller's mistake, treated as now (nothing hangs on it) and reported
 * with one misuse line on standard error.
 * ====================================================================== */

/**
 * The producer of a lazy promise: settles r (borrowed for the call; retain
 * it with vow_resolver_retain to settle later). Released unused, r rejects
 * the promise with VOW_ERROR_BROKEN.
 */
typedef void (*vow_lazy_body)(void *VOW_NULLABLE ctx, vow_resolver *VOW_NONNULL r);

/**
 * A lazy promise (Hydra's lazy promise): body(ctx, r) runs once, on the
 * default dispatcher, only when the promise is first wanted: a callback is
 * registered on it (vow_then, vow_catch, a combinator, a promise adopting
 * it, ...) or a vow_wait begins. Reading its state does not start it. A
 * promise cancelled before that never runs body. destroy runs exactly once:
 * after body has run, or as soon as it is certain body never will (cancelled
 * first, the promise released unstarted, the dispatcher dropped the start,
 * which cancels the promise). Returns +1; NULL body returns NULL (destroy
 * runs before the call returns). Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_promise_lazy(vow_lazy_body VOW_NULLABLE body, void *VOW_NULLABLE ctx,
                 void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx));

/**
 * vow_promise_lazy with body run on d (retained) instead of the default
 * dispatcher. NULL d or body returns NULL (destroy runs before the call
 * returns). Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_promise_lazy_on(vow_dispatcher *VOW_NULLABLE d, vow_lazy_body VOW_NULLABLE body, void *VOW_NULLABLE ctx,
                    void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx));

/**
 * Settles like p, a pause of seconds after p fulfils (Hydra's defer): the
 * value waits, a rejection passes on at once. Cancelling the result during
 * the pause stops the timer; cancelling it before p settles releases p
 * (cancelled only if nothing else waits on it), as for vow_then. +INFINITY:
 * a value never passes on. Returns +1. NULL p returns NULL. Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_delay(vow_promise *VOW_NULLABLE p, double seconds);

/** Makes one attempt of vow_retry: returns a promise (+1), or NULL. */
typedef vow_promise *VOW_NULLABLE (*vow_retry_make)(void *VOW_NULLABLE ctx);

/** Whether vow_retry tries again after error (borrowed for the call). */
typedef bool (*vow_retry_if)(void *VOW_NULLABLE ctx, const vow_error *VOW_NONNULL error);

/**
 * Calls make(ctx) until its promise fulfils, at most times attempts in all
 * (times < 1 counts as 1), waiting delay_seconds between attempts, and
 * settles like the last attempt. A rejection is retried only if
 * should_retry(ctx, error) returns true (NULL should_retry: every error); a
 * cancellation is never retried. A NULL from make fails that attempt with a
 * VOW_ERROR_TYPE error; the returned promise itself, or a promise that leads
 * back to it, fails it with VOW_ERROR_CYCLE (it would wait on itself). A delay of +INFINITY means the next attempt never
 * comes: the first failure is final. make and should_retry run on the
 * default dispatcher, the first attempt too (never inside this call).
 * Cancelling the returned promise cancels the current attempt and stops
 * further ones. destroy runs exactly once, when no callback can come any
 * more (the returned promise settled and no call is running). Returns +1;
 * NULL make returns NULL (destroy runs before the call returns). Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_retry(int times, double delay_seconds, vow_retry_make VOW_NULLABLE make, vow_retry_if VOW_NULLABLE should_retry,
          void *VOW_NULLABLE ctx, void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx));

VOW_END_DECLS

/* ======================================================================
 * Debug mode: where every promise was made
 *
 * Off by default. On at start-up when the environment has VOW_DEBUG set to
 * anything but empty or "0" (read once, at the first promise made), or with
 * vow_debug_set(true) (the same setting as Swift's VowRuntime.debugMode).
 * Off, making a promise costs one extra load and branch, and every function
 * below reports nothing.
 *
 * On, every promise made records the site of the call that made it and the
 * site of the first promise of its chain (a promise made by vow_then and the
 * other chaining calls inherits its source's chain; any other promise
 * begins one). A promise made by a plain function records the site "C"; a
 * program compiled with VOW_DEBUG_SITES defined before including vow.h
 * calls every function that returns a promise through its _site twin below
 * with __FILE__ and __LINE__, so its promises record "file.c:42" (Vow 0.2
 * named the twins _at: those names still work, deprecated). The sites
 * appear in the default unhandled-error line ("... (dropped at main.c:42,
 * chain began at wordcount.swift:17)"), through vow_unhandled_site in a
 * custom handler, in the broken-promise error's message, and in the census
 * (vow_debug_dump_pending).
 * ====================================================================== */

#include <stdio.h>

VOW_BEGIN_DECLS

/**
 * Turns debug mode on (true) or off (false) for promises made from now on;
 * promises made before keep their records, or stay without. Overrides
 * VOW_DEBUG. Same setting as Swift's VowRuntime.debugMode. Any thread.
 */
VOW_EXTERN void
vow_debug_set(bool on);

/**
 * True when debug mode is on (reading VOW_DEBUG if nothing decided it yet).
 * Any thread.
 */
VOW_EXTERN bool
vow_debug_enabled(void);

/**
 * The census: writes to out one line per promise made in debug mode that is
 * still pending, oldest first, and returns how many it wrote. A line reads
 * "SITE: pending for AGE s, waiting on SITE (chain began at SITE)": where
 * the promise was made, how long it has been pending (seconds, 3 decimals),
 * the site of the promise it waits on (the source of its vow_then, the
 * promise its callback returned and it now follows, the first input of a
 * combinator; "no promise" when it waits on its resolver, a timer or a
 * promise made with debug mode off), and where its chain began. With debug
 * mode never on, or NULL out, writes nothing and returns 0. Safe while
 * other threads make and settle promises (a snapshot). Any thread.
 */
VOW_EXTERN size_t
vow_debug_dump_pending(FILE *VOW_NULLABLE out);

/**
 * Inside an unhandled-error handler (vow_set_unhandled_error_handler): the
 * site of the promise whose rejection is being reported, the one dropped at
 * the end of its branch ("main.c:42", or "C" when made by a plain
 * function). Valid until the handler returns; copy it to keep it. NULL when
 * that promise was made with debug mode off, and outside a handler call.
 * The handler's thread only.
 */
VOW_EXTERN const char *VOW_NULLABLE
vow_unhandled_site(void);

/**
 * Inside an unhandled-error handler: the site of the first promise of the
 * chain the reported promise belongs to (its own site if it began the
 * chain). Valid until the handler returns. NULL when the reported promise
 * was made with debug mode off, and outside a handler call. The handler's
 * thread only.
 */
VOW_EXTERN const char *VOW_NULLABLE
vow_unhandled_chain_site(void);

/*
 * The _site twins: every function that returns a promise it made has a
 * twin of the same name with _site, which takes the caller's file and line
 * first, then the same arguments,
 *
 *     vow_then_site(__FILE__, __LINE__, p, on_value, on_error, ctx, destroy)
 *
 * and is that function, except that it also records file:line (file is
 * copied; NULL file records "C") as the site of the promise it returns when
 * debug mode is on. Everything else (arguments, return, failures, destroy,
 * threads) is as documented for the plain function. Call the twins through
 * the VOW_DEBUG_SITES macros at the end of this header rather than by hand.
 *
 * Deprecated: Vow 0.2 named the twins NAME_at ("_at" reads like item
 * access: vow_value_at). The 0.2 names stay declared and exported for one
 * release, marked deprecated, with the same parameters as their NAME_site,
 * which each calls.
 *
 * VOW_PROMISE_MAKERS(X, X_0_2) is the table they are made from: one row per
 * function that returns a promise it made,
 *
 *     X(name, (parameters), (arguments))
 *
 * with the parameters as the plain function declares them but every pointer
 * VOW_NULLABLE, and the arguments as the parameter names in order. An X_0_2
 * row is a function of Vow 0.2, which also keeps its deprecated _at name; a
 * new function gets an X row. From each row the preprocessor makes the
 * declarations below (and, inside the library, the _at functions), and
 * scripts/generate-promise-makers.sh the VOW_DEBUG_SITES macros at the end
 * of this header and the library's entry points NAME and NAME_site. The
 * test command checks that every function declared here that returns a
 * vow_promise * has a row, except those that return a promise they did not
 * make (vow_promise_retain, vow_value_get_promise, vow_consume), and that
 * the generated text is up to date (Tests/C/header/check_site_twins.sh).
 */
#define VOW_PROMISE_MAKERS(X, X_0_2)                                                                        \
    X_0_2(vow_promise_pending, (vow_resolver *VOW_NULLABLE *VOW_NULLABLE resolver_out), (resolver_out))     \
    X_0_2(vow_promise_fulfilled, (const vow_value *VOW_NULLABLE value), (value))                            \
    X_0_2(vow_promise_rejected, (const vow_error *VOW_NULLABLE error), (error))                             \
    X_0_2(vow_then,                                                                                         \
          (vow_promise *VOW_NULLABLE p, vow_on_value VOW_NULLABLE on_value,                                 \
           vow_on_error VOW_NULLABLE on_error, void *VOW_NULLABLE ctx,                                      \
           void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)),                                           \
          (p, on_value, on_error, ctx, destroy))                                                            \
    X_0_2(vow_then_on,                                                                                      \
          (vow_dispatcher *VOW_NULLABLE d, vow_promise *VOW_NULLABLE p, vow_on_value VOW_NULLABLE on_value, \
           vow_on_error VOW_NULLABLE on_error, void *VOW_NULLABLE ctx,                                      \
           void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)),                                           \
          (d, p, on_value, on_error, ctx, destroy))                                                         \
    X_0_2(vow_catch,                                                                                        \
          (vow_promise *VOW_NULLABLE p, vow_on_error VOW_NULLABLE on_error, void *VOW_NULLABLE ctx,         \
           void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)),                                           \
          (p, on_error, ctx, destroy))                                                                      \
    X_0_2(vow_catch_policy,                                                                                 \
          (vow_promise *VOW_NULLABLE p, vow_policy policy, vow_on_error VOW_NULLABLE on_error,              \
           void *VOW_NULLABLE ctx, void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)),                   \
          (p, policy, on_error, ctx, destroy))                                                              \
    X_0_2(vow_finally,                                                                                      \
          (vow_promise *VOW_NULLABLE p, void (*VOW_NULLABLE fn)(void *VOW_NULLABLE ctx),                    \
           void *VOW_NULLABLE ctx,                                                                          \
           void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)),                                           \
          (p, fn, ctx, destroy))                                                                            \
    X_0_2(vow_catch_on,                                                                                     \
          (vow_dispatcher *VOW_NULLABLE d, vow_promise *VOW_NULLABLE p, vow_on_error VOW_NULLABLE on_error, \
           void *VOW_NULLABLE ctx, void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)),                   \
          (d, p, on_error, ctx, destroy))                                                                   \
    X_0_2(vow_catch_policy_on,                                                                              \
          (vow_dispatcher *VOW_NULLABLE d, vow_promise *VOW_NULLABLE p, vow_policy policy,                  \
           vow_on_error VOW_NULLABLE on_error, void *VOW_NULLABLE ctx,                                      \
           void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)),                                           \
          (d, p, policy, on_error, ctx, destroy))                                                           \
    X_0_2(vow_finally_on,                                                                                   \
          (vow_dispatcher *VOW_NULLABLE d, vow_promise *VOW_NULLABLE p,                                     \
           void (*VOW_NULLABLE fn)(void *VOW_NULLABLE ctx), void *VOW_NULLABLE ctx,                         \
           void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)),                                           \
          (d, p, fn, ctx, destroy))                                                                         \
    X_0_2(vow_when, (vow_promise *VOW_NULLABLE const *VOW_NULLABLE ps, size_t n), (ps, n))                  \
    X_0_2(vow_join, (vow_promise *VOW_NULLABLE const *VOW_NULLABLE ps, size_t n), (ps, n))                  \
    X_0_2(vow_race, (vow_promise *VOW_NULLABLE const *VOW_NULLABLE ps, size_t n), (ps, n))                  \
    X_0_2(vow_any, (vow_promise *VOW_NULLABLE const *VOW_NULLABLE ps, size_t n), (ps, n))                   \
    X_0_2(vow_when_limited,                                                                                 \
          (size_t n, size_t limit, vow_limited_make VOW_NULLABLE make, void *VOW_NULLABLE ctx,              \
           void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)),                                           \
          (n, limit, make, ctx, destroy))                                                                   \
    X_0_2(vow_when_limited_on,                                                                              \
          (vow_dispatcher *VOW_NULLABLE d, size_t n, size_t limit, vow_limited_make VOW_NULLABLE make,      \
           void *VOW_NULLABLE ctx, void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)),                   \
          (d, n, limit, make, ctx, destroy))                                                                \
    X_0_2(vow_join_limited,                                                                                 \
          (size_t n, size_t limit, vow_limited_make VOW_NULLABLE make, void *VOW_NULLABLE ctx,              \
           void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)),                                           \
          (n, limit, make, ctx, destroy))                                                                   \
    X_0_2(vow_join_limited_on,                                                                              \
          (vow_dispatcher *VOW_NULLABLE d, size_t n, size_t limit, vow_limited_make VOW_NULLABLE make,      \
           void *VOW_NULLABLE ctx, void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)),                   \
          (d, n, limit, make, ctx, destroy))                                                                \
    X_0_2(vow_after, (double seconds), (seconds))                                                           \
    X_0_2(vow_timeout, (vow_promise *VOW_NULLABLE p, double seconds), (p, seconds))                         \
    X_0_2(vow_dispatch,                                                                                     \
          (vow_dispatcher *VOW_NULLABLE d, vow_on_value VOW_NULLABLE fn, void *VOW_NULLABLE ctx,            \
           void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)),                                           \
          (d, fn, ctx, destroy))                                                                            \
    X_0_2(vow_then_call,                                                                                    \
          (vow_promise *VOW_NULLABLE p, const char *VOW_NULLABLE signature, vow_fnptr VOW_NULLABLE fn,      \
           void *VOW_NULLABLE ctx, void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)),                   \
          (p, signature, fn, ctx, destroy))                                                                 \
    X_0_2(vow_then_call_on,                                                                                 \
          (vow_dispatcher *VOW_NULLABLE d, vow_promise *VOW_NULLABLE p, const char *VOW_NULLABLE signature, \
           vow_fnptr VOW_NULLABLE fn, void *VOW_NULLABLE ctx,                                               \
           void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)),                                           \
          (d, p, signature, fn, ctx, destroy))                                                              \
    X_0_2(vow_promise_lazy,                                                                                 \
          (vow_lazy_body VOW_NULLABLE body, void *VOW_NULLABLE ctx,                                         \
           void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)),                                           \
          (body, ctx, destroy))                                                                             \
    X_0_2(vow_promise_lazy_on,                                                                              \
          (vow_dispatcher *VOW_NULLABLE d, vow_lazy_body VOW_NULLABLE body, void *VOW_NULLABLE ctx,         \
           void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)),                                           \
          (d, body, ctx, destroy))                                                                          \
    X_0_2(vow_delay, (vow_promise *VOW_NULLABLE p, double seconds), (p, seconds))                           \
    X_0_2(vow_retry,                                                                                        \
          (int times, double delay_seconds, vow_retry_make VOW_NULLABLE make,                               \
           vow_retry_if VOW_NULLABLE should_retry, void *VOW_NULLABLE ctx,                                  \
           void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)),                                           \
          (times, delay_seconds, make, should_retry, ctx, destroy))                                         \
    /* (every row ends with a backslash; the table ends here) */

/* What the rows expand to here (and VOW_SITE_UNPAREN_ opens a parenthesized list). */
#define VOW_SITE_UNPAREN_(...) __VA_ARGS__
#if defined(__GNUC__) || defined(__clang__)
#  define VOW_SITE_DEPRECATED_(message) __attribute__((deprecated(message)))
#else
#  define VOW_SITE_DEPRECATED_(message)
#endif
#define VOW_DECLARE_SITE_TWIN_(name, parameters, arguments)                                                 \
    VOW_EXTERN vow_promise *VOW_NULLABLE name##_site(const char *VOW_NULLABLE site_file, int site_line,      \
                                                     VOW_SITE_UNPAREN_ parameters);
#define VOW_DECLARE_AT_NAME_(name, parameters, arguments)                                                   \
    VOW_EXTERN vow_promise *VOW_NULLABLE name##_at(const char *VOW_NULLABLE site_file, int site_line,        \
                                                   VOW_SITE_UNPAREN_ parameters)                             \
        VOW_SITE_DEPRECATED_("use " #name "_site (the same arguments)");
#define VOW_NO_AT_NAME_(name, parameters, arguments)

VOW_PROMISE_MAKERS(VOW_DECLARE_SITE_TWIN_, VOW_DECLARE_SITE_TWIN_)
VOW_PROMISE_MAKERS(VOW_NO_AT_NAME_, VOW_DECLARE_AT_NAME_)

VOW_END_DECLS

/*
 * VOW_DEBUG_SITES: defined before including vow.h, every call below passes
 * its __FILE__ and __LINE__ to the _site twin. The macros are function-like,
 * so a name not followed by "(" (a function pointer: &vow_then, or vow_then
 * passed as an argument) still names the plain function, and
 * (vow_then)(p, ...) calls it without the site.
 */
/* BEGIN generated by scripts/generate-promise-makers.sh from VOW_PROMISE_MAKERS: do not edit */
#ifdef VOW_DEBUG_SITES
#  define vow_promise_pending(...)   vow_promise_pending_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_promise_fulfilled(...) vow_promise_fulfilled_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_promise_rejected(...)  vow_promise_rejected_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_then(...)              vow_then_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_then_on(...)           vow_then_on_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_catch(...)             vow_catch_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_catch_policy(...)      vow_catch_policy_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_finally(...)           vow_finally_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_catch_on(...)          vow_catch_on_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_catch_policy_on(...)   vow_catch_policy_on_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_finally_on(...)        vow_finally_on_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_when(...)              vow_when_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_join(...)              vow_join_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_race(...)              vow_race_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_any(...)               vow_any_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_when_limited(...)      vow_when_limited_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_when_limited_on(...)   vow_when_limited_on_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_join_limited(...)      vow_join_limited_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_join_limited_on(...)   vow_join_limited_on_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_after(...)             vow_after_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_timeout(...)           vow_timeout_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_dispatch(...)          vow_dispatch_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_then_call(...)         vow_then_call_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_then_call_on(...)      vow_then_call_on_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_promise_lazy(...)      vow_promise_lazy_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_promise_lazy_on(...)   vow_promise_lazy_on_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_delay(...)             vow_delay_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_retry(...)             vow_retry_site(__FILE__, __LINE__, __VA_ARGS__)
#endif
/* END generated */

#endif /* VOW_H */
