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
 * Handles   vow::promise<T>, vow::resolver<T>, vow::value, vow::error and
 *           vow::dispatcher each own one reference to a C handle: a copy is a
 *           retain, a move is free (the source is left empty), the destructor
 *           releases. adopt(h) takes over the caller's reference, borrow(h)
 *           adds one, handle() lends the handle (still owned by the object),
 *           release_handle() gives the reference to the caller (+1, the object
 *           is left empty). An empty object (default-constructed, moved from,
 *           or the result of a call that failed on an empty one) is answered
 *           like NULL in vow.h: chaining on it returns an empty promise, get()
 *           throws a vow::error in domain "c++" with code vow::cxx_no_handle.
 *           No destructor recurses: dropping a chain of any length is a loop in
 *           the library.
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
 * co_await p.resume_on(d). It never runs inline
 * in the call that registered it nor in the call that settled the promise,
 * unless the dispatcher given is vow::dispatcher::inline_(), and never while
 * the library holds a lock. Callbacks of one promise run in the order they
 * were attached. This is vow.h's rule, unchanged: the C++ calls are the C
 * calls (vow_then, vow_then_on, vow_catch_policy, vow_finally, ...).
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
#if defined(__cpp_impl_coroutine) && defined(__cpp_lib_coroutine)
#  include <coroutine>
#  define VOW_HPP_COROUTINES 1
#endif
#if defined(__cpp_lib_jthread)
#  include <stop_token>
#  define VOW_HPP_STOP_TOKEN 1
#endif
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#  define VOW_HPP_EXCEPTIONS 1
#endif

namespace vow {

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

namespace detail {

template <class> inline constexpr bool always_false = false;

using destroy_fn = void (*)(void *);

template <class T> struct is_promise : std::false_type {};
template <class T> struct is_promise<promise<T>> : std::true_type {};
template <class T> inline constexpr bool is_promise_v = is_promise<T>::value;

template <class T> struct is_result : std::false_type {};
template <class T> struct is_result<result<T>> : std::true_type {};
template <class T> inline constexpr bool is_result_v = is_result<T>::value;

template <class T>
inline constexpr bool is_char_v = std::is_same_v<T, char> || std::is_same_v<T, wchar_t> ||
                                  std::is_same_v<T, char16_t> || std::is_same_v<T, char32_t>
#if defined(__cpp_char8_t)
                                  || std::is_same_v<T, char8_t>
#endif
    ;

/** The integer types a promise may hold: integral, not bool, not a character type. */
template <class T>
inline constexpr bool is_integer_v = std::is_integral_v<T> && !std::is_same_v<T, bool> && !is_char_v<T>;

/** Seconds as vow.h takes them. */
template <class Rep, class Period>
inline double
seconds(std::chrono::duration<Rep, Period> d) noexcept
{
    return std::chrono::duration<double>(d).count();
}

/** The NULL value, made once and kept for the process (borrowed). */
inline const vow_value *
null_value() noexcept
{
    static const vow_value *const null = vow_value_null();
    return null;
}

/**
 * A value made for the library, owned (+1, released by the destructor) or
 * borrowed from a box kept for the process (the shared NULL, small integers,
 * the bools: no reference counting at all). Empty (v == nullptr) when the
 * C++ value has no vow form.
 */
struct encoded {
    vow_value *v = nullptr;
    bool owned = false;

    encoded() noexcept = default;
    encoded(vow_value *made, bool own) noexcept : v(made), owned(own) {}
    encoded(encoded &&other) noexcept : v(std::exchange(other.v, nullptr)), owned(other.owned) {}
    encoded(const encoded &) = delete;
    encoded &operator=(const encoded &) = delete;
    encoded &operator=(encoded &&) = delete;
    ~encoded()
    {
        if (owned) vow_value_release(v);
    }
    explicit operator bool() const noexcept { return v != nullptr; }
    /** A +1 reference for the caller. */
    vow_value *take() noexcept
    {
        vow_value *out = std::exchange(v, nullptr);
        return owned ? out : vow_value_retain(out);
    }
};

/** A value kept for the process in slot (made by make on first use), borrowed. */
template <class Make>
inline vow_value *
kept_value(std::atomic<vow_value *> &slot, Make make) noexcept
{
    vow_value *v = slot.load(std::memory_order_acquire);
    if (v == nullptr) {
        vow_value *made = make();
        if (slot.compare_exchange_strong(v, made, std::memory_order_acq_rel, std::memory_order_acquire)) {
            v = made;
        } else {
            vow_value_release(made);
        }
    }
    return v;
}

/**
 * An INT value. The integers from -128 to 1023 are boxed once per process
 * and shared (values are immutable, so a shared box is indistinguishable from
 * a new one): making one of those is a retain, not an allocation. The boxes
 * are kept until the process ends.
 */
inline encoded
int_value(std::int64_t i) noexcept
{
    constexpr std::int64_t low = -128;
    constexpr std::int64_t high = 1024;
    if (i < low || i >= high) return encoded(vow_value_int(i), true);
    static std::atomic<vow_value *> boxes[high - low];
    return encoded(kept_value(boxes[i - low], [i] { return vow_value_int(i); }), false);
}

/** A BOOL value; both are boxed once per process, as int_value does. */
inline encoded
bool_value(bool b) noexcept
{
    static std::atomic<vow_value *> boxes[2];
    return encoded(kept_value(boxes[b ? 1 : 0], [b] { return vow_value_bool(b); }), false);
}

/** An error of the library's type kind (domain "vow", VOW_ERROR_TYPE). +1. */
inline vow_error *
type_error(const std::string &message) noexcept
{
    return vow_error_new("vow", VOW_ERROR_TYPE, message.c_str());
}

/** The error an empty handle answers with (domain "c++", cxx_no_handle). +1. */
inline vow_error *
no_handle_error(const char *what) noexcept
{
    std::string message = std::string("empty ") + what + " (default-constructed, moved from, or made by a call on "
                                                         "an empty one)";
    return vow_error_new(cxx_domain, cxx_no_handle, message.c_str());
}

/** What a vow_value is, for type errors: "INT (300)", "a LIST of 2 values". */
inline std::string
describe(const vow_value *v)
{
    switch (vow_value_kind(v)) {
    case VOW_KIND_INVALID: return "no value";
    case VOW_KIND_NULL: return "a NULL value";
    case VOW_KIND_BOOL: return "BOOL";
    case VOW_KIND_INT: {
        std::int64_t i = 0;
        vow_value_get_int(v, &i);
        return "INT (" + std::to_string(i) + ")";
    }
    case VOW_KIND_DOUBLE: return "DOUBLE";
    case VOW_KIND_STRING: return "STRING";
    case VOW_KIND_BYTES: {
        std::size_t n = 0;
        vow_value_get_bytes(v, &n);
        return "BYTES (" + std::to_string(n) + " bytes)";
    }
    case VOW_KIND_POINTER: return "POINTER";
    case VOW_KIND_LIST: {
        std::size_t n = vow_value_count(v);
        return "a LIST of " + std::to_string(n) + (n == 1 ? " value" : " values");
    }
    case VOW_KIND_PROMISE: return "PROMISE";
    case VOW_KIND_ERROR: return "ERROR";
    case VOW_KIND_THENABLE: return "THENABLE";
    case VOW_KIND_SWIFT: return "a Swift value with no C form";
    }
    return "a value of an unknown kind";
}

/*
 * The original C++ exception inside a "c++" error: the payload is a LIST of two
 * POINTERs, the box (its destroy deletes it) and the address of exception_tag,
 * which marks payloads this header made (a POINTER made elsewhere is never
 * taken for a box).
 */
struct exception_box {
    std::exception_ptr exception;
};
inline char exception_tag = 0;

inline void
delete_exception_box(void *box) noexcept
{
    delete static_cast<exception_box *>(box);
}

/** A "c++" error carrying exception (which may be null) with message what. +1. */
inline vow_error *
wrap_exception(std::exception_ptr exception, const char *what) noexcept
{
    vow_value *items[2] = {
        vow_value_pointer(new exception_box{std::move(exception)}, &delete_exception_box),
        vow_value_pointer(&exception_tag, nullptr),
    };
    vow_value *payload = vow_value_list(items, 2);
    vow_value_release(items[0]);
    vow_value_release(items[1]);
    vow_error *e = vow_error_with_payload(cxx_domain, cxx_exception, what, payload);
    vow_value_release(payload);
    return e;
}

/** The exception a "c++" error made by wrap_exception carries (borrowed), or nullptr. */
inline const std::exception_ptr *
exception_in(const vow_error *e) noexcept
{
    const char *domain = vow_error_domain(e);
    if (domain == nullptr || std::strcmp(domain, cxx_domain) != 0 || vow_error_code(e) != cxx_exception) {
        return nullptr;
    }
    const vow_value *payload = vow_error_payload(e);
    if (vow_value_kind(payload) != VOW_KIND_LIST || vow_value_count(payload) != 2 ||
        vow_value_get_pointer(vow_value_at(payload, 1)) != &exception_tag) {
        return nullptr;
    }
    auto *box = static_cast<exception_box *>(vow_value_get_pointer(vow_value_at(payload, 0)));
    return box != nullptr && box->exception ? &box->exception : nullptr;
}

[[noreturn]] inline void fail(const error &e);

} // namespace detail

/* ======================================================================
 * vow::value: an owning vow_value handle
 * ====================================================================== */

/**
 * An owning reference to an immutable vow_value (any kind). Empty when
 * default-constructed or moved from; an empty value reads as the NULL value
 * where a value is needed. Any thread.
 */
class value {
public:
    value() noexcept = default;
    value(const value &other) noexcept : v_(vow_value_retain(other.v_)) {}
    value(value &&other) noexcept : v_(std::exchange(other.v_, nullptr)) {}
    value &operator=(const value &other) noexcept
    {
        vow_value *old = v_;
        v_ = vow_value_retain(other.v_);
        vow_value_release(old);
        return *this;
    }
    value &operator=(value &&other) noexcept
    {
        /* Empties the source, then lets go of the old handle (safe for self-move). */
        vow_value_release(std::exchange(v_, std::exchange(other.v_, nullptr)));
        return *this;
    }
    ~value() { vow_value_release(v_); }

    /** Takes over the caller's reference to v (+1). */
    static value adopt(vow_value *v) noexcept { return value(v); }
    /** Adds a reference to v (borrowed). */
    static value borrow(const vow_value *v) noexcept { return value(vow_value_retain(v)); }
    /** The NULL value (kind VOW_KIND_NULL). */
    static value null() noexcept { return value(vow_value_retain(detail::null_value())); }
    /** A POINTER value holding p; destroy(p) runs once when the last reference goes. */
    static value pointer(void *p, void (*destroy)(void *) = nullptr) noexcept
    {
        return value(vow_value_pointer(p, destroy));
    }
    /** x as a value (see Types); a vow::error (thrown, or fail()) if x has no vow form. */
    template <class T> static value of(const T &x);
    /** x as a value, or the type error saying why it has none. */
    template <class T> static result<value> try_of(const T &x);

    /** The kind; VOW_KIND_INVALID when empty. */
    vow_kind kind() const noexcept { return vow_value_kind(v_); }
    explicit operator bool() const noexcept { return v_ != nullptr; }
    /** The item count of a LIST; 0 otherwise. */
    std::size_t size() const noexcept { return vow_value_count(v_); }
    /** Item i of a LIST (empty if out of range or not a LIST). */
    value operator[](std::size_t i) const noexcept { return borrow(vow_value_at(v_, i)); }

    /** The value as T, or the type error (thrown, or fail()). */
    template <class T> T get() const;
    /** The value as T, or the type error. */
    template <class T> result<T> try_get() const;

    /** The handle, still owned by this object. */
    const vow_value *handle() const noexcept { return v_; }
    /** The reference, given to the caller (+1); this object is left empty. */
    vow_value *release_handle() noexcept { return std::exchange(v_, nullptr); }

private:
    explicit value(vow_value *v) noexcept : v_(v) {}
    vow_value *v_ = nullptr;
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
 * share the handle. Any thread.
 */
class error : public std::exception {
public:
    /** An empty error (no handle): what() is "". */
    error() noexcept = default;
    /** A new error; domain and message are copied. */
    error(const char *domain, std::int64_t code, const char *message = "") noexcept
        : e_(vow_error_new(domain != nullptr ? domain : "", code, message))
    {
    }
    error(const std::string &domain, std::int64_t code, const std::string &message) noexcept
        : error(domain.c_str(), code, message.c_str())
    {
    }
    /** A new error with a payload value (retained). */
    error(const std::string &domain, std::int64_t code, const std::string &message, const value &payload) noexcept
        : e_(vow_error_with_payload(domain.c_str(), code, message.c_str(), payload.handle()))
    {
    }
    error(const error &other) noexcept : std::exception(other), e_(vow_error_retain(other.e_)) {}
    error(error &&other) noexcept : std::exception(other), e_(std::exchange(other.e_, nullptr)) {}
    error &operator=(const error &other) noexcept
    {
        vow_error *old = e_;
        e_ = vow_error_retain(other.e_);
        vow_error_release(old);
        return *this;
    }
    error &operator=(error &&other) noexcept
    {
        /* Empties the source, then lets go of the old handle (safe for self-move). */
        vow_error_release(std::exchange(e_, std::exchange(other.e_, nullptr)));
        return *this;
    }
    ~error() override { vow_error_release(e_); }

    /** Takes over the caller's reference to e (+1). */
    static error adopt(vow_error *e) noexcept { return error(e); }
    /** Adds a reference to e (borrowed). */
    static error borrow(const vow_error *e) noexcept { return error(vow_error_retain(e)); }
    /** The cancellation error (domain "vow", VOW_ERROR_CANCELLED). */
    static error cancelled() noexcept { return error(vow_error_cancelled()); }
#if VOW_HPP_EXCEPTIONS
    /**
     * The error an exception travels as: a vow::error is itself; any other
     * exception a "c++" error (code cxx_exception, its what() as message) that
     * keeps it. A null exception_ptr gives an empty error.
     */
    static error from_exception(std::exception_ptr exception) noexcept;
#endif

    /** The message (UTF-8); "" for an empty error. */
    const char *what() const noexcept override
    {
        const char *m = vow_error_message(e_);
        return m != nullptr ? m : "";
    }
    /** The domain; "" for an empty error. */
    const char *domain() const noexcept
    {
        const char *d = vow_error_domain(e_);
        return d != nullptr ? d : "";
    }
    std::int64_t code() const noexcept { return vow_error_code(e_); }
    /** The message; the same as what(). */
    const char *message() const noexcept { return what(); }
    /** The payload (empty if none). */
    value payload() const noexcept { return value::borrow(vow_error_payload(e_)); }
    /** Whether this is cancellation (vow_error_is_cancelled). */
    bool is_cancelled() const noexcept { return vow_error_is_cancelled(e_); }
    /** Whether domain and code are these: e.is("vow", VOW_ERROR_TIMEOUT). */
    bool is(const char *domain, std::int64_t code) const noexcept
    {
        return e_ != nullptr && std::strcmp(this->domain(), domain) == 0 && vow_error_code(e_) == code;
    }
    /** The C++ exception this error carries (domain "c++"), or a null exception_ptr. */
    std::exception_ptr exception() const noexcept
    {
        const std::exception_ptr *carried = detail::exception_in(e_);
        return carried != nullptr ? *carried : std::exception_ptr();
    }
#if VOW_HPP_EXCEPTIONS
    /** Throws the C++ exception this error carries, or else this error. */
    [[noreturn]] void rethrow() const
    {
        if (const std::exception_ptr *carried = detail::exception_in(e_)) std::rethrow_exception(*carried);
        throw *this;
    }
    /** exception() if there is one, else this error as an exception_ptr. */
    std::exception_ptr as_exception_ptr() const
    {
        if (const std::exception_ptr *carried = detail::exception_in(e_)) return *carried;
        return std::make_exception_ptr(*this);
    }
#endif

    /** The handle, still owned by this object (nullptr if empty). */
    const vow_error *handle() const noexcept { return e_; }
    /** The reference, given to the caller (+1); this object is left empty. */
    vow_error *release_handle() noexcept { return std::exchange(e_, nullptr); }

private:
    explicit error(vow_error *e) noexcept : e_(e) {}
    vow_error *e_ = nullptr;
};

namespace detail {

/** What get() does with an error: throws it (its original exception, if any), or aborts without exceptions. */
[[noreturn]] inline void
fail(const error &e)
{
#if VOW_HPP_EXCEPTIONS
    e.rethrow();
#else
    std::fprintf(stderr, "vow: unhandled error without exceptions: %s %lld: %s\n", e.domain(),
                 static_cast<long long>(e.code()), e.what());
    std::abort();
#endif
}

#if VOW_HPP_EXCEPTIONS
/** The error for the exception being handled (call inside a catch). +1. */
inline vow_error *
error_from_current() noexcept
{
    try {
        throw;
    } catch (const error &e) {
        return e.handle() != nullptr ? vow_error_retain(e.handle()) : no_handle_error("vow::error");
    } catch (const std::exception &e) {
        return wrap_exception(std::current_exception(), e.what());
    } catch (...) {
        return wrap_exception(std::current_exception(), "unknown C++ exception");
    }
}
#endif

} // namespace detail

#if VOW_HPP_EXCEPTIONS
inline error
error::from_exception(std::exception_ptr exception) noexcept
{
    if (!exception) return error();
    try {
        std::rethrow_exception(exception);
    } catch (...) {
        return error(detail::error_from_current());
    }
}
#endif

/* ======================================================================
 * vow::result<T>: a value or an error (std::expected's shape)
 * ====================================================================== */

/**
 * Holds a T or a vow::error: what try_get() and co_await p.try_await() give,
 * and what a callback may return to reject without throwing. value() and
 * operator* on an error throw it (its original exception, if any), or abort
 * without exceptions.
 */
template <class T>
class result {
public:
    using value_type = T;

    result(T v) : value_(std::move(v)) {}
    result(vow::error e) noexcept : error_(std::move(e)) {}

    bool has_value() const noexcept { return value_.has_value(); }
    explicit operator bool() const noexcept { return has_value(); }

    T &value() &
    {
        check();
        return *value_;
    }
    const T &value() const &
    {
        check();
        return *value_;
    }
    T &&value() &&
    {
        check();
        return std::move(*value_);
    }
    T &operator*() & { return value(); }
    const T &operator*() const & { return value(); }
    T &&operator*() && { return std::move(*this).value(); }
    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }
    template <class U> T value_or(U &&fallback) const & { return value_ ? *value_ : T(std::forward<U>(fallback)); }
    template <class U> T value_or(U &&fallback) && { return value_ ? std::move(*value_) : T(std::forward<U>(fallback)); }

    /** The error (empty when this holds a value). */
    const vow::error &error() const noexcept { return error_; }

private:
    void check() const
    {
        if (!value_) detail::fail(error_);
    }
    std::optional<T> value_;
    vow::error error_;
};

/** result<void>: success, or a vow::error. */
template <>
class result<void> {
public:
    using value_type = void;

    result() noexcept = default;
    result(vow::error e) noexcept : ok_(false), error_(std::move(e)) {}

    bool has_value() const noexcept { return ok_; }
    explicit operator bool() const noexcept { return ok_; }
    void value() const
    {
        if (!ok_) detail::fail(error_);
    }
    void operator*() const { value(); }
    const vow::error &error() const noexcept { return error_; }

private:
    bool ok_ = true;
    vow::error error_;
};

/* ======================================================================
 * Conversions between C++ types and vow_value (see Types)
 * ====================================================================== */

namespace detail {

/*
 * codec<T>: name() for messages; decode(v, out) -> bool (fast path, no
 * allocation beyond T's own); why_not(v), the type error's message after a
 * failed decode; encode(x, why) -> an encoded value, empty with why set (a
 * static string) if x has no vow form; reusable(in, out, v): whether a callback's result equal to
 * its input may pass the input handle on.
 */
template <class T, class = void>
struct codec {
    static_assert(always_false<T>, "vow: the value type must be void, bool, an integer type, float, double, "
                                   "std::string, std::vector<std::uint8_t>, std::vector<U>, std::tuple<U...> "
                                   "or vow::value");
};

template <class T>
struct codec_base {
    static std::string why_not(const vow_value *v) { return "expected " + T::name() + ", found " + describe(v); }
    template <class X> static bool reusable(const X &, const X &, const vow_value *) noexcept { return false; }
};

template <>
struct codec<bool> : codec_base<codec<bool>> {
    static std::string name() { return "bool"; }
    static bool decode(const vow_value *v, bool &out) noexcept { return vow_value_get_bool(v, &out) == VOW_OK; }
    static encoded encode(bool x, const char *&) noexcept { return bool_value(x); }
    static bool reusable(bool in, bool out, const vow_value *) noexcept { return in == out; }
};

template <class T>
struct codec<T, std::enable_if_t<is_integer_v<T>>> : codec_base<codec<T>> {
    static std::string name()
    {
        return std::string(std::is_signed_v<T> ? "int" : "uint") + std::to_string(sizeof(T) * 8) + "_t";
    }
    static bool decode(const vow_value *v, T &out) noexcept
    {
        std::int64_t i = 0;
        if (vow_value_get_int(v, &i) != VOW_OK) return false;
        if constexpr (std::is_signed_v<T>) {
            if constexpr (sizeof(T) < sizeof(std::int64_t)) {
                if (i < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
                    i > static_cast<std::int64_t>(std::numeric_limits<T>::max())) {
                    return false;
                }
            }
        } else {
            if (i < 0) return false;
            if constexpr (sizeof(T) < sizeof(std::int64_t)) {
                if (static_cast<std::uint64_t>(i) > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) {
                    return false;
                }
            }
        }
        out = static_cast<T>(i);
        return true;
    }
    static encoded encode(T x, const char *&why) noexcept
    {
        if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(std::int64_t)) {
            if (x > static_cast<T>(std::numeric_limits<std::int64_t>::max())) {
                why = "it is above INT64_MAX, the largest INT";
                return encoded();
            }
        }
        return int_value(static_cast<std::int64_t>(x));
    }
    static bool reusable(T in, T out, const vow_value *) noexcept { return in == out; }
};

template <class T>
struct codec<T, std::enable_if_t<std::is_same_v<T, double> || std::is_same_v<T, float>>> : codec_base<codec<T>> {
    static std::string name() { return std::is_same_v<T, double> ? "double" : "float"; }
    static bool decode(const vow_value *v, T &out) noexcept
    {
        double d = 0;
        if (vow_value_get_double(v, &d) != VOW_OK) return false;
        out = static_cast<T>(d);
        return true;
    }
    static encoded encode(T x, const char *&) noexcept
    {
        return encoded(vow_value_double(static_cast<double>(x)), true);
    }
    /* The same bits, and the input was a DOUBLE (an INT reads as double too). */
    static bool reusable(T in, T out, const vow_value *v) noexcept
    {
        return std::is_same_v<T, double> && std::memcmp(&in, &out, sizeof(T)) == 0 &&
               vow_value_kind(v) == VOW_KIND_DOUBLE;
    }
};

template <>
struct codec<std::string> : codec_base<codec<std::string>> {
    static std::string name() { return "std::string"; }
    static bool decode(const vow_value *v, std::string &out)
    {
        const char *s = vow_value_get_string(v);
        if (s == nullptr) return false;
        out.assign(s);
        return true;
    }
    static encoded encode(const std::string &x, const char *&why) noexcept
    {
        if (x.find('\0') != std::string::npos) {
            why = "it holds a NUL byte (a STRING cannot; use std::vector<std::uint8_t>)";
            return encoded();
        }
        return encoded(vow_value_string(x.c_str()), true);
    }
};

template <>
struct codec<std::vector<std::uint8_t>> : codec_base<codec<std::vector<std::uint8_t>>> {
    static std::string name() { return "std::vector<uint8_t>"; }
    static bool decode(const vow_value *v, std::vector<std::uint8_t> &out)
    {
        if (vow_value_kind(v) != VOW_KIND_BYTES) return false;
        std::size_t n = 0;
        const auto *bytes = static_cast<const std::uint8_t *>(vow_value_get_bytes(v, &n));
        if (n == 0) {
            out.clear();
        } else {
            out.assign(bytes, bytes + n);
        }
        return true;
    }
    static encoded encode(const std::vector<std::uint8_t> &x, const char *&) noexcept
    {
        return encoded(vow_value_bytes(x.empty() ? nullptr : x.data(), x.size()), true);
    }
};

template <>
struct codec<std::monostate> : codec_base<codec<std::monostate>> {
    static std::string name() { return "std::monostate"; }
    static bool decode(const vow_value *, std::monostate &) noexcept { return true; }
    static encoded encode(std::monostate, const char *&) noexcept
    {
        return encoded(const_cast<vow_value *>(null_value()), false);
    }
};

template <>
struct codec<value> : codec_base<codec<value>> {
    static std::string name() { return "vow::value"; }
    static bool decode(const vow_value *v, value &out) noexcept
    {
        out = value::borrow(v);
        return true;
    }
    static encoded encode(const value &x, const char *&) noexcept
    {
        return encoded(const_cast<vow_value *>(x.handle() != nullptr ? x.handle() : null_value()), false);
    }
};

/** Releases the first n handles of items. */
inline void
release_values(vow_value *const *items, std::size_t n) noexcept
{
    for (std::size_t i = 0; i < n; i++) vow_value_release(items[i]);
}

template <class U>
struct codec<std::vector<U>, std::enable_if_t<!std::is_same_v<U, std::uint8_t>>> : codec_base<codec<std::vector<U>>> {
    static std::string name() { return "std::vector<" + codec<U>::name() + ">"; }
    static bool decode(const vow_value *v, std::vector<U> &out)
    {
        if (vow_value_kind(v) != VOW_KIND_LIST) return false;
        std::size_t n = vow_value_count(v);
        out.clear();
        out.reserve(n);
        for (std::size_t i = 0; i < n; i++) {
            U item{};
            if (!codec<U>::decode(vow_value_at(v, i), item)) return false;
            out.push_back(std::move(item));
        }
        return true;
    }
    static std::string why_not(const vow_value *v)
    {
        if (vow_value_kind(v) == VOW_KIND_LIST) {
            for (std::size_t i = 0, n = vow_value_count(v); i < n; i++) {
                U item{};
                const vow_value *at = vow_value_at(v, i);
                if (!codec<U>::decode(at, item)) {
                    return "expected " + name() + ", item " + std::to_string(i) + ": " + codec<U>::why_not(at);
                }
            }
        }
        return "expected " + name() + ", found " + describe(v);
    }
    static encoded encode(const std::vector<U> &x, const char *&why)
    {
        std::vector<vow_value *> items;
        items.reserve(x.size());
        for (std::size_t i = 0; i < x.size(); i++) {
            const U &item = x[i];
            encoded made = codec<U>::encode(item, why);
            if (!made) {
                release_values(items.data(), items.size());
                return encoded();
            }
            items.push_back(made.take());
        }
        vow_value *list = vow_value_list(items.data(), items.size());
        release_values(items.data(), items.size());
        return encoded(list, true);
    }
};

template <class... U>
struct codec<std::tuple<U...>> : codec_base<codec<std::tuple<U...>>> {
    static constexpr std::size_t count = sizeof...(U);

    static std::string name()
    {
        std::string inner;
        ((inner += (inner.empty() ? "" : ", ") + codec<U>::name()), ...);
        return "std::tuple<" + inner + ">";
    }
    static bool decode(const vow_value *v, std::tuple<U...> &out)
    {
        if (vow_value_kind(v) != VOW_KIND_LIST || vow_value_count(v) != count) return false;
        return decode_items(v, out, std::index_sequence_for<U...>());
    }
    static std::string why_not(const vow_value *v)
    {
        if (vow_value_kind(v) == VOW_KIND_LIST && vow_value_count(v) == count) {
            std::string why;
            first_failure(v, why, std::index_sequence_for<U...>());
            if (!why.empty()) return "expected " + name() + ", " + why;
        }
        return "expected " + name() + ", found " + describe(v);
    }
    static encoded encode(const std::tuple<U...> &x, const char *&why)
    {
        vow_value *items[count > 0 ? count : 1] = {};
        std::size_t made = 0;
        if (!encode_items(x, items, made, why, std::index_sequence_for<U...>())) {
            release_values(items, made);
            return encoded();
        }
        vow_value *list = vow_value_list(items, count);
        release_values(items, count);
        return encoded(list, true);
    }

private:
    template <std::size_t... I>
    static bool decode_items(const vow_value *v, std::tuple<U...> &out, std::index_sequence<I...>)
    {
        (void)v;
        (void)out;
        return (codec<U>::decode(vow_value_at(v, I), std::get<I>(out)) && ...);
    }
    template <std::size_t... I>
    static void first_failure(const vow_value *v, std::string &why, std::index_sequence<I...>)
    {
        (void)v;
        (void)why;
        (void)((check_item<I, U>(v, why)) && ...);
    }
    template <std::size_t I, class X>
    static bool check_item(const vow_value *v, std::string &why)
    {
        X item{};
        const vow_value *at = vow_value_at(v, I);
        if (codec<X>::decode(at, item)) return true;
        why = "item " + std::to_string(I) + ": " + codec<X>::why_not(at);
        return false;
    }
    template <std::size_t... I>
    static bool encode_items(const std::tuple<U...> &x, vow_value **items, std::size_t &made, const char *&why,
                             std::index_sequence<I...>)
    {
        (void)x;
        (void)items;
        (void)made;
        (void)why;
        return ((items[I] = codec<U>::encode(std::get<I>(x), why).take(), items[I] != nullptr ? (made++, true) : false) &&
                ...);
    }
};

/** The type error for a value that did not decode as T. +1. */
template <class T>
inline vow_error *
decode_error(const vow_value *v) noexcept
{
    return type_error(codec<T>::why_not(v));
}

/** The type error for a T that has no vow form. +1. */
template <class T>
inline vow_error *
encode_error(const char *why) noexcept
{
    return type_error("a " + codec<T>::name() + " has no vow value: " + (why != nullptr ? why : "?"));
}

/** x as an encoded value, or an empty one with *error_out set (+1). */
template <class T>
inline encoded
encode_or_error(const T &x, vow_error **error_out)
{
    const char *why = nullptr;
    encoded v = codec<T>::encode(x, why);
    if (!v) *error_out = encode_error<T>(why);
    return v;
}

/** v decoded as a result<T>. */
template <class T>
inline result<T>
decode_result(const vow_value *v)
{
    if constexpr (std::is_void_v<T>) {
        (void)v;
        return result<void>();
    } else {
        T x{};
        if (codec<T>::decode(v, x)) return result<T>(std::move(x));
        return result<T>(error::adopt(decode_error<T>(v)));
    }
}

/* ---- what a callback's result makes ------------------------------------- */

/** The value type of the promise a callback returning R makes. */
template <class R, class = void> struct value_of { using type = std::remove_cv_t<std::remove_reference_t<R>>; };
template <class U> struct value_of<promise<U>> { using type = U; };
template <class U> struct value_of<result<U>> { using type = U; };
template <> struct value_of<const char *> { using type = std::string; };
template <> struct value_of<char *> { using type = std::string; };
template <> struct value_of<std::string_view> { using type = std::string; };
template <class R>
using value_of_t = typename value_of<std::remove_cv_t<std::remove_reference_t<R>>>::type;

/** A promise of void holds std::monostate in a tuple (when_all). */
template <class T> using element_t = std::conditional_t<std::is_void_v<T>, std::monostate, T>;

/** What f(T) returns (f() for void), and whether f can be called so. */
template <class T, class F> struct call_result { using type = std::invoke_result_t<F &, T &&>; };
template <class F> struct call_result<void, F> { using type = std::invoke_result_t<F &>; };
template <class T, class F> using call_result_t = typename call_result<T, F>::type;

template <class T, class F> inline constexpr bool callable_with_v = std::is_invocable_v<F &, T &&>;
template <class F> inline constexpr bool callable_with_v<void, F> = std::is_invocable_v<F &>;

/** Returns v (borrowed) through out as the callback's outcome. */
inline void
return_handle(vow_result *out, const vow_value *v) noexcept
{
    vow_result_return(out, v);
}

/** Rejects out with e (+1, consumed). */
inline void
throw_into(vow_result *out, vow_error *e) noexcept
{
    vow_result_throw(out, e);
    vow_error_release(e);
}

/** Settles out from r, a callback's result, for a promise of U. */
template <class U, class R>
inline void
settle_with(vow_result *out, R &&r)
{
    using D = std::remove_cv_t<std::remove_reference_t<R>>;
    if constexpr (is_promise_v<D>) {
        D step(std::forward<R>(r));
        vow_result_adopt(out, step.release_handle());
    } else if constexpr (is_result_v<D>) {
        if (!r.has_value()) {
            const error &e = r.error();
            if (e.handle() != nullptr) {
                vow_result_throw(out, e.handle());
            } else {
                throw_into(out, no_handle_error("vow::error"));
            }
        } else if constexpr (!std::is_void_v<typename D::value_type>) {
            settle_with<U>(out, std::forward<R>(r).value());
        }
    } else if constexpr (std::is_same_v<D, value>) {
        return_handle(out, r.handle());
    } else if constexpr (std::is_void_v<U>) {
        (void)r;
    } else {
        const char *why = nullptr;
        encoded v = [&] {
            if constexpr (std::is_same_v<D, U>) {
                return codec<U>::encode(r, why);
            } else {
                return codec<U>::encode(U(std::forward<R>(r)), why);
            }
        }();
        if (!v) return throw_into(out, encode_error<U>(why));
        vow_result_return(out, v.v);
    }
}

/** Runs body, turning an exception it throws into out's rejection. */
template <class Body>
inline void
guarded(vow_result *out, Body &&body) noexcept
{
#if VOW_HPP_EXCEPTIONS
    try {
        body();
    } catch (...) {
        throw_into(out, error_from_current());
    }
#else
    (void)out;
    body();
#endif
}

/*
 * How a callback travels in a C context word: a trivially copyable callable
 * that fits in a pointer (a lambda without captures, or with one pointer or
 * integer, a function pointer) is copied into the word itself (no allocation,
 * no destroy); any other is moved to the heap (one allocation, destroy deletes
 * it).
 */
template <class Fn>
struct stored {
    static constexpr bool in_word = std::is_trivially_copyable_v<Fn> && sizeof(Fn) <= sizeof(void *) &&
                                    alignof(Fn) <= alignof(void *);

    template <class F>
    static void *pack(F &&f)
    {
        if constexpr (in_word) {
            Fn local(std::forward<F>(f));
            void *word = nullptr;
            std::memcpy(&word, static_cast<const void *>(&local), sizeof(Fn));
            return word;
        } else {
            return new Fn(std::forward<F>(f));
        }
    }

    static void destroy_heap(void *ctx) noexcept { delete static_cast<Fn *>(ctx); }
    static constexpr destroy_fn destroy = in_word ? nullptr : &destroy_heap;

    /** Calls body(f) with the callable ctx holds. */
    template <class Body>
    static void with(void *ctx, Body &&body)
    {
        if constexpr (in_word) {
            alignas(Fn) unsigned char bytes[sizeof(Fn)];
            std::memcpy(bytes, &ctx, sizeof(Fn));
            body(*std::launder(reinterpret_cast<Fn *>(bytes)));
        } else {
            body(*static_cast<Fn *>(ctx));
        }
    }
};

/** The C value callback of then(f) on a promise<T>. */
template <class T, class Fn>
struct value_link {
    using R = call_result_t<T, Fn>;
    using U = value_of_t<R>;

    static void on_value(void *ctx, const vow_value *v, vow_result *out) noexcept
    {
        stored<Fn>::with(ctx, [&](Fn &f) { guarded(out, [&] { run(f, v, out); }); });
    }

    static void run(Fn &f, const vow_value *v, vow_result *out)
    {
        if constexpr (std::is_void_v<T>) {
            (void)v;
            if constexpr (std::is_void_v<R>) {
                std::invoke(f);
            } else {
                settle_with<U>(out, std::invoke(f));
            }
        } else {
            T x{};
            if (!codec<T>::decode(v, x)) return throw_into(out, decode_error<T>(v));
            if constexpr (std::is_void_v<R>) {
                std::invoke(f, std::move(x));
            } else if constexpr (std::is_same_v<std::remove_cv_t<std::remove_reference_t<R>>, T> &&
                                 (std::is_arithmetic_v<T>)) {
                /* A scalar passed on unchanged keeps its handle: no new value. */
                const T in = x;
                T result_value = std::invoke(f, std::move(x));
                if (codec<T>::reusable(in, result_value, v)) return return_handle(out, v);
                settle_with<U>(out, std::move(result_value));
            } else {
                settle_with<U>(out, std::invoke(f, std::move(x)));
            }
        }
    }
};

/** The C error callback of recover(f) on a promise<T>. */
template <class T, class Fn>
struct error_link {
    static void on_error(void *ctx, const vow_error *e, vow_result *out) noexcept
    {
        stored<Fn>::with(ctx, [&](Fn &f) { guarded(out, [&] { run(f, e, out); }); });
    }

    template <class Arg>
    static void call(Fn &f, Arg &&arg, vow_result *out)
    {
        using R = std::invoke_result_t<Fn &, Arg &&>;
        if constexpr (std::is_void_v<R>) {
            std::invoke(f, std::forward<Arg>(arg));
        } else {
            settle_with<T>(out, std::invoke(f, std::forward<Arg>(arg)));
        }
    }

    static void run(Fn &f, const vow_error *e, vow_result *out)
    {
        const error reason = error::borrow(e);
        if constexpr (std::is_invocable_v<Fn &, const error &>) {
            call(f, reason, out);
        } else {
#if VOW_HPP_EXCEPTIONS
            call(f, reason.as_exception_ptr(), out);
#endif
        }
    }
};

/** The C callback of finally(f) and of a cancel handler: f(), which must not throw. */
template <class Fn>
struct plain_link {
    static void run(void *ctx) noexcept
    {
        stored<Fn>::with(ctx, [](Fn &f) { std::invoke(f); });
    }
};

/** The C callback of async(d, f): f() settles the promise. */
template <class Fn>
struct dispatch_link {
    using R = std::invoke_result_t<Fn &>;
    using U = value_of_t<R>;

    static void run(void *ctx, const vow_value *, vow_result *out) noexcept
    {
        stored<Fn>::with(ctx, [&](Fn &f) {
            guarded(out, [&] {
                if constexpr (std::is_void_v<R>) {
                    std::invoke(f);
                } else {
                    settle_with<U>(out, std::invoke(f));
                }
            });
        });
    }
};

/** Waits for p (-1: no limit) and reads its outcome as a result<T>. */
template <class T>
inline result<T>
wait_result(vow_promise *p, double seconds)
{
    if (p == nullptr) return result<T>(error::adopt(no_handle_error("vow::promise")));
    vow_value *v = nullptr;
    vow_error *e = nullptr;
    vow_state s = vow_wait(p, seconds, &v, &e);
    if (s == VOW_FULFILLED) {
        result<T> r = decode_result<T>(v);
        vow_value_release(v);
        return r;
    }
    vow_value_release(v);
    if (e != nullptr) return result<T>(error::adopt(e));
    return result<T>(error(cxx_domain, cxx_no_handle, "vow_wait gave neither a value nor an error"));
}

#if VOW_HPP_STOP_TOKEN
/*
 * Makes a stop request on token cancel q (vow_cancel). The registration lives
 * until q settles, whatever settles it: a holder retains q and keeps the
 * std::stop_callback; an observer on the inline dispatcher frees both when q
 * settles (also inside the cancel itself). The caller holds q during the call.
 */
inline void
cancel_on_stop(vow_promise *q, std::stop_token token)
{
    if (q == nullptr || !token.stop_possible()) return;
    struct canceller {
        vow_promise *q;
        void operator()() noexcept
        {
            /* The holder (and this object) may be freed inside vow_cancel: keep q alive here. */
            vow_promise *kept = vow_promise_retain(q);
            vow_cancel(kept);
            vow_promise_release(kept);
        }
    };
    struct holder {
        vow_promise *q;
        std::optional<std::stop_callback<canceller>> callback;
    };
    auto *h = new holder{vow_promise_retain(q), std::nullopt};
    h->callback.emplace(std::move(token), canceller{q});
    vow_observe_on(
        vow_dispatcher_inline(), q, [](void *) {}, h,
        [](void *ctx) {
            auto *done = static_cast<holder *>(ctx);
            vow_promise *kept = done->q;
            delete done;
            vow_promise_release(kept);
        });
}
#endif

} // namespace detail

template <class T>
inline result<value>
value::try_of(const T &x)
{
    vow_error *e = nullptr;
    detail::encoded v = detail::encode_or_error(x, &e);
    if (!v) return result<value>(error::adopt(e));
    return result<value>(value::adopt(v.take()));
}

template <class T>
inline value
value::of(const T &x)
{
    return try_of(x).value();
}

template <class T>
inline result<T>
value::try_get() const
{
    if (v_ == nullptr) return result<T>(error::adopt(detail::type_error("expected " + detail::codec<T>::name() +
                                                                        ", found an empty vow::value")));
    return detail::decode_result<T>(v_);
}

template <class T>
inline T
value::get() const
{
    return try_get<T>().value();
}

/* ======================================================================
 * vow::dispatcher: where callbacks run
 * ====================================================================== */

/**
 * A vow_dispatcher: the three built-in ones, the default, or a host's own
 * (adopt a handle from vow_dispatcher_new, vow_uv_dispatcher_new,
 * vow_glib_dispatcher_new). The built-in ones live as long as the process and
 * are not reference-counted here; any other is retained by each copy. Any
 * thread.
 */
class dispatcher {
public:
    /** Callbacks run where the promise settles (inside the settling call), never under a lock. */
    static dispatcher inline_() noexcept { return dispatcher(vow_dispatcher_inline(), false); }
    /** The library's concurrent pool. */
    static dispatcher background() noexcept { return dispatcher(vow_dispatcher_background(), false); }
    /** The default dispatcher as it is now (retained: a later set_default does not change this object). */
    static dispatcher default_() noexcept { return dispatcher(vow_dispatcher_retain(vow_dispatcher_default()), true); }
    /** Takes over the caller's reference to d (+1). */
    static dispatcher adopt(vow_dispatcher *d) noexcept { return dispatcher(d, true); }
    /** Adds a reference to d (borrowed). */
    static dispatcher borrow(vow_dispatcher *d) noexcept { return dispatcher(vow_dispatcher_retain(d), true); }
    /** Makes d the default for C, C++ and Swift (vow_set_default_dispatcher). */
    static void set_default(const dispatcher &d) noexcept { vow_set_default_dispatcher(d.d_); }
    /** Restores the library's own serial queue as the default. */
    static void reset_default() noexcept { vow_set_default_dispatcher(nullptr); }

    dispatcher(const dispatcher &other) noexcept
        : d_(other.owned_ ? vow_dispatcher_retain(other.d_) : other.d_), owned_(other.owned_)
    {
    }
    dispatcher(dispatcher &&other) noexcept : d_(std::exchange(other.d_, nullptr)), owned_(other.owned_) {}
    dispatcher &operator=(dispatcher other) noexcept
    {
        std::swap(d_, other.d_);
        std::swap(owned_, other.owned_);
        return *this;
    }
    ~dispatcher()
    {
        if (owned_) vow_dispatcher_release(d_);
    }

    /** The handle, still owned by this object. */
    vow_dispatcher *handle() const noexcept { return d_; }
    /** A reference for the caller (+1); this object is left empty. */
    vow_dispatcher *release_handle() noexcept
    {
        vow_dispatcher *d = std::exchange(d_, nullptr);
        return owned_ ? d : vow_dispatcher_retain(d);
    }
    friend bool operator==(const dispatcher &a, const dispatcher &b) noexcept { return a.d_ == b.d_; }
    friend bool operator!=(const dispatcher &a, const dispatcher &b) noexcept { return a.d_ != b.d_; }

private:
    dispatcher(vow_dispatcher *d, bool owned) noexcept : d_(d), owned_(owned) {}
    vow_dispatcher *d_ = nullptr;
    bool owned_ = false;
};

/* ======================================================================
 * vow::promise<T>
 * ====================================================================== */

namespace detail {
#if VOW_HPP_COROUTINES
template <class T> struct coroutine_promise;
template <class T, bool Try> class awaiter;
template <class T> class awaitable;
#endif
} // namespace detail

/**
 * A reference to a promise of a T (see Types). Copyable (a copy is a retain),
 * movable (free), the destructor releases; releasing never unregisters a
 * callback. Also a coroutine type: a function returning vow::promise<T> may
 * co_await and co_return (C++20; it starts at once, and its promise settles at
 * co_return or with the exception that escapes it; cancelling that promise does
 * not stop the coroutine's body: give it a std::stop_token and co_await
 * p.with_stop(token) inside). Any thread.
 */
template <class T>
class promise {
public:
    using value_type = T;
#if VOW_HPP_COROUTINES
    using promise_type = detail::coroutine_promise<T>;
#endif

    /** An empty promise (no handle). */
    promise() noexcept = default;
    promise(const promise &other) noexcept : p_(vow_promise_retain(other.p_)) {}
    promise(promise &&other) noexcept : p_(std::exchange(other.p_, nullptr)) {}
    promise &operator=(const promise &other) noexcept
    {
        vow_promise *old = p_;
        p_ = vow_promise_retain(other.p_);
        vow_promise_release(old);
        return *this;
    }
    promise &operator=(promise &&other) noexcept
    {
        /* Empties the source, then lets go of the old handle (safe for self-move). */
        vow_promise_release(std::exchange(p_, std::exchange(other.p_, nullptr)));
        return *this;
    }
    ~promise() { vow_promise_release(p_); }

    /** A pending promise and the resolver that settles it: `auto [p, r] = promise<int>::pending();`. */
    static std::pair<promise, resolver<T>> pending() noexcept;

    /** A promise fulfilled with x (rejected with the type error if x has no vow form). */
    template <class U = T, class = std::enable_if_t<!std::is_void_v<U>>>
    static promise fulfilled(const detail::element_t<U> &x)
    {
        vow_error *e = nullptr;
        detail::encoded v = detail::encode_or_error<U>(x, &e);
        if (!v) return rejected_with(e);
        return promise(vow_promise_fulfilled(v.v));
    }
    /** promise<void>: a promise already fulfilled. */
    template <class U = T, class = std::enable_if_t<std::is_void_v<U>>>
    static promise fulfilled() noexcept
    {
        return promise(vow_promise_fulfilled(detail::null_value()));
    }
    /** A promise rejected with e (an empty e rejects with the cxx_no_handle error). */
    static promise rejected(const error &e) noexcept
    {
        if (e.handle() == nullptr) return rejected_with(detail::no_handle_error("vow::error"));
        return promise(vow_promise_rejected(e.handle()));
    }
#if VOW_HPP_EXCEPTIONS
    /** A promise rejected with the error exception travels as (see Exceptions). */
    static promise rejected(std::exception_ptr exception) noexcept { return rejected(error::from_exception(exception)); }
#endif

    /** Takes over the caller's reference to p (+1). */
    static promise adopt(vow_promise *p) noexcept { return promise(p); }
    /** Adds a reference to p (borrowed). */
    static promise borrow(vow_promise *p) noexcept { return promise(vow_promise_retain(p)); }
    /** The handle, still owned by this object (borrowed). */
    vow_promise *handle() const noexcept { return p_; }
    /** The reference, given to the caller (+1 to C); this object is left empty. */
    vow_promise *release_handle() noexcept { return std::exchange(p_, nullptr); }
    /** The same promise read as a U (no new link; checked when read). */
    template <class U> promise<U> as() const noexcept { return promise<U>::borrow(p_); }

    explicit operator bool() const noexcept { return p_ != nullptr; }
    bool valid() const noexcept { return p_ != nullptr; }
    vow::state state() const noexcept { return static_cast<vow::state>(vow_promise_state(p_)); }
    bool is_pending() const noexcept { return vow_promise_state(p_) == VOW_PENDING; }
    bool is_fulfilled() const noexcept { return vow_promise_state(p_) == VOW_FULFILLED; }
    bool is_rejected() const noexcept { return vow_promise_state(p_) == VOW_REJECTED; }
    /** Whether it rejected with cancellation (vow_promise_is_cancelled). */
    bool is_cancelled() const noexcept { return vow_promise_is_cancelled(p_); }

    /**
     * A promise of f's result once this one fulfils: f(T) runs on the default
     * dispatcher (f() for promise<void>); an error passes through.
     */
    template <class F>
    auto then(F &&f) const
    {
        return then_on(nullptr, std::forward<F>(f));
    }
    /** then(f) with f run on d. */
    template <class F>
    auto then(const dispatcher &d, F &&f) const
    {
        return then_on(&d, std::forward<F>(f));
    }

    /**
     * A promise that settles like this one, or from f(error) if this one
     * rejects: f runs on the default dispatcher, for every error except
     * cancellation unless policy is catch_policy::all_errors.
     */
    template <class F>
    promise recover(F &&f, catch_policy policy = catch_policy::all_except_cancellation) const
    {
        return recover_on(nullptr, std::forward<F>(f), policy);
    }
    /** recover(f, policy) with f run on d. */
    template <class F>
    promise recover(const dispatcher &d, F &&f, catch_policy policy = catch_policy::all_except_cancellation) const
    {
        return recover_on(&d, std::forward<F>(f), policy);
    }

    /** f() once this settles, whatever happened, on the default dispatcher; settles like this one. */
    template <class F>
    promise finally(F &&f) const
    {
        return finally_on(nullptr, std::forward<F>(f));
    }
    /** finally(f) with f run on d. */
    template <class F>
    promise finally(const dispatcher &d, F &&f) const
    {
        return finally_on(&d, std::forward<F>(f));
    }

    /** vow_cancel: rejects at once with the cancellation error if pending; travels upstream. */
    void cancel() const noexcept { vow_cancel(p_); }

    /** Blocks until settled; returns the value or throws the error (see Exceptions). */
    T get() const { return try_get().value(); }
    /** Blocks until settled; the value or the error. Handles the rejection. */
    result<T> try_get() const { return detail::wait_result<T>(p_, -1.0); }

    /** Settles like this one, or rejects with VOW_ERROR_TIMEOUT after d (and cancels this one). */
    template <class Rep, class Period>
    promise timeout(std::chrono::duration<Rep, Period> d) const
    {
        return promise(vow_timeout(p_, detail::seconds(d)));
    }

#if VOW_HPP_STOP_TOKEN
    /** then(f) whose promise a stop request on token cancels (the request travels upstream). */
    template <class F>
    auto then(F &&f, std::stop_token token) const
    {
        auto q = then_on(nullptr, std::forward<F>(f));
        detail::cancel_on_stop(q.handle(), std::move(token));
        return q;
    }
    /** then(d, f) whose promise a stop request on token cancels. */
    template <class F>
    auto then(const dispatcher &d, F &&f, std::stop_token token) const
    {
        auto q = then_on(&d, std::forward<F>(f));
        detail::cancel_on_stop(q.handle(), std::move(token));
        return q;
    }
    /**
     * A promise that settles like this one and that a stop request on token
     * cancels; the cancellation travels upstream to this one unless something
     * else still waits on it. `co_await p.with_stop(token)`.
     */
    promise with_stop(std::stop_token token) const
    {
        promise q(vow_then_on(vow_dispatcher_inline(), p_, nullptr, nullptr, nullptr, nullptr));
        detail::cancel_on_stop(q.handle(), std::move(token));
        return q;
    }
    /** get() that a stop request on token ends: this promise is cancelled (see with_stop) and get throws. */
    T get(std::stop_token token) const { return with_stop(std::move(token)).get(); }
    /** try_get() that a stop request on token ends with the cancellation error. */
    result<T> try_get(std::stop_token token) const { return with_stop(std::move(token)).try_get(); }
#endif

#if VOW_HPP_COROUTINES
    /** co_await p: resumes on the default dispatcher with the value, or throws the error. */
    detail::awaiter<T, false> operator co_await() const noexcept;
    /** co_await p.resume_on(d): resumes on d. */
    detail::awaitable<T> resume_on(const dispatcher &d) const noexcept;
    /** co_await p.try_await(): resumes on the default dispatcher with a result<T>; never throws. */
    detail::awaiter<T, true> try_await() const noexcept;
#endif

private:
    template <class U> friend class promise;
    explicit promise(vow_promise *p) noexcept : p_(p) {}

    static promise rejected_with(vow_error *e) noexcept
    {
        promise p(vow_promise_rejected(e));
        vow_error_release(e);
        return p;
    }

    template <class F>
    auto then_on(const dispatcher *d, F &&f) const
    {
        using Fn = std::decay_t<F>;
        static_assert(detail::callable_with_v<T, Fn>,
                      "vow::promise<T>::then: f must be callable with a T (with nothing for promise<void>)");
        using link = detail::value_link<T, Fn>;
        using U = typename link::U;
        void *ctx = detail::stored<Fn>::pack(std::forward<F>(f));
        vow_promise *q = d != nullptr
                             ? vow_then_on(d->handle(), p_, &link::on_value, nullptr, ctx, detail::stored<Fn>::destroy)
                             : vow_then(p_, &link::on_value, nullptr, ctx, detail::stored<Fn>::destroy);
        return promise<U>::adopt(q);
    }

    template <class F>
    promise recover_on(const dispatcher *d, F &&f, catch_policy policy) const
    {
        using Fn = std::decay_t<F>;
        static_assert(std::is_invocable_v<Fn &, const error &>
#if VOW_HPP_EXCEPTIONS
                          || std::is_invocable_v<Fn &, std::exception_ptr>
#endif
                      ,
                      "vow::promise<T>::recover: f must take a const vow::error& (or a std::exception_ptr)");
        using link = detail::error_link<T, Fn>;
        void *ctx = detail::stored<Fn>::pack(std::forward<F>(f));
        auto c_policy = static_cast<vow_policy>(policy);
        vow_promise *q = d != nullptr ? vow_catch_policy_on(d->handle(), p_, c_policy, &link::on_error, ctx,
                                                            detail::stored<Fn>::destroy)
                                      : vow_catch_policy(p_, c_policy, &link::on_error, ctx, detail::stored<Fn>::destroy);
        return promise(q);
    }

    template <class F>
    promise finally_on(const dispatcher *d, F &&f) const
    {
        using Fn = std::decay_t<F>;
        static_assert(std::is_invocable_v<Fn &>, "vow::promise<T>::finally: f must be callable with nothing");
        void *ctx = detail::stored<Fn>::pack(std::forward<F>(f));
        vow_promise *q = d != nullptr ? vow_finally_on(d->handle(), p_, &detail::plain_link<Fn>::run, ctx,
                                                       detail::stored<Fn>::destroy)
                                      : vow_finally(p_, &detail::plain_link<Fn>::run, ctx, detail::stored<Fn>::destroy);
        return promise(q);
    }

    vow_promise *p_ = nullptr;
};

/* ======================================================================
 * vow::resolver<T>
 * ====================================================================== */

/**
 * The right to settle one pending promise. Copyable (a retain), movable; the
 * last reference to a resolver that neither settled nor adopted anything
 * rejects its promise with VOW_ERROR_BROKEN, so a forgotten resolver cannot
 * hang a chain. Settling returns true if this call settled (or adopted for)
 * the promise, false if the resolver was already used or is empty. Any
 * thread.
 */
template <class T>
class resolver {
public:
    resolver() noexcept = default;
    resolver(const resolver &other) noexcept : r_(vow_resolver_retain(other.r_)) {}
    resolver(resolver &&other) noexcept : r_(std::exchange(other.r_, nullptr)) {}
    resolver &operator=(const resolver &other) noexcept
    {
        vow_resolver *old = r_;
        r_ = vow_resolver_retain(other.r_);
        vow_resolver_release(old);
        return *this;
    }
    resolver &operator=(resolver &&other) noexcept
    {
        /* Empties the source, then lets go of the old handle (safe for self-move). */
        vow_resolver_release(std::exchange(r_, std::exchange(other.r_, nullptr)));
        return *this;
    }
    ~resolver() { vow_resolver_release(r_); }

    static resolver adopt(vow_resolver *r) noexcept { return resolver(r); }
    static resolver borrow(vow_resolver *r) noexcept { return resolver(vow_resolver_retain(r)); }
    vow_resolver *handle() const noexcept { return r_; }
    vow_resolver *release_handle() noexcept { return std::exchange(r_, nullptr); }
    explicit operator bool() const noexcept { return r_ != nullptr; }

    /**
     * Fulfils with x (converted to T). A T with no vow form rejects with the
     * type error instead (that counts as settling).
     */
    template <class U = T,
              class = std::enable_if_t<!std::is_void_v<T> && !detail::is_promise_v<std::decay_t<U>> &&
                                       std::is_constructible_v<detail::element_t<T>, U &&>>>
    bool resolve(U &&x) const
    {
        vow_error *e = nullptr;
        detail::encoded v = [&] {
            if constexpr (std::is_same_v<std::decay_t<U>, T>) {
                return detail::encode_or_error<T>(x, &e);
            } else {
                return detail::encode_or_error<T>(T(std::forward<U>(x)), &e);
            }
        }();
        if (!v) {
            int status = vow_resolver_reject(r_, e);
            vow_error_release(e);
            return status == VOW_OK;
        }
        return vow_resolver_fulfill(r_, v.v) == VOW_OK;
    }
    /** promise<void>: fulfils. */
    template <class U = T, class = std::enable_if_t<std::is_void_v<U>>>
    bool resolve() const noexcept
    {
        return vow_resolver_fulfill(r_, detail::null_value()) == VOW_OK;
    }
    /** Follows p: settles as p settles (an empty p rejects with the cxx_no_handle error). */
    bool resolve(const promise<T> &p) const noexcept
    {
        if (!p) return reject(error::adopt(detail::no_handle_error("vow::promise")));
        vow_value *v = vow_value_promise(p.handle());
        int status = vow_resolver_resolve(r_, v);
        vow_value_release(v);
        return status == VOW_OK;
    }
    /** Rejects with e. */
    bool reject(const error &e) const noexcept
    {
        if (e.handle() == nullptr) return reject(error::adopt(detail::no_handle_error("vow::error")));
        return vow_resolver_reject(r_, e.handle()) == VOW_OK;
    }
#if VOW_HPP_EXCEPTIONS
    /** Rejects with the error exception travels as (see Exceptions). */
    bool reject(std::exception_ptr exception) const noexcept { return reject(error::from_exception(exception)); }
#endif
    /** Whether settled or adopted already (vow_resolver_is_used). */
    bool is_used() const noexcept { return vow_resolver_is_used(r_); }

    /**
     * f() runs once, on the default dispatcher, when cancellation reaches this
     * producer (vow_resolver_on_cancel); f is dropped if the promise settles
     * otherwise. Returns false for an empty resolver. f must not throw.
     */
    template <class F>
    bool on_cancel(F &&f) const
    {
        using Fn = std::decay_t<F>;
        void *ctx = detail::stored<Fn>::pack(std::forward<F>(f));
        return vow_resolver_on_cancel(r_, &detail::plain_link<Fn>::run, ctx, detail::stored<Fn>::destroy) == VOW_OK;
    }
    /** on_cancel(f) with f run on d. */
    template <class F>
    bool on_cancel(const dispatcher &d, F &&f) const
    {
        using Fn = std::decay_t<F>;
        void *ctx = detail::stored<Fn>::pack(std::forward<F>(f));
        return vow_resolver_on_cancel_on(r_, d.handle(), &detail::plain_link<Fn>::run, ctx,
                                         detail::stored<Fn>::destroy) == VOW_OK;
    }

private:
    explicit resolver(vow_resolver *r) noexcept : r_(r) {}
    vow_resolver *r_ = nullptr;
};

template <class T>
inline std::pair<promise<T>, resolver<T>>
promise<T>::pending() noexcept
{
    vow_resolver *r = nullptr;
    vow_promise *p = vow_promise_pending(&r);
    return {promise(p), resolver<T>::adopt(r)};
}

/* ======================================================================
 * Free functions: async, combinators, time
 * ====================================================================== */

/** f() run on d; a promise of its result (stlab's async(executor, f), vow_dispatch). */
template <class F>
inline auto
async(const dispatcher &d, F &&f)
{
    using Fn = std::decay_t<F>;
    static_assert(std::is_invocable_v<Fn &>, "vow::async: f must be callable with nothing");
    using link = detail::dispatch_link<Fn>;
    void *ctx = detail::stored<Fn>::pack(std::forward<F>(f));
    return promise<typename link::U>::adopt(vow_dispatch(d.handle(), &link::run, ctx, detail::stored<Fn>::destroy));
}

/**
 * All of ps: a promise of a tuple of their values in order (std::monostate for
 * a promise<void>), or the first rejection's error (vow_when).
 */
template <class... Ts>
inline promise<std::tuple<detail::element_t<Ts>...>>
when_all(const promise<Ts> &...ps)
{
    vow_promise *handles[sizeof...(Ts) > 0 ? sizeof...(Ts) : 1] = {ps.handle()...};
    return promise<std::tuple<detail::element_t<Ts>...>>::adopt(vow_when(handles, sizeof...(Ts)));
}

namespace detail {
template <class T> using vector_of_t = std::conditional_t<std::is_void_v<T>, void, std::vector<element_t<T>>>;

template <class T>
inline std::vector<vow_promise *>
handles_of(const std::vector<promise<T>> &ps)
{
    std::vector<vow_promise *> handles;
    handles.reserve(ps.size());
    for (const promise<T> &p : ps) handles.push_back(p.handle());
    return handles;
}

template <class T, class... Ts>
inline constexpr bool all_same_v = (std::is_same_v<T, Ts> && ...);
} // namespace detail

/** All of ps: a promise of a vector of their values in order (promise<void> for void), or the first error. */
template <class T>
inline promise<detail::vector_of_t<T>>
when_all(const std::vector<promise<T>> &ps)
{
    std::vector<vow_promise *> handles = detail::handles_of(ps);
    return promise<detail::vector_of_t<T>>::adopt(vow_when(handles.data(), handles.size()));
}

/** Settles like the first of ps to settle; the others are then cancelled (vow_race). */
template <class T, class... Ts>
inline promise<T>
race(const promise<T> &first, const promise<Ts> &...rest)
{
    static_assert(detail::all_same_v<T, Ts...>, "vow::race: every promise must have the same value type");
    vow_promise *handles[] = {first.handle(), rest.handle()...};
    return promise<T>::adopt(vow_race(handles, 1 + sizeof...(Ts)));
}

/** race over a vector (empty: rejects with VOW_ERROR_EMPTY). */
template <class T>
inline promise<T>
race(const std::vector<promise<T>> &ps)
{
    std::vector<vow_promise *> handles = detail::handles_of(ps);
    return promise<T>::adopt(vow_race(handles.data(), handles.size()));
}

/**
 * The first of ps to fulfil, skipping rejections; the others are then
 * cancelled. If all reject, the error of the last one (vow_any).
 */
template <class T, class... Ts>
inline promise<T>
any(const promise<T> &first, const promise<Ts> &...rest)
{
    static_assert(detail::all_same_v<T, Ts...>, "vow::any: every promise must have the same value type");
    vow_promise *handles[] = {first.handle(), rest.handle()...};
    return promise<T>::adopt(vow_any(handles, 1 + sizeof...(Ts)));
}

/** any over a vector (empty: rejects with VOW_ERROR_EMPTY). */
template <class T>
inline promise<T>
any(const std::vector<promise<T>> &ps)
{
    std::vector<vow_promise *> handles = detail::handles_of(ps);
    return promise<T>::adopt(vow_any(handles.data(), handles.size()));
}

/** A promise<void> fulfilled after d (vow_after: zero or negative at once; cancelling stops the timer). */
template <class Rep, class Period>
inline promise<void>
after(std::chrono::duration<Rep, Period> d)
{
    return promise<void>::adopt(vow_after(detail::seconds(d)));
}

/* ======================================================================
 * Coroutines (C++20)
 * ====================================================================== */

#if VOW_HPP_COROUTINES
namespace detail {

/*
 * The awaiter of co_await p. A settled p is read at once (vow_wait with no
 * wait, which handles a rejection); a pending one gets a link (vow_then or
 * vow_then_on) whose callbacks store the outcome and whose destroy resumes the
 * coroutine: destroy runs after the callback (on the dispatcher), or instead of
 * it if the dispatcher dropped the job (the coroutine then sees cancellation).
 * Nothing touches the awaiter after the link is registered: the coroutine may
 * already run on another thread.
 */
template <class T, bool Try>
class awaiter {
public:
    awaiter(vow_promise *p, vow_dispatcher *d) noexcept : p_(vow_promise_retain(p)), d_(vow_dispatcher_retain(d)) {}
    awaiter(awaiter &&other) noexcept
        : p_(std::exchange(other.p_, nullptr)), d_(std::exchange(other.d_, nullptr)),
          v_(std::exchange(other.v_, nullptr)), e_(std::exchange(other.e_, nullptr))
    {
    }
    awaiter(const awaiter &) = delete;
    awaiter &operator=(const awaiter &) = delete;
    awaiter &operator=(awaiter &&) = delete;
    ~awaiter()
    {
        vow_promise_release(p_);
        vow_dispatcher_release(d_);
        vow_value_release(v_);
        vow_error_release(e_);
    }

    bool await_ready() noexcept
    {
        if (p_ == nullptr) {
            e_ = no_handle_error("vow::promise");
            return true;
        }
        if (vow_promise_state(p_) == VOW_PENDING) return false;
        vow_wait(p_, 0.0, &v_, &e_);
        return true;
    }

    void await_suspend(std::coroutine_handle<> h) noexcept
    {
        h_ = h;
        vow_promise *q = d_ != nullptr ? vow_then_on(d_, p_, &on_value, &on_error, this, &resume)
                                       : vow_then(p_, &on_value, &on_error, this, &resume);
        vow_promise_release(q);
    }

    auto await_resume()
    {
        result<T> outcome = e_ != nullptr ? result<T>(error::borrow(e_)) : decode_result<T>(v_);
        if constexpr (Try) {
            return outcome;
        } else {
            return std::move(outcome).value();
        }
    }

private:
    static void on_value(void *ctx, const vow_value *v, vow_result *) noexcept
    {
        static_cast<awaiter *>(ctx)->v_ = vow_value_retain(v);
    }
    static void on_error(void *ctx, const vow_error *e, vow_result *) noexcept
    {
        static_cast<awaiter *>(ctx)->e_ = vow_error_retain(e);
    }
    static void resume(void *ctx) noexcept
    {
        auto *self = static_cast<awaiter *>(ctx);
        if (self->v_ == nullptr && self->e_ == nullptr) self->e_ = vow_error_cancelled();
        self->h_.resume();
    }

    vow_promise *p_ = nullptr;
    vow_dispatcher *d_ = nullptr;
    vow_value *v_ = nullptr;
    vow_error *e_ = nullptr;
    std::coroutine_handle<> h_;
};

/** What p.resume_on(d) returns: co_await it (or .try_await()). */
template <class T>
class awaitable {
public:
    awaitable(const promise<T> &p, dispatcher d) noexcept : p_(p), d_(std::move(d)) {}
    awaiter<T, false> operator co_await() const noexcept { return awaiter<T, false>(p_.handle(), d_.handle()); }
    awaiter<T, true> try_await() const noexcept { return awaiter<T, true>(p_.handle(), d_.handle()); }

private:
    promise<T> p_;
    dispatcher d_;
};

/** The promise_type of a coroutine returning vow::promise<T>: eager, settles its promise. */
template <class T>
struct coroutine_base {
    coroutine_base() noexcept
    {
        auto made = promise<T>::pending();
        promise_ = std::move(made.first);
        resolver_ = std::move(made.second);
    }
    promise<T> get_return_object() noexcept { return std::move(promise_); }
    std::suspend_never initial_suspend() const noexcept { return {}; }
    std::suspend_never final_suspend() const noexcept { return {}; }
    void unhandled_exception() noexcept
    {
#if VOW_HPP_EXCEPTIONS
        resolver_.reject(std::current_exception());
#else
        std::terminate();
#endif
    }

protected:
    promise<T> promise_;
    resolver<T> resolver_;
};

template <class T>
struct coroutine_promise : coroutine_base<T> {
    template <class U> void return_value(U &&x) { this->resolver_.resolve(std::forward<U>(x)); }
};

template <>
struct coroutine_promise<void> : coroutine_base<void> {
    void return_void() noexcept { this->resolver_.resolve(); }
};

} // namespace detail

template <class T>
inline detail::awaiter<T, false>
promise<T>::operator co_await() const noexcept
{
    return detail::awaiter<T, false>(p_, nullptr);
}

template <class T>
inline detail::awaitable<T>
promise<T>::resume_on(const dispatcher &d) const noexcept
{
    return detail::awaitable<T>(*this, d);
}

template <class T>
inline detail::awaiter<T, true>
promise<T>::try_await() const noexcept
{
    return detail::awaiter<T, true>(p_, nullptr);
}
#endif /* VOW_HPP_COROUTINES */

} // namespace vow

#endif /* VOW_HPP */
