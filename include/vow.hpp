/*
 * vow.hpp: the C++ face of Vow, header-only, over vow.h.
 *
 * The same promises as vow.h and Swift's Promise<T>: a chain may start in C++,
 * pass through Swift or C and end in C++. C++17; the coroutine and
 * std::stop_token parts need C++20 (they are compiled in when the compiler and
 * standard library have them: VOW_HPP_COROUTINES, VOW_HPP_STOP_TOKEN). Builds
 * with and without exceptions (VOW_HPP_EXCEPTIONS says which). Link with
 * libvow.so, found by the same `pkg-config vow` as vow.h.
 *
 *     auto [p, r] = vow::promise<int>::pending();
 *     vow::promise<std::string> s = p.then([](int x) { return x * 2; })
 *                                    .then([](int x) { return std::to_string(x); });
 *     r.resolve(21);
 *     std::string text = s.get();                   // "42" (blocks; throws on error)
 *
 * This file is the interface, a list of declarations with their rules; the
 * definitions are in vow/vow-inl.hpp and the internals (namespace vow::detail:
 * conversions, callback links, awaiters) in vow/detail.hpp, both included at
 * the end of this file and installed beside it (folly's Future.h and
 * Future-inl.h). Include vow.hpp only.
 *
 * Handles   vow::promise<T>, vow::resolver<T>, vow::value, vow::error and
 *           vow::dispatcher each own one reference to a C handle (all five are
 *           a vow::basic_handle): a copy is a retain, a move is free (the
 *           source is left empty, and a move assignment lets go of what the
 *           target held at once), the destructor releases. adopt(h) takes over
 *           the caller's reference, borrow(h) adds one, handle() lends the
 *           handle (still owned by the object), release_handle() gives the
 *           reference to the caller (+1, the object is left empty). An empty
 *           object (default-constructed, moved from, or the result of a call
 *           that failed on an empty one) is answered like NULL in vow.h:
 *           chaining on it returns an empty promise, get() throws a vow::error
 *           in domain "c++" with code vow::cxx_no_handle. No destructor
 *           recurses: dropping a chain of any length is a loop in the library.
 * Types     T is void, bool, an integer type (not the character types), float,
 *           double, std::string (UTF-8: invalid sequences become U+FFFD, as in
 *           vow_value_string), std::vector<std::uint8_t> (BYTES),
 *           std::vector<U> or std::tuple<U...> of these (LISTs), or vow::value
 *           (any value, untouched). A vow::promise<T> is a typed view of an
 *           untyped promise: the value is converted when C++ reads it, and a
 *           value of another kind (or an integer out of T's range) rejects the
 *           reading step with the library's type error (domain "vow", code
 *           VOW_ERROR_TYPE, message "expected int32_t, found STRING"). A value
 *           with no vow form (a uint64_t above INT64_MAX, a std::string with a
 *           NUL byte) rejects the step that made it the same way. promise<void>
 *           ignores the value. Swift reads these as Int, Double, String,
 *           [UInt8], arrays and tuples, and C++ reads Swift's the same way.
 *
 * Where continuations run. Every callback given to then, recover and finally,
 * every cancel handler of a resolver, and every coroutine resumed by co_await
 * runs on the default dispatcher as it is when the call is made (the library's
 * own serial queue unless the program replaced it with
 * vow::dispatcher::set_default or vow_set_default_dispatcher; never the main
 * queue; for r.on_cancel(f), as it is when the cancellation arrives, as
 * vow_resolver_on_cancel says), unless a dispatcher is given first: then(d, f),
 * recover(d, f), finally(d, f), on_cancel(d, f), async(d, f),
 * co_await p.resume_on(d). It never runs inline in the call that registered it
 * nor in the call that settled the promise, unless the dispatcher given is
 * vow::dispatcher::inline_(), and never while the library holds a lock.
 * Callbacks of one promise run in the order they were attached. This is
 * vow.h's rule, unchanged: the C++ calls are the C calls (vow_then,
 * vow_then_on, vow_catch_policy, vow_finally, ...). The one shortcut is a
 * plain `co_await p` on a p that has settled already: the coroutine does not
 * suspend and goes on at once on its own thread (as folly and cppcoro await a
 * ready future). `co_await p.resume_on(d)` has no shortcut: the coroutine
 * always resumes on d, whatever p's state (also for an empty p, with the
 * cxx_no_handle error), except with d = inline_(), where a settled p goes on
 * at once as any inline callback would.
 *
 * Callbacks  then(f): f takes T (nothing for void) and returns U, a
 *           vow::promise<U> (adopted: the derived promise follows it),
 *           vow::result<U>, or nothing (promise<void>). A const char * or a
 *           std::string_view result makes a promise<std::string>. Errors pass
 *           through a then. recover(f): f takes const vow::error& (or
 *           std::exception_ptr: the original C++ exception, see Exceptions) and
 *           returns T, a promise<T> or a result<T>; like vow_catch it does not
 *           see cancellation unless asked with vow::catch_policy::all_errors.
 *           finally(f): f takes and returns nothing and runs whatever the
 *           outcome (also when the derived promise is cancelled); the derived
 *           promise settles like the source once f has run. f is moved into
 *           the link; it is destroyed, on whatever thread, once it ran or once
 *           it is certain it never will (vow.h's destroy rule).
 * Exceptions A callback that throws rejects the promise it derives. A thrown
 *           vow::error travels as that error: domain, code, message and payload
 *           are kept across C and Swift. Any other exception becomes an error in
 *           domain "c++", code vow::cxx_exception, its what() as the message
 *           ("unknown C++ exception" for one not derived from std::exception),
 *           whose payload keeps the original std::exception_ptr: wherever the
 *           error arrives in C++ again (get(), co_await, result::value(),
 *           error::rethrow()), even after passing through C or Swift, the
 *           original exception is thrown, so `catch (const std::out_of_range&)`
 *           further down the chain works. (The payload is marked with the address
 *           of an inline variable of this header: in a program whose shared
 *           libraries each hide their symbols, an exception is recognized by the
 *           library that threw it; elsewhere it arrives as the vow::error.)
 *           Errors made in C or Swift arrive as vow::error. A finally or
 *           on_cancel callback must not throw (it has no promise to reject):
 *           an exception escaping it calls std::terminate, as from a
 *           destructor.
 * No exceptions  Compiled with -fno-exceptions, callbacks report errors by
 *           returning a vow::result<U> holding a vow::error (or a rejected
 *           promise); errors are read with try_get(), co_await p.try_await()
 *           and result<T>'s has_value() / error(). get(), result::value() and
 *           co_await p, which would throw, write the error to standard error
 *           and abort instead.
 * Cancellation p.cancel() is vow_cancel: the promise rejects with the
 *           cancellation error at once and the request travels upstream. With
 *           C++20 a std::stop_token can be passed to then (cancels the derived
 *           promise), get and with_stop (a promise that settles like p and that
 *           a stop request cancels; co_await p.with_stop(token)). Cancellation
 *           arrives in C++ as a vow::error whose is_cancelled() is true.
 * Sites     In debug mode (vow_debug_set(true) or VOW_DEBUG=1; vow.h, "Debug
 *           mode") a promise records where it was made. As in C, a program
 *           compiled with VOW_DEBUG_SITES defined (before vow.hpp) records its
 *           own lines, here with no macro around the C++ calls: every call that
 *           makes a promise takes a last parameter `vow::site where` whose
 *           default, VOW_HPP_CALLER_SITE, is then the caller's file and line
 *           (std::source_location in C++20; the compiler's __builtin_FILE and
 *           __builtin_LINE in C++17, with g++ and clang++; VOW_HPP_SITES says
 *           1), and the call goes through vow.h's _site twin, so the
 *           unhandled-error line, vow_unhandled_site and the census read
 *           "main.cpp:42". The promise of a coroutine records the coroutine's
 *           own site (its first or last line, as the compiler places it), as
 *           does the link of a plain `co_await p` inside it; resume_on and
 *           try_await record the line of the await. The variadic when_all, race
 *           and any (a parameter pack leaves no room for a defaulted parameter)
 *           record "C", as does everything without VOW_DEBUG_SITES: then the
 *           default is the empty site and the plain vow.h call is made, which
 *           costs nothing (two arguments less than a _site twin). A wrapper may
 *           pass its own caller's site on: `p.then(f, where)`. Define
 *           VOW_DEBUG_SITES alike in every file of a program (the default
 *           argument is part of the class definitions, which C++'s
 *           one-definition rule wants the same everywhere).
 * Threads   Every call may be made from any thread. One object is not safe to
 *           assign on one thread while another thread uses it (like
 *           std::shared_ptr); distinct copies of one promise are.
 * Memory    A then link costs what vow_then costs (one allocation), plus one
 *           allocation for the callback's captures when they do not fit in a
 *           pointer or are not trivially copyable (a lambda capturing nothing,
 *           or one pointer or integer, is kept inside the link's context word
 *           and costs nothing). A callback that returns the bool, integer or
 *           double it received, unchanged, passes the same vow_value on; the
 *           bools and the integers from -128 to 1023 are boxed once per process
 *           and shared; any other result is one new value, as in C.
 */
#ifndef VOW_HPP
#define VOW_HPP

#include "vow.h"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <initializer_list>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#if __cplusplus >= 202002L && defined(__has_include)
#  if __has_include(<version>)
#    include <version>
#  endif
#endif
/** 1 when the coroutine support (co_await on promises, coroutines returning vow::promise<T>) is compiled in. */
#if defined(__cpp_impl_coroutine) && defined(__cpp_lib_coroutine)
#  include <coroutine>
#  define VOW_HPP_COROUTINES 1
#endif
/** 1 when the std::stop_token overloads are compiled in. */
#if defined(__cpp_lib_jthread)
#  include <stop_token>
#  define VOW_HPP_STOP_TOKEN 1
#endif
/** 1 when exceptions are on (callbacks may throw; get() throws). */
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#  define VOW_HPP_EXCEPTIONS 1
#endif

/**
 * @def VOW_HPP_CALLER_SITE
 * The default argument of every `vow::site where` parameter (see Sites above).
 * With VOW_DEBUG_SITES defined before vow.hpp is included, the caller's file
 * and line: std::source_location::current() where the library has it (C++20),
 * the compiler's __builtin_FILE() and __builtin_LINE() otherwise (g++ and
 * clang++, also in C++17); else, and without VOW_DEBUG_SITES, the empty site
 * ("C"). VOW_HPP_SITES is 1 when it names the caller.
 */
/**
 * @def VOW_HPP_SITES
 * 1 when VOW_HPP_CALLER_SITE names the caller (VOW_DEBUG_SITES is defined and
 * the compiler has std::source_location or __builtin_FILE()); 0 when every
 * call records the empty site ("C"), as without VOW_DEBUG_SITES.
 */
#if defined(__cpp_lib_source_location)
#  include <source_location>
#endif
#if defined(VOW_DEBUG_SITES) && defined(__cpp_lib_source_location)
#  define VOW_HPP_CALLER_SITE ::std::source_location::current()
#  define VOW_HPP_SITES 1
#elif defined(VOW_DEBUG_SITES) && (defined(__GNUC__) || defined(__clang__))
#  define VOW_HPP_CALLER_SITE ::vow::site(__builtin_FILE(), __builtin_LINE())
#  define VOW_HPP_SITES 1
#else
#  define VOW_HPP_CALLER_SITE ::vow::site()
#  define VOW_HPP_SITES 0
#endif

namespace vow {

class site;
class value;
class error;
class dispatcher;
template <class T> class promise;
template <class T> class resolver;
template <class T> class result;

/** A promise's state (vow_promise_state); invalid for an empty promise. */
enum class state {
    invalid = VOW_STATE_INVALID,
    pending = VOW_PENDING,
    fulfilled = VOW_FULFILLED,
    rejected = VOW_REJECTED,
};

/** Which errors recover sees (vow_policy). */
enum class catch_policy {
    all_except_cancellation = VOW_CATCH_ALL_EXCEPT_CANCELLATION, /**< the default: cancellation passes through */
    all_errors = VOW_CATCH_ALL_ERRORS,                           /**< cancellation included */
};

/** The domain of the errors this header makes itself. */
inline constexpr const char *cxx_domain = "c++";

/** Codes of the errors in domain "c++". */
enum cxx_error_code : std::int64_t {
    cxx_exception = 1, /**< a C++ exception escaped a callback; the payload keeps it (see Exceptions) */
    cxx_no_handle = 2, /**< an empty vow::promise or vow::resolver was used */
};

/* The few internals the declarations below name (the rest is in vow/detail.hpp). */
namespace detail {
template <class T> struct is_promise : std::false_type {};
template <class T> struct is_promise<promise<T>> : std::true_type {};
template <class T> inline constexpr bool is_promise_v = is_promise<T>::value;
/** What a promise<T> holds in a tuple or a vector: std::monostate for void. */
template <class T> using element_t = std::conditional_t<std::is_void_v<T>, std::monostate, T>;
/** What when_all over a vector of promise<T> gives: a vector, or void. */
template <class T> using vector_of_t = std::conditional_t<std::is_void_v<T>, void, std::vector<element_t<T>>>;
#if VOW_HPP_COROUTINES
template <class T> struct coroutine_promise;
template <class T, bool Try> class awaiter;
template <class T> class awaitable;
#endif
} // namespace detail

/* ======================================================================
 * vow::site: where a promise was made
 * ====================================================================== */

/**
 * A file and a line, recorded by a promise made in debug mode (see Sites).
 * The empty site (no file) records "C". file is not copied here: it must
 * outlive the call it is passed to (a string literal, __FILE__ or a
 * std::source_location's file_name() do); the library copies it. A value
 * type; any thread.
 */
class site {
public:
    /** The empty site: the library records "C". */
    constexpr site() noexcept = default;
    /** file:line (file may be nullptr: the empty site). */
    constexpr site(const char *file, int line) noexcept;
#if defined(__cpp_lib_source_location)
    /** The file and line of where (implicit: VOW_HPP_CALLER_SITE is std::source_location::current()). */
    constexpr site(const std::source_location &where) noexcept;
#endif
    /** The file, or nullptr for the empty site. */
    constexpr const char *file() const noexcept;
    /** The line (0 for the empty site). */
    constexpr int line() const noexcept;

private:
    const char *file_ = nullptr;
    int line_ = 0;
};

/* ======================================================================
 * vow::basic_handle: one reference to a vow.h object
 * ====================================================================== */

/**
 * What vow::value, vow::error, vow::dispatcher, vow::promise<T> and
 * vow::resolver<T> share (a CRTP base, as uvw builds its handles on one): an
 * object of Derived owns one reference to a C object of type C (vow_value,
 * vow_error, ...), or none (empty). A copy retains; a move is free and leaves
 * the source empty; an assignment takes the new reference first and lets go of
 * the old one last (a destroy, an unhandled-error report or a broken-promise
 * rejection that this release causes sees the assigned object already), so
 * self-assignment and self-move keep the handle; the destructor releases.
 * handle() lends a Lent (const for the immutable values and errors). The
 * built-in dispatchers are not reference-counted (vow_dispatcher_release
 * ignores them): copies of those touch no counter. Not safe to assign on one
 * thread while another uses the same object; distinct copies are.
 */
template <class Derived, class C, class Lent = C *>
class basic_handle {
public:
    /** An object that takes over the caller's reference to h (+1); nullptr gives an empty one. */
    static Derived adopt(C *h) noexcept;
    /** An object with a reference of its own to h (h is borrowed); nullptr gives an empty one. */
    static Derived borrow(Lent h) noexcept;
    /** The handle, still owned by this object (nullptr when empty). */
    Lent handle() const noexcept;
    /** The reference, given to the caller (+1; nullptr when empty); this object is left empty. */
    C *release_handle() noexcept;
    /** Whether this object holds a handle. */
    explicit operator bool() const noexcept;

protected:
    /** An empty object (no handle). */
    basic_handle() noexcept = default;
    /** An object that takes over the reference h (adopt(h) calls this; nullptr gives an empty one). */
    explicit basic_handle(C *h) noexcept;
    /*
     * Derived's copy and move operations are its implicit ones, which call
     * these four. An empty other gives an empty object.
     */
    /** A copy: a reference of its own to other's handle (a built-in dispatcher's: no count). */
    basic_handle(const basic_handle &other) noexcept;
    /** A move: takes over other's reference and leaves other empty. */
    basic_handle(basic_handle &&other) noexcept;
    /** Retains other's handle, then releases the one this object held (self-assignment keeps it). */
    basic_handle &operator=(const basic_handle &other) noexcept;
    /** Takes over other's reference, leaving other empty, then releases the one this object held (self-move keeps it). */
    basic_handle &operator=(basic_handle &&other) noexcept;
    /** Releases the reference this object holds; an empty object makes no call. */
    ~basic_handle();

    /** The owned reference (nullptr when empty). */
    C *h_ = nullptr;
};

/* ======================================================================
 * vow::value: an owning vow_value handle
 * ====================================================================== */

/**
 * An owning reference to an immutable vow_value (any kind). Empty when
 * default-constructed or moved from; an empty value reads as the NULL value
 * where a value is needed. Copies share the handle (basic_handle). Any
 * thread.
 */
class value : public basic_handle<value, vow_value, const vow_value *> {
public:
    /** An empty value (no handle). */
    value() noexcept = default;

    /** The NULL value (kind VOW_KIND_NULL). */
    static value null() noexcept;
    /** A POINTER value holding p; destroy(p) runs once when the last reference goes. */
    static value pointer(void *p, void (*destroy)(void *) = nullptr) noexcept;
    /** x as a value (see Types); a vow::error (thrown, or fail()) if x has no vow form. */
    template <class T> static value of(const T &x);
    /** x as a value, or the type error saying why it has none. */
    template <class T> static result<value> try_of(const T &x);

    /** The kind; VOW_KIND_INVALID when empty. */
    vow_kind kind() const noexcept;
    /** The item count of a LIST; 0 otherwise. */
    std::size_t size() const noexcept;
    /** Item i of a LIST (empty if out of range or not a LIST). */
    value operator[](std::size_t i) const noexcept;

    /** The value as T, or the type error (thrown, or fail()). */
    template <class T> T get() const;
    /** The value as T, or the type error. */
    template <class T> result<T> try_get() const;

private:
    using basic_handle::basic_handle;
};

/* ======================================================================
 * vow::error: the exception type, an owning vow_error handle
 * ====================================================================== */

/**
 * A rejection reason: domain, code, message and optional payload, the same
 * object C sees as vow_error and Swift as its Error. Thrown by get() and
 * co_await for an error made anywhere but in C++ (a C++ exception that
 * travelled as an error is rethrown as itself; see rethrow()). Thrown from a
 * callback, it rejects the derived promise with exactly this error. Copies
 * share the handle (basic_handle). Any thread.
 */
class error : public std::exception, public basic_handle<error, vow_error, const vow_error *> {
public:
    /** An empty error (no handle): what() and domain() are "", code() is 0. */
    error() noexcept = default;
    /** A new error; domain (nullptr reads as "") and message are copied. */
    error(const char *domain, std::int64_t code, const char *message = "") noexcept;
    /** A new error; domain and message are copied. */
    error(const std::string &domain, std::int64_t code, const std::string &message) noexcept;
    /** A new error with a payload value (retained; an empty payload means none). */
    error(const std::string &domain, std::int64_t code, const std::string &message, const value &payload) noexcept;

    /** The cancellation error (domain "vow", VOW_ERROR_CANCELLED). */
    static error cancelled() noexcept;
#if VOW_HPP_EXCEPTIONS
    /**
     * The error an exception travels as: a vow::error is itself; any other
     * exception a "c++" error (code cxx_exception, its what() as message) that
     * keeps it. A null exception_ptr gives an empty error.
     */
    static error from_exception(std::exception_ptr exception) noexcept;
#endif

    /** The message (UTF-8); "" for an empty error. */
    const char *what() const noexcept override;
    /** The domain; "" for an empty error. */
    const char *domain() const noexcept;
    /** The code (0 for an empty error). */
    std::int64_t code() const noexcept;
    /** The message; the same as what(). */
    const char *message() const noexcept;
    /** The payload (empty if none). */
    value payload() const noexcept;
    /** Whether this is cancellation (vow_error_is_cancelled). */
    bool is_cancelled() const noexcept;
    /** Whether domain and code are these: e.is("vow", VOW_ERROR_TIMEOUT). False for an empty error. */
    bool is(const char *domain, std::int64_t code) const noexcept;
    /** The C++ exception this error carries (domain "c++"), or a null exception_ptr. */
    std::exception_ptr exception() const noexcept;
#if VOW_HPP_EXCEPTIONS
    /** Throws the C++ exception this error carries, or else this error. */
    [[noreturn]] void rethrow() const;
    /** exception() if there is one, else this error as an exception_ptr. */
    std::exception_ptr as_exception_ptr() const;
#endif

private:
    using basic_handle::basic_handle;
};

/* ======================================================================
 * vow::result<T>: a value or an error (std::expected's shape)
 * ====================================================================== */

/**
 * Holds a T or a vow::error: what try_get() and co_await p.try_await() give,
 * and what a callback may return to reject without throwing. value() and
 * operator* on an error throw it (its original exception, if any), or abort
 * without exceptions. Not synchronized: one thread at a time, like any value.
 */
template <class T>
class result {
public:
    /** The type of the value. */
    using value_type = T;

    /** A result holding v. */
    result(T v);
    /** A result holding the error e. */
    result(vow::error e) noexcept;

    /** Whether it holds a value. */
    bool has_value() const noexcept;
    /** Whether it holds a value. */
    explicit operator bool() const noexcept;

    /** The value; on an error, throws it (or aborts without exceptions). */
    T &value() &;
    /** The value; on an error, throws it (or aborts without exceptions). */
    const T &value() const &;
    /** The value, moved out; on an error, throws it (or aborts without exceptions). */
    T &&value() &&;
    /** value(). */
    T &operator*() &;
    /** value(). */
    const T &operator*() const &;
    /** value(), moved out. */
    T &&operator*() &&;
    /** &value(). */
    T *operator->();
    /** &value(). */
    const T *operator->() const;
    /** The value, or fallback (converted to T) on an error. */
    template <class U> T value_or(U &&fallback) const &;
    /** The value moved out, or fallback (converted to T) on an error. */
    template <class U> T value_or(U &&fallback) &&;

    /** The error (empty when this holds a value). */
    const vow::error &error() const noexcept;

private:
    void check() const;
    std::optional<T> value_;
    vow::error error_;
};

/** result<void>: success, or a vow::error. */
template <>
class result<void> {
public:
    /** void. */
    using value_type = void;

    /** Success. */
    result() noexcept = default;
    /** The error e. */
    result(vow::error e) noexcept;

    /** Whether it is a success. */
    bool has_value() const noexcept;
    /** Whether it is a success. */
    explicit operator bool() const noexcept;
    /** Nothing on success; on an error, throws it (or aborts without exceptions). */
    void value() const;
    /** value(). */
    void operator*() const;
    /** The error (empty on success). */
    const vow::error &error() const noexcept;

private:
    bool ok_ = true;
    vow::error error_;
};

/* ======================================================================
 * vow::dispatcher: where callbacks run
 * ====================================================================== */

/**
 * A vow_dispatcher: the three built-in ones, the default, or a host's own
 * (adopt a handle from vow_dispatcher_new, vow_dispatcher_new_with_timers,
 * vow_uv_dispatcher_new, vow_glib_dispatcher_new: a host's loop is C
 * callbacks with a context, which C++ passes as they are, so there is no
 * wrapper of its own). The built-in ones live as long as the process and
 * are not reference-counted; any other is retained by each copy
 * (basic_handle). Any thread.
 */
class dispatcher : public basic_handle<dispatcher, vow_dispatcher> {
public:
    /** An empty dispatcher (no handle), like a moved-from one: a call given it answers like vow.h given NULL. */
    dispatcher() noexcept = default;

    /** Callbacks run where the promise settles (inside the settling call), never under a lock. */
    static dispatcher inline_() noexcept;
    /** The library's concurrent pool. */
    static dispatcher background() noexcept;
    /** The default dispatcher as it is now (retained: a later set_default does not change this object). */
    static dispatcher default_() noexcept;
    /** Makes d the default for C, C++ and Swift (vow_set_default_dispatcher). */
    static void set_default(const dispatcher &d) noexcept;
    /** Restores the library's own serial queue as the default. */
    static void reset_default() noexcept;

    /** Whether a and b are the same dispatcher (the same handle). */
    friend bool operator==(const dispatcher &a, const dispatcher &b) noexcept;
    /** Whether a and b are different dispatchers. */
    friend bool operator!=(const dispatcher &a, const dispatcher &b) noexcept;

private:
    using basic_handle::basic_handle;
};

/* ======================================================================
 * vow::promise<T>
 * ====================================================================== */

/**
 * A reference to a promise of a T (see Types). Copyable (a copy is a retain),
 * movable (free), the destructor releases (basic_handle); releasing never
 * unregisters a callback. Also a coroutine type: a function returning
 * vow::promise<T> may co_await and co_return (C++20; it starts at once, and its
 * promise settles at co_return or with the exception that escapes it;
 * cancelling that promise does not stop the coroutine's body: give it a
 * std::stop_token and co_await p.with_stop(token) inside). Every call that
 * makes a promise takes the caller's site last (see Sites). Any thread.
 */
template <class T>
class promise : public basic_handle<promise<T>, vow_promise> {
public:
    /** The type of the value (void for promise<void>). */
    using value_type = T;
#if VOW_HPP_COROUTINES
    /** What makes a function returning vow::promise<T> a coroutine. */
    using promise_type = detail::coroutine_promise<T>;
#endif

    /** An empty promise (no handle). */
    promise() noexcept = default;

    /** A pending promise and the resolver that settles it: `auto [p, r] = promise<int>::pending();`. */
    static std::pair<promise, resolver<T>> pending(site where = VOW_HPP_CALLER_SITE) noexcept;
    /** A promise fulfilled with x (rejected with the type error if x has no vow form). */
    template <class U = T, class = std::enable_if_t<!std::is_void_v<U>>>
    static promise fulfilled(const detail::element_t<U> &x, site where = VOW_HPP_CALLER_SITE);
    /** promise<void>: a promise already fulfilled. */
    template <class U = T, class = std::enable_if_t<std::is_void_v<U>>>
    static promise fulfilled(site where = VOW_HPP_CALLER_SITE) noexcept;
    /** A promise rejected with e (an empty e rejects with the cxx_no_handle error). */
    static promise rejected(const error &e, site where = VOW_HPP_CALLER_SITE) noexcept;
#if VOW_HPP_EXCEPTIONS
    /** A promise rejected with the error exception travels as (see Exceptions). */
    static promise rejected(std::exception_ptr exception, site where = VOW_HPP_CALLER_SITE) noexcept;
#endif

    /** The same promise read as a U (no new link; checked when read). */
    template <class U> promise<U> as() const noexcept;

    /** Whether this object holds a promise (the same as operator bool). */
    bool valid() const noexcept;
    /** The state; state::invalid when empty. */
    vow::state state() const noexcept;
    /** Whether pending (false when empty). */
    bool is_pending() const noexcept;
    /** Whether fulfilled (false when empty). */
    bool is_fulfilled() const noexcept;
    /** Whether rejected, cancellation included (false when empty). */
    bool is_rejected() const noexcept;
    /** Whether it rejected with cancellation (vow_promise_is_cancelled). */
    bool is_cancelled() const noexcept;

    /**
     * A promise of f's result once this one fulfils: f(T) runs on the default
     * dispatcher (f() for promise<void>); an error passes through. Returns a
     * `promise<U>`, U as Callbacks says.
     */
    template <class F> auto then(F &&f, site where = VOW_HPP_CALLER_SITE) const;
    /** then(f) with f run on d. */
    template <class F> auto then(const dispatcher &d, F &&f, site where = VOW_HPP_CALLER_SITE) const;

    /**
     * A promise that settles like this one, or from f(error) if this one
     * rejects: f runs on the default dispatcher, for every error except
     * cancellation unless policy is catch_policy::all_errors.
     */
    template <class F>
    promise recover(F &&f, catch_policy policy = catch_policy::all_except_cancellation,
                    site where = VOW_HPP_CALLER_SITE) const;
    /** recover(f, policy) with f run on d. */
    template <class F>
    promise recover(const dispatcher &d, F &&f, catch_policy policy = catch_policy::all_except_cancellation,
                    site where = VOW_HPP_CALLER_SITE) const;

    /** f() once this settles, whatever happened, on the default dispatcher; settles like this one. */
    template <class F> promise finally(F &&f, site where = VOW_HPP_CALLER_SITE) const;
    /** finally(f) with f run on d. */
    template <class F> promise finally(const dispatcher &d, F &&f, site where = VOW_HPP_CALLER_SITE) const;

    /** vow_cancel: rejects at once with the cancellation error if pending; travels upstream. */
    void cancel() const noexcept;

    /** Blocks until settled; returns the value or throws the error (see Exceptions). */
    T get() const;
    /** Blocks until settled; the value or the error. Handles the rejection. */
    result<T> try_get() const;

    /** Settles like this one, or rejects with VOW_ERROR_TIMEOUT after d (and cancels this one); d on the default dispatcher's clock, as for after(). */
    template <class Rep, class Period>
    promise timeout(std::chrono::duration<Rep, Period> d, site where = VOW_HPP_CALLER_SITE) const;

#if VOW_HPP_STOP_TOKEN
    /** then(f) whose promise a stop request on token cancels (the request travels upstream). */
    template <class F> auto then(F &&f, std::stop_token token, site where = VOW_HPP_CALLER_SITE) const;
    /** then(d, f) whose promise a stop request on token cancels. */
    template <class F>
    auto then(const dispatcher &d, F &&f, std::stop_token token, site where = VOW_HPP_CALLER_SITE) const;
    /**
     * A promise that settles like this one and that a stop request on token
     * cancels; the cancellation travels upstream to this one unless something
     * else still waits on it. `co_await p.with_stop(token)`.
     */
    promise with_stop(std::stop_token token, site where = VOW_HPP_CALLER_SITE) const;
    /** get() that a stop request on token ends: this promise is cancelled (see with_stop) and get throws. */
    T get(std::stop_token token, site where = VOW_HPP_CALLER_SITE) const;
    /** try_get() that a stop request on token ends with the cancellation error. */
    result<T> try_get(std::stop_token token, site where = VOW_HPP_CALLER_SITE) const;
#endif

#if VOW_HPP_COROUTINES
    /**
     * co_await p: the value, or throws the error. A pending p suspends the
     * coroutine, which resumes on the default dispatcher; a settled p does not
     * suspend (see Where continuations run).
     */
    detail::awaiter<T, false> operator co_await() const noexcept;
    /**
     * co_await p.resume_on(d): the coroutine resumes on d, whatever p's state
     * (with inline_(), a settled p goes on at once). `.try_await()` on the
     * result gives a result<T> instead.
     */
    detail::awaitable<T> resume_on(const dispatcher &d, site where = VOW_HPP_CALLER_SITE) const noexcept;
    /** co_await p.try_await(): as co_await p, with a result<T>; never throws. */
    detail::awaiter<T, true> try_await(site where = VOW_HPP_CALLER_SITE) const noexcept;
#endif

private:
    using basic_handle<promise, vow_promise>::basic_handle;
    using basic_handle<promise, vow_promise>::h_;

    static promise rejected_with(vow_error *e, site where) noexcept;
    template <class F> auto then_on(const dispatcher *d, F &&f, site where) const;
    template <class F> promise recover_on(const dispatcher *d, F &&f, catch_policy policy, site where) const;
    template <class F> promise finally_on(const dispatcher *d, F &&f, site where) const;
};

/* ======================================================================
 * vow::resolver<T>
 * ====================================================================== */

/**
 * The right to settle one pending promise. Copyable (a retain), movable
 * (basic_handle); the last reference to a resolver that neither settled nor
 * adopted anything rejects its promise with VOW_ERROR_BROKEN, so a forgotten
 * resolver cannot hang a chain. Settling returns true if this call settled (or
 * adopted for) the promise, false if the resolver was already used or is
 * empty. Any thread.
 */
template <class T>
class resolver : public basic_handle<resolver<T>, vow_resolver> {
public:
    /** An empty resolver (no handle). */
    resolver() noexcept = default;

    /** Whether settled or adopted already (vow_resolver_is_used); false when empty. */
    bool is_used() const noexcept;

    /**
     * Fulfils with x (converted to T). A T with no vow form rejects with the
     * type error instead (that counts as settling).
     */
    template <class U = T,
              class = std::enable_if_t<!std::is_void_v<T> && !detail::is_promise_v<std::decay_t<U>> &&
                                       std::is_constructible_v<detail::element_t<T>, U &&>>>
    bool resolve(U &&x) const;
    /** promise<void>: fulfils. */
    template <class U = T, class = std::enable_if_t<std::is_void_v<U>>>
    bool resolve() const noexcept;
    /** Follows p: settles as p settles (an empty p rejects with the cxx_no_handle error). */
    bool resolve(const promise<T> &p) const noexcept;
    /** Rejects with e (an empty e rejects with the cxx_no_handle error). */
    bool reject(const error &e) const noexcept;
#if VOW_HPP_EXCEPTIONS
    /** Rejects with the error exception travels as (see Exceptions). */
    bool reject(std::exception_ptr exception) const noexcept;
#endif
    /**
     * f() runs once, on the default dispatcher, when cancellation reaches this
     * producer (vow_resolver_on_cancel); f is dropped if the promise settles
     * otherwise. Returns false for an empty resolver (f is destroyed at once).
     * f must not throw.
     */
    template <class F> bool on_cancel(F &&f) const;
    /** on_cancel(f) with f run on d. */
    template <class F> bool on_cancel(const dispatcher &d, F &&f) const;

private:
    using basic_handle<resolver, vow_resolver>::basic_handle;
    using basic_handle<resolver, vow_resolver>::h_;

    template <class F> bool on_cancel_on(const dispatcher *d, F &&f) const;
};

/* ======================================================================
 * Free functions: async, combinators, time
 * ====================================================================== */

/** f() run on d; a promise of its result (stlab's async(executor, f), vow_dispatch). */
template <class F> auto async(const dispatcher &d, F &&f, site where = VOW_HPP_CALLER_SITE);

/* The variadic forms record the site "C" (see Sites); the vector forms, the caller's. */

/**
 * All of ps: a promise of a tuple of their values in order (std::monostate for
 * a promise<void>), or the first rejection's error (vow_when).
 */
template <class... Ts> promise<std::tuple<detail::element_t<Ts>...>> when_all(const promise<Ts> &...ps);
/** Settles like the first of ps to settle; the others are then cancelled (vow_race). */
template <class T, class... Ts> promise<T> race(const promise<T> &first, const promise<Ts> &...rest);
/**
 * The first of ps to fulfil, skipping rejections; the others are then
 * cancelled. If all reject, the error of the last one (vow_any).
 */
template <class T, class... Ts> promise<T> any(const promise<T> &first, const promise<Ts> &...rest);

/** when_all over a vector: a promise of a vector of their values in order (promise<void> for void). */
template <class T>
promise<detail::vector_of_t<T>> when_all(const std::vector<promise<T>> &ps, site where = VOW_HPP_CALLER_SITE);
/** race over a vector (empty: rejects with VOW_ERROR_EMPTY). */
template <class T> promise<T> race(const std::vector<promise<T>> &ps, site where = VOW_HPP_CALLER_SITE);
/** any over a vector (empty: rejects with VOW_ERROR_EMPTY). */
template <class T> promise<T> any(const std::vector<promise<T>> &ps, site where = VOW_HPP_CALLER_SITE);

/**
 * A promise<void> fulfilled after d (vow_after: zero or negative at once; cancelling stops
 * the timer), on the default dispatcher's clock: a host loop's own timers when the default
 * was made with vow_dispatcher_new_with_timers, else the library's real clock.
 */
template <class Rep, class Period>
promise<void> after(std::chrono::duration<Rep, Period> d, site where = VOW_HPP_CALLER_SITE);

} // namespace vow

#include "vow/detail.hpp"
#include "vow/vow-inl.hpp"

#endif /* VOW_HPP */
