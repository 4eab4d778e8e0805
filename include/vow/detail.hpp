/*
 * vow/detail.hpp: the internals of vow.hpp (namespace vow::detail). Not an
 * interface: included by vow.hpp (include that one), never on its own, and
 * free to change between releases. A reference of vow.hpp hides this
 * namespace.
 *
 *   handles      how each vow.h handle is retained and released (basic_handle)
 *   sites        the plain vow.h call, or its _site twin (see Sites in vow.hpp)
 *   values       the boxes kept for the process, the type errors
 *   exceptions   what get() does with an error; a C++ exception carried
 *                inside a "c++" error
 *   conversions  the codecs between C++ types and vow_value
 *   links        how a callback travels in a C context word, and the C
 *                callbacks of then, recover, finally, on_cancel and async
 *   waits        a blocking wait read as a result<T>; a std::stop_token that
 *                cancels a promise
 *   combinators  the handles of a vector of promises
 *   coroutines   the awaiter of co_await, the promise_type of a coroutine
 *
 * Threads: everything here runs on the thread of the vow.hpp call that uses
 * it, except the C callbacks of the links and awaiters, which run where
 * vow.h runs callbacks (the dispatcher's thread) and touch only their own
 * context.
 */
#ifndef VOW_HPP_DETAIL
#define VOW_HPP_DETAIL

#ifndef VOW_HPP
#  error "include vow.hpp, not vow/detail.hpp"
#endif

namespace vow {
namespace detail {

/* ======================================================================
 * Handles: retain and release for basic_handle, one overload a type
 * ====================================================================== */

/** The inline dispatcher (built in: lives as long as the process), asked for once. */
inline vow_dispatcher *
inline_dispatcher() noexcept
{
    static vow_dispatcher *const d = vow_dispatcher_inline();
    return d;
}

/** The background pool (built in), asked for once. */
inline vow_dispatcher *
background_dispatcher() noexcept
{
    static vow_dispatcher *const d = vow_dispatcher_background();
    return d;
}

/** Whether d is one of the built-ins that basic_handle does not count (the library ignores their counts). */
inline bool
is_uncounted(const vow_dispatcher *d) noexcept
{
    return d == inline_dispatcher() || d == background_dispatcher();
}

/* Each takes and returns NULL as vow.h does (basic_handle's destructor skips the call for an empty handle). */
inline vow_value *retain(const vow_value *v) noexcept { return vow_value_retain(v); }
inline void release(vow_value *v) noexcept { vow_value_release(v); }

inline vow_error *retain(const vow_error *e) noexcept { return vow_error_retain(e); }
inline void release(vow_error *e) noexcept { vow_error_release(e); }

inline vow_promise *retain(vow_promise *p) noexcept { return vow_promise_retain(p); }
inline void release(vow_promise *p) noexcept { vow_promise_release(p); }

inline vow_resolver *retain(vow_resolver *r) noexcept { return vow_resolver_retain(r); }
inline void release(vow_resolver *r) noexcept { vow_resolver_release(r); }

inline vow_dispatcher *
retain(vow_dispatcher *d) noexcept
{
    return is_uncounted(d) ? d : vow_dispatcher_retain(d);
}

inline void
release(vow_dispatcher *d) noexcept
{
    if (!is_uncounted(d)) vow_dispatcher_release(d);
}

/* ======================================================================
 * Sites: the vow.h call that makes a promise, with or without a site
 * ====================================================================== */

/**
 * Calls sited(file, line, args...), vow.h's _site twin, when where names a
 * file (the caller's, in a program compiled with VOW_DEBUG_SITES), else
 * plain(args...): the plain call takes two arguments less, so a program that
 * records no site pays nothing for the choice but one test.
 */
template <class Plain, class Sited, class... Args>
inline vow_promise *
make_promise(site where, Plain plain, Sited sited, Args... args) noexcept
{
    if (where.file() != nullptr) return sited(where.file(), where.line(), args...);
    return plain(args...);
}

/* ======================================================================
 * Values: traits, boxes kept for the process, type errors
 * ====================================================================== */

template <class> inline constexpr bool always_false = false;

using destroy_fn = void (*)(void *);

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

/** What a vow_value is, for type errors: "INT (300)", "BYTES (3 bytes)", "a LIST of 2 values". */
inline std::string
describe(const vow_value *v)
{
    /* The kinds in vow_kind's order, from VOW_KIND_NULL (0). */
    static const char *const kinds[] = {"a NULL value", "BOOL", "INT", "DOUBLE", "STRING", "BYTES", "POINTER",
                                        "a LIST", "PROMISE", "ERROR", "THENABLE", "a Swift value with no C form"};
    const vow_kind kind = vow_value_kind(v);
    std::int64_t i = 0;
    std::size_t n = 0;
    switch (kind) {
    case VOW_KIND_INVALID:
        return "no value";
    case VOW_KIND_INT:
        vow_value_get_int(v, &i);
        return "INT (" + std::to_string(i) + ")";
    case VOW_KIND_BYTES:
        vow_value_get_bytes(v, &n);
        return "BYTES (" + std::to_string(n) + " bytes)";
    case VOW_KIND_LIST:
        n = vow_value_count(v);
        return "a LIST of " + std::to_string(n) + (n == 1 ? " value" : " values");
    default:
        break;
    }
    const auto index = static_cast<std::size_t>(kind);
    return index < sizeof kinds / sizeof kinds[0] ? kinds[index] : "a value of an unknown kind";
}

/* ======================================================================
 * Exceptions: what get() does with an error; the error for a C++ exception
 * ====================================================================== */

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

/* ======================================================================
 * Conversions between C++ types and vow_value (see Types in vow.hpp)
 * ====================================================================== */

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

/* ======================================================================
 * Links: what a callback's result makes, how a callback travels in a C
 * context word, the C callbacks of then, recover, finally, on_cancel, async
 * ====================================================================== */

/** The value type of the promise a callback returning R makes. */
template <class R, class = void> struct value_of { using type = std::remove_cv_t<std::remove_reference_t<R>>; };
template <class U> struct value_of<promise<U>> { using type = U; };
template <class U> struct value_of<result<U>> { using type = U; };
template <> struct value_of<const char *> { using type = std::string; };
template <> struct value_of<char *> { using type = std::string; };
template <> struct value_of<std::string_view> { using type = std::string; };
template <class R>
using value_of_t = typename value_of<std::remove_cv_t<std::remove_reference_t<R>>>::type;

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

/* ======================================================================
 * Waits: a blocking wait read as a result<T>; a stop request that cancels
 * ====================================================================== */

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

/* ======================================================================
 * Combinators: handles of a vector, one value type
 * ====================================================================== */

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

/** The vow.h combinator plain (sited with a site) over the n handles, as a promise<R>. */
template <class R, class Plain, class Sited>
inline promise<R>
combine(site where, Plain plain, Sited sited, vow_promise *const *handles, std::size_t n) noexcept
{
    return promise<R>::adopt(make_promise(where, plain, sited, handles, n));
}

/** combine over a list of handles (not empty). */
template <class R, class Plain, class Sited>
inline promise<R>
combine(site where, Plain plain, Sited sited, std::initializer_list<vow_promise *> handles) noexcept
{
    return combine<R>(where, plain, sited, handles.begin(), handles.size());
}

/* ======================================================================
 * Coroutines (C++20)
 * ====================================================================== */

#if VOW_HPP_COROUTINES

/** Where the coroutine that owns a promise_type was written (a base of every vow coroutine's promise_type). */
struct coroutine_site {
    site where;
};

/*
 * The awaiter of co_await p (Try: of p.try_await(), which gives a result<T>).
 * It holds p and d (empty: the default dispatcher) until it is gone, so an
 * awaiter kept in a variable stays valid. A settled p goes on without
 * suspending only when no dispatcher was asked for, or the inline one
 * (await_ready); otherwise a link (vow_then_site or vow_then_on_site, the
 * site of the await, or of the coroutine for a plain co_await inside a vow
 * coroutine) stores the outcome and its destroy resumes the coroutine:
 * destroy runs after the callback (on the dispatcher), or instead of it if the
 * dispatcher dropped the job (the coroutine then sees cancellation). An empty
 * p resumed on a dispatcher travels there as a job (vow_dispatch_site) with the
 * cxx_no_handle error. Nothing touches the awaiter after the job or link is
 * registered: the coroutine may already run on another thread.
 */
template <class T, bool Try>
class awaiter {
public:
    awaiter(promise<T> p, dispatcher d, site where) noexcept : p_(std::move(p)), d_(std::move(d)), where_(where) {}

    bool await_ready() noexcept
    {
        const bool anywhere = !d_ || d_.handle() == inline_dispatcher();
        if (!p_) {
            e_ = error::adopt(no_handle_error("vow::promise"));
            return anywhere;
        }
        if (!anywhere || vow_promise_state(p_.handle()) == VOW_PENDING) return false;
        read_settled();
        return true;
    }

    template <class P>
    void await_suspend(std::coroutine_handle<P> h) noexcept
    {
        site where = where_;
        if constexpr (std::is_base_of_v<coroutine_site, P>) {
            if (where.file() == nullptr) where = h.promise().where;
        }
        h_ = h;
        vow_promise *q = nullptr;
        if (!p_) {
            q = make_promise(where, &vow_dispatch, &vow_dispatch_site, d_.handle(), &nothing, this, &resume);
        } else if (d_) {
            q = make_promise(where, &vow_then_on, &vow_then_on_site, d_.handle(), p_.handle(), &on_value, &on_error,
                             this, &resume);
        } else {
            q = make_promise(where, &vow_then, &vow_then_site, p_.handle(), &on_value, &on_error, this, &resume);
        }
        vow_promise_release(q);
    }

    auto await_resume()
    {
        result<T> outcome = e_ ? result<T>(e_) : decode_result<T>(v_.handle());
        if constexpr (Try) {
            return outcome;
        } else {
            return std::move(outcome).value();
        }
    }

private:
    /* A settled p's outcome, read without waiting (vow_wait handles a rejection). */
    void read_settled() noexcept
    {
        vow_value *v = nullptr;
        vow_error *e = nullptr;
        vow_wait(p_.handle(), 0.0, &v, &e);
        v_ = value::adopt(v);
        e_ = error::adopt(e);
    }
    static void on_value(void *ctx, const vow_value *v, vow_result *) noexcept
    {
        static_cast<awaiter *>(ctx)->v_ = value::borrow(v);
    }
    static void on_error(void *ctx, const vow_error *e, vow_result *) noexcept
    {
        static_cast<awaiter *>(ctx)->e_ = error::borrow(e);
    }
    static void nothing(void *, const vow_value *, vow_result *) noexcept {}
    static void resume(void *ctx) noexcept
    {
        auto *self = static_cast<awaiter *>(ctx);
        if (!self->v_ && !self->e_) self->e_ = error::cancelled();
        self->h_.resume();
    }

    promise<T> p_;
    dispatcher d_;
    site where_;
    value v_;
    error e_;
    std::coroutine_handle<> h_;
};

/** What p.resume_on(d) returns: co_await it (or .try_await()). Holds p and d. */
template <class T>
class awaitable {
public:
    awaitable(const promise<T> &p, const dispatcher &d, site where) noexcept : p_(p), d_(d), where_(where) {}
    awaiter<T, false> operator co_await() const noexcept { return awaiter<T, false>(p_, d_, where_); }
    awaiter<T, true> try_await() const noexcept { return awaiter<T, true>(p_, d_, where_); }

private:
    promise<T> p_;
    dispatcher d_;
    site where_;
};

/*
 * The promise_type of a coroutine returning vow::promise<T>: eager, settles
 * its promise. Made with the coroutine's site (the default argument of the
 * promise_type's constructor is taken where the compiler makes it, inside the
 * coroutine), which the coroutine's promise records and the links of its
 * plain co_awaits too.
 */
template <class T>
struct coroutine_base : coroutine_site {
    explicit coroutine_base(site made_at) noexcept : coroutine_site{made_at}
    {
        auto made = promise<T>::pending(made_at);
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
    coroutine_promise(site made_at = VOW_HPP_CALLER_SITE) noexcept : coroutine_base<T>(made_at) {}
    template <class U> void return_value(U &&x) { this->resolver_.resolve(std::forward<U>(x)); }
};

template <>
struct coroutine_promise<void> : coroutine_base<void> {
    coroutine_promise(site made_at = VOW_HPP_CALLER_SITE) noexcept : coroutine_base<void>(made_at) {}
    void return_void() noexcept { this->resolver_.resolve(); }
};

#endif /* VOW_HPP_COROUTINES */

} // namespace detail
} // namespace vow

#endif /* VOW_HPP_DETAIL */
