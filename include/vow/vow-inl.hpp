/*
 * vow/vow-inl.hpp: the definitions of what vow.hpp declares, in the order it
 * declares them (folly's Future-inl.h beside Future.h). Included by vow.hpp
 * after vow/detail.hpp; include vow.hpp, never this file. The rules are
 * stated once, at the declarations.
 */
#ifndef VOW_HPP_INL
#define VOW_HPP_INL

#ifndef VOW_HPP
#  error "include vow.hpp, not vow/vow-inl.hpp"
#endif

namespace vow {

/* ======================================================================
 * vow::site
 * ====================================================================== */

constexpr site::site(const char *file, int line) noexcept : file_(file), line_(file != nullptr ? line : 0) {}

#if defined(__cpp_lib_source_location)
constexpr site::site(const std::source_location &where) noexcept
    : file_(where.file_name()), line_(static_cast<int>(where.line()))
{
}
#endif

constexpr const char *
site::file() const noexcept
{
    return file_;
}

constexpr int
site::line() const noexcept
{
    return line_;
}

/* ======================================================================
 * vow::basic_handle
 * ====================================================================== */

template <class Derived, class C, class Lent>
inline Derived
basic_handle<Derived, C, Lent>::adopt(C *h) noexcept
{
    return Derived(h);
}

template <class Derived, class C, class Lent>
inline Derived
basic_handle<Derived, C, Lent>::borrow(Lent h) noexcept
{
    return Derived(detail::retain(h));
}

template <class Derived, class C, class Lent>
inline Lent
basic_handle<Derived, C, Lent>::handle() const noexcept
{
    return h_;
}

template <class Derived, class C, class Lent>
inline C *
basic_handle<Derived, C, Lent>::release_handle() noexcept
{
    return std::exchange(h_, nullptr);
}

template <class Derived, class C, class Lent>
inline basic_handle<Derived, C, Lent>::operator bool() const noexcept
{
    return h_ != nullptr;
}

template <class Derived, class C, class Lent>
inline basic_handle<Derived, C, Lent>::basic_handle(C *h) noexcept : h_(h)
{
}

template <class Derived, class C, class Lent>
inline basic_handle<Derived, C, Lent>::basic_handle(const basic_handle &other) noexcept : h_(detail::retain(other.h_))
{
}

template <class Derived, class C, class Lent>
inline basic_handle<Derived, C, Lent>::basic_handle(basic_handle &&other) noexcept
    : h_(std::exchange(other.h_, nullptr))
{
}

template <class Derived, class C, class Lent>
inline basic_handle<Derived, C, Lent> &
basic_handle<Derived, C, Lent>::operator=(const basic_handle &other) noexcept
{
    /* Retain first: other may be this object, or hold the last reference to what this one drops. */
    detail::release(std::exchange(h_, detail::retain(other.h_)));
    return *this;
}

template <class Derived, class C, class Lent>
inline basic_handle<Derived, C, Lent> &
basic_handle<Derived, C, Lent>::operator=(basic_handle &&other) noexcept
{
    /* Empty the source first, then let go of the old handle: a self-move keeps the handle. */
    detail::release(std::exchange(h_, std::exchange(other.h_, nullptr)));
    return *this;
}

template <class Derived, class C, class Lent>
inline basic_handle<Derived, C, Lent>::~basic_handle()
{
    /* A moved-from object (every `p = p.then(...)` destroys one) makes no call. */
    if (h_ != nullptr) detail::release(h_);
}

/* ======================================================================
 * vow::value
 * ====================================================================== */

inline value
value::null() noexcept
{
    return value(vow_value_retain(detail::null_value()));
}

inline value
value::pointer(void *p, void (*destroy)(void *)) noexcept
{
    return value(vow_value_pointer(p, destroy));
}

template <class T>
inline value
value::of(const T &x)
{
    return try_of(x).value();
}

template <class T>
inline result<value>
value::try_of(const T &x)
{
    vow_error *e = nullptr;
    detail::encoded v = detail::encode_or_error(x, &e);
    if (!v) return result<value>(error::adopt(e));
    return result<value>(value::adopt(v.take()));
}

inline vow_kind
value::kind() const noexcept
{
    return vow_value_kind(h_);
}

inline std::size_t
value::size() const noexcept
{
    return vow_value_count(h_);
}

inline value
value::operator[](std::size_t i) const noexcept
{
    return borrow(vow_value_at(h_, i));
}

template <class T>
inline T
value::get() const
{
    return try_get<T>().value();
}

template <class T>
inline result<T>
value::try_get() const
{
    if (h_ == nullptr) {
        return result<T>(
            error::adopt(detail::type_error("expected " + detail::codec<T>::name() + ", found an empty vow::value")));
    }
    return detail::decode_result<T>(h_);
}

/* ======================================================================
 * vow::error
 * ====================================================================== */

inline error::error(const char *domain, std::int64_t code, const char *message) noexcept
    : basic_handle(vow_error_new(domain != nullptr ? domain : "", code, message))
{
}

inline error::error(const std::string &domain, std::int64_t code, const std::string &message) noexcept
    : error(domain.c_str(), code, message.c_str())
{
}

inline error::error(const std::string &domain, std::int64_t code, const std::string &message,
                    const value &payload) noexcept
    : basic_handle(vow_error_with_payload(domain.c_str(), code, message.c_str(), payload.handle()))
{
}

inline error
error::cancelled() noexcept
{
    return error::adopt(vow_error_cancelled());
}

#if VOW_HPP_EXCEPTIONS
inline error
error::from_exception(std::exception_ptr exception) noexcept
{
    if (!exception) return error();
    try {
        std::rethrow_exception(exception);
    } catch (...) {
        return error::adopt(detail::error_from_current());
    }
}
#endif

inline const char *
error::what() const noexcept
{
    const char *m = vow_error_message(h_);
    return m != nullptr ? m : "";
}

inline const char *
error::domain() const noexcept
{
    const char *d = vow_error_domain(h_);
    return d != nullptr ? d : "";
}

inline std::int64_t
error::code() const noexcept
{
    return vow_error_code(h_);
}

inline const char *
error::message() const noexcept
{
    return what();
}

inline value
error::payload() const noexcept
{
    return value::borrow(vow_error_payload(h_));
}

inline bool
error::is_cancelled() const noexcept
{
    return vow_error_is_cancelled(h_);
}

inline bool
error::is(const char *domain, std::int64_t code) const noexcept
{
    return h_ != nullptr && std::strcmp(this->domain(), domain) == 0 && vow_error_code(h_) == code;
}

inline std::exception_ptr
error::exception() const noexcept
{
    const std::exception_ptr *carried = detail::exception_in(h_);
    return carried != nullptr ? *carried : std::exception_ptr();
}

#if VOW_HPP_EXCEPTIONS
inline void
error::rethrow() const
{
    if (const std::exception_ptr *carried = detail::exception_in(h_)) std::rethrow_exception(*carried);
    throw *this;
}

inline std::exception_ptr
error::as_exception_ptr() const
{
    if (const std::exception_ptr *carried = detail::exception_in(h_)) return *carried;
    return std::make_exception_ptr(*this);
}
#endif

/* ======================================================================
 * vow::result<T>
 * ====================================================================== */

template <class T>
inline result<T>::result(T v) : value_(std::move(v))
{
}

template <class T>
inline result<T>::result(vow::error e) noexcept : error_(std::move(e))
{
}

template <class T>
inline bool
result<T>::has_value() const noexcept
{
    return value_.has_value();
}

template <class T>
inline result<T>::operator bool() const noexcept
{
    return has_value();
}

template <class T>
inline T &
result<T>::value() &
{
    check();
    return *value_;
}

template <class T>
inline const T &
result<T>::value() const &
{
    check();
    return *value_;
}

template <class T>
inline T &&
result<T>::value() &&
{
    check();
    return std::move(*value_);
}

template <class T>
inline T &
result<T>::operator*() &
{
    return value();
}

template <class T>
inline const T &
result<T>::operator*() const &
{
    return value();
}

template <class T>
inline T &&
result<T>::operator*() &&
{
    return std::move(*this).value();
}

template <class T>
inline T *
result<T>::operator->()
{
    return &value();
}

template <class T>
inline const T *
result<T>::operator->() const
{
    return &value();
}

template <class T>
template <class U>
inline T
result<T>::value_or(U &&fallback) const &
{
    return value_ ? *value_ : T(std::forward<U>(fallback));
}

template <class T>
template <class U>
inline T
result<T>::value_or(U &&fallback) &&
{
    return value_ ? std::move(*value_) : T(std::forward<U>(fallback));
}

template <class T>
inline const vow::error &
result<T>::error() const noexcept
{
    return error_;
}

template <class T>
inline void
result<T>::check() const
{
    if (!value_) detail::fail(error_);
}

inline result<void>::result(vow::error e) noexcept : ok_(false), error_(std::move(e)) {}

inline bool
result<void>::has_value() const noexcept
{
    return ok_;
}

inline result<void>::operator bool() const noexcept
{
    return ok_;
}

inline void
result<void>::value() const
{
    if (!ok_) detail::fail(error_);
}

inline void
result<void>::operator*() const
{
    value();
}

inline const vow::error &
result<void>::error() const noexcept
{
    return error_;
}

/* ======================================================================
 * vow::dispatcher
 * ====================================================================== */

inline dispatcher
dispatcher::inline_() noexcept
{
    return dispatcher(detail::inline_dispatcher());
}

inline dispatcher
dispatcher::background() noexcept
{
    return dispatcher(detail::background_dispatcher());
}

inline dispatcher
dispatcher::default_() noexcept
{
    return borrow(vow_dispatcher_default());
}

inline void
dispatcher::set_default(const dispatcher &d) noexcept
{
    vow_set_default_dispatcher(d.h_);
}

inline void
dispatcher::reset_default() noexcept
{
    vow_set_default_dispatcher(nullptr);
}

inline bool
operator==(const dispatcher &a, const dispatcher &b) noexcept
{
    return a.handle() == b.handle();
}

inline bool
operator!=(const dispatcher &a, const dispatcher &b) noexcept
{
    return a.handle() != b.handle();
}

/* ======================================================================
 * vow::promise<T>
 * ====================================================================== */

template <class T>
inline std::pair<promise<T>, resolver<T>>
promise<T>::pending(site where) noexcept
{
    vow_resolver *r = nullptr;
    vow_promise *p = detail::make_promise(where, &vow_promise_pending, &vow_promise_pending_site, &r);
    return {promise(p), resolver<T>::adopt(r)};
}

template <class T>
template <class U, class>
inline promise<T>
promise<T>::fulfilled(const detail::element_t<U> &x, site where)
{
    vow_error *e = nullptr;
    detail::encoded v = detail::encode_or_error<U>(x, &e);
    if (!v) return rejected_with(e, where);
    return promise(detail::make_promise(where, &vow_promise_fulfilled, &vow_promise_fulfilled_site, v.v));
}

template <class T>
template <class U, class>
inline promise<T>
promise<T>::fulfilled(site where) noexcept
{
    return promise(
        detail::make_promise(where, &vow_promise_fulfilled, &vow_promise_fulfilled_site, detail::null_value()));
}

template <class T>
inline promise<T>
promise<T>::rejected(const error &e, site where) noexcept
{
    if (!e) return rejected_with(detail::no_handle_error("vow::error"), where);
    return promise(detail::make_promise(where, &vow_promise_rejected, &vow_promise_rejected_site, e.handle()));
}

#if VOW_HPP_EXCEPTIONS
template <class T>
inline promise<T>
promise<T>::rejected(std::exception_ptr exception, site where) noexcept
{
    return rejected(error::from_exception(exception), where);
}
#endif

template <class T>
template <class U>
inline promise<U>
promise<T>::as() const noexcept
{
    return promise<U>::borrow(h_);
}

template <class T>
inline bool
promise<T>::valid() const noexcept
{
    return h_ != nullptr;
}

template <class T>
inline vow::state
promise<T>::state() const noexcept
{
    return static_cast<vow::state>(vow_promise_state(h_));
}

/* The three state queries, one line each. */
template <class T> inline bool promise<T>::is_pending() const noexcept { return state() == vow::state::pending; }
template <class T> inline bool promise<T>::is_fulfilled() const noexcept { return state() == vow::state::fulfilled; }
template <class T> inline bool promise<T>::is_rejected() const noexcept { return state() == vow::state::rejected; }

template <class T>
inline bool
promise<T>::is_cancelled() const noexcept
{
    return vow_promise_is_cancelled(h_);
}

template <class T>
template <class F>
inline auto
promise<T>::then(F &&f, site where) const
{
    return then_on(nullptr, std::forward<F>(f), where);
}

template <class T>
template <class F>
inline auto
promise<T>::then(const dispatcher &d, F &&f, site where) const
{
    return then_on(&d, std::forward<F>(f), where);
}

template <class T>
template <class F>
inline promise<T>
promise<T>::recover(F &&f, catch_policy policy, site where) const
{
    return recover_on(nullptr, std::forward<F>(f), policy, where);
}

template <class T>
template <class F>
inline promise<T>
promise<T>::recover(const dispatcher &d, F &&f, catch_policy policy, site where) const
{
    return recover_on(&d, std::forward<F>(f), policy, where);
}

template <class T>
template <class F>
inline promise<T>
promise<T>::finally(F &&f, site where) const
{
    return finally_on(nullptr, std::forward<F>(f), where);
}

template <class T>
template <class F>
inline promise<T>
promise<T>::finally(const dispatcher &d, F &&f, site where) const
{
    return finally_on(&d, std::forward<F>(f), where);
}

template <class T>
inline void
promise<T>::cancel() const noexcept
{
    vow_cancel(h_);
}

template <class T>
inline T
promise<T>::get() const
{
    return try_get().value();
}

template <class T>
inline result<T>
promise<T>::try_get() const
{
    return detail::wait_result<T>(h_, -1.0);
}

template <class T>
template <class Rep, class Period>
inline promise<T>
promise<T>::timeout(std::chrono::duration<Rep, Period> d, site where) const
{
    return promise(detail::make_promise(where, &vow_timeout, &vow_timeout_site, h_, detail::seconds(d)));
}

#if VOW_HPP_STOP_TOKEN
template <class T>
template <class F>
inline auto
promise<T>::then(F &&f, std::stop_token token, site where) const
{
    auto q = then_on(nullptr, std::forward<F>(f), where);
    detail::cancel_on_stop(q.handle(), std::move(token));
    return q;
}

template <class T>
template <class F>
inline auto
promise<T>::then(const dispatcher &d, F &&f, std::stop_token token, site where) const
{
    auto q = then_on(&d, std::forward<F>(f), where);
    detail::cancel_on_stop(q.handle(), std::move(token));
    return q;
}

template <class T>
inline promise<T>
promise<T>::with_stop(std::stop_token token, site where) const
{
    promise q(detail::make_promise(where, &vow_then_on, &vow_then_on_site, detail::inline_dispatcher(), h_, nullptr,
                                   nullptr, nullptr, nullptr));
    detail::cancel_on_stop(q.handle(), std::move(token));
    return q;
}

template <class T>
inline T
promise<T>::get(std::stop_token token, site where) const
{
    return with_stop(std::move(token), where).get();
}

template <class T>
inline result<T>
promise<T>::try_get(std::stop_token token, site where) const
{
    return with_stop(std::move(token), where).try_get();
}
#endif

#if VOW_HPP_COROUTINES
template <class T>
inline detail::awaiter<T, false>
promise<T>::operator co_await() const noexcept
{
    return detail::awaiter<T, false>(*this, dispatcher(), site());
}

template <class T>
inline detail::awaitable<T>
promise<T>::resume_on(const dispatcher &d, site where) const noexcept
{
    return detail::awaitable<T>(*this, d, where);
}

template <class T>
inline detail::awaiter<T, true>
promise<T>::try_await(site where) const noexcept
{
    return detail::awaiter<T, true>(*this, dispatcher(), where);
}
#endif

template <class T>
inline promise<T>
promise<T>::rejected_with(vow_error *e, site where) noexcept
{
    promise p(detail::make_promise(where, &vow_promise_rejected, &vow_promise_rejected_site, e));
    vow_error_release(e);
    return p;
}

template <class T>
template <class F>
inline auto
promise<T>::then_on(const dispatcher *d, F &&f, site where) const
{
    using Fn = std::decay_t<F>;
    static_assert(detail::callable_with_v<T, Fn>,
                  "vow::promise<T>::then: f must be callable with a T (with nothing for promise<void>)");
    using link = detail::value_link<T, Fn>;
    using U = typename link::U;
    void *ctx = detail::stored<Fn>::pack(std::forward<F>(f));
    detail::destroy_fn destroy = detail::stored<Fn>::destroy;
    if (d != nullptr) {
        return promise<U>::adopt(detail::make_promise(where, &vow_then_on, &vow_then_on_site, d->handle(), h_,
                                                      &link::on_value, nullptr, ctx, destroy));
    }
    return promise<U>::adopt(
        detail::make_promise(where, &vow_then, &vow_then_site, h_, &link::on_value, nullptr, ctx, destroy));
}

template <class T>
template <class F>
inline promise<T>
promise<T>::recover_on(const dispatcher *d, F &&f, catch_policy policy, site where) const
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
    detail::destroy_fn destroy = detail::stored<Fn>::destroy;
    if (d != nullptr) {
        return promise(detail::make_promise(where, &vow_catch_policy_on, &vow_catch_policy_on_site, d->handle(), h_,
                                            c_policy, &link::on_error, ctx, destroy));
    }
    return promise(detail::make_promise(where, &vow_catch_policy, &vow_catch_policy_site, h_, c_policy,
                                        &link::on_error, ctx, destroy));
}

template <class T>
template <class F>
inline promise<T>
promise<T>::finally_on(const dispatcher *d, F &&f, site where) const
{
    using Fn = std::decay_t<F>;
    static_assert(std::is_invocable_v<Fn &>, "vow::promise<T>::finally: f must be callable with nothing");
    using link = detail::plain_link<Fn>;
    void *ctx = detail::stored<Fn>::pack(std::forward<F>(f));
    detail::destroy_fn destroy = detail::stored<Fn>::destroy;
    if (d != nullptr) {
        return promise(detail::make_promise(where, &vow_finally_on, &vow_finally_on_site, d->handle(), h_, &link::run,
                                            ctx, destroy));
    }
    return promise(detail::make_promise(where, &vow_finally, &vow_finally_site, h_, &link::run, ctx, destroy));
}

/* ======================================================================
 * vow::resolver<T>
 * ====================================================================== */

template <class T>
inline bool
resolver<T>::is_used() const noexcept
{
    return vow_resolver_is_used(h_);
}

template <class T>
template <class U, class>
inline bool
resolver<T>::resolve(U &&x) const
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
        int status = vow_resolver_reject(h_, e);
        vow_error_release(e);
        return status == VOW_OK;
    }
    return vow_resolver_fulfill(h_, v.v) == VOW_OK;
}

template <class T>
template <class U, class>
inline bool
resolver<T>::resolve() const noexcept
{
    return vow_resolver_fulfill(h_, detail::null_value()) == VOW_OK;
}

template <class T>
inline bool
resolver<T>::resolve(const promise<T> &p) const noexcept
{
    if (!p) return reject(error::adopt(detail::no_handle_error("vow::promise")));
    vow_value *v = vow_value_promise(p.handle());
    int status = vow_resolver_resolve(h_, v);
    vow_value_release(v);
    return status == VOW_OK;
}

template <class T>
inline bool
resolver<T>::reject(const error &e) const noexcept
{
    if (!e) return reject(error::adopt(detail::no_handle_error("vow::error")));
    return vow_resolver_reject(h_, e.handle()) == VOW_OK;
}

#if VOW_HPP_EXCEPTIONS
template <class T>
inline bool
resolver<T>::reject(std::exception_ptr exception) const noexcept
{
    return reject(error::from_exception(exception));
}
#endif

template <class T>
template <class F>
inline bool
resolver<T>::on_cancel(F &&f) const
{
    return on_cancel_on(nullptr, std::forward<F>(f));
}

template <class T>
template <class F>
inline bool
resolver<T>::on_cancel(const dispatcher &d, F &&f) const
{
    return on_cancel_on(&d, std::forward<F>(f));
}

template <class T>
template <class F>
inline bool
resolver<T>::on_cancel_on(const dispatcher *d, F &&f) const
{
    using Fn = std::decay_t<F>;
    void *ctx = detail::stored<Fn>::pack(std::forward<F>(f));
    auto run = &detail::plain_link<Fn>::run;
    detail::destroy_fn destroy = detail::stored<Fn>::destroy;
    int status = d != nullptr ? vow_resolver_on_cancel_on(h_, d->handle(), run, ctx, destroy)
                              : vow_resolver_on_cancel(h_, run, ctx, destroy);
    return status == VOW_OK;
}

/* ======================================================================
 * Free functions
 * ====================================================================== */

template <class F>
inline auto
async(const dispatcher &d, F &&f, site where)
{
    using Fn = std::decay_t<F>;
    static_assert(std::is_invocable_v<Fn &>, "vow::async: f must be callable with nothing");
    using link = detail::dispatch_link<Fn>;
    void *ctx = detail::stored<Fn>::pack(std::forward<F>(f));
    return promise<typename link::U>::adopt(detail::make_promise(where, &vow_dispatch, &vow_dispatch_site, d.handle(),
                                                                 &link::run, ctx, detail::stored<Fn>::destroy));
}

/* The variadic forms, then the vector forms (only these take a site: see Sites). */

template <class... Ts>
inline promise<std::tuple<detail::element_t<Ts>...>>
when_all(const promise<Ts> &...ps)
{
    vow_promise *handles[sizeof...(Ts) > 0 ? sizeof...(Ts) : 1] = {ps.handle()...};
    return detail::combine<std::tuple<detail::element_t<Ts>...>>(site(), &vow_when, &vow_when_site, handles,
                                                                 sizeof...(Ts));
}

template <class T, class... Ts>
inline promise<T>
race(const promise<T> &first, const promise<Ts> &...rest)
{
    static_assert(detail::all_same_v<T, Ts...>, "vow::race: every promise must have the same value type");
    return detail::combine<T>(site(), &vow_race, &vow_race_site, {first.handle(), rest.handle()...});
}

template <class T, class... Ts>
inline promise<T>
any(const promise<T> &first, const promise<Ts> &...rest)
{
    static_assert(detail::all_same_v<T, Ts...>, "vow::any: every promise must have the same value type");
    return detail::combine<T>(site(), &vow_any, &vow_any_site, {first.handle(), rest.handle()...});
}

template <class T>
inline promise<detail::vector_of_t<T>>
when_all(const std::vector<promise<T>> &ps, site where)
{
    return detail::combine<detail::vector_of_t<T>>(where, &vow_when, &vow_when_site, detail::handles_of(ps).data(),
                                                   ps.size());
}

template <class T>
inline promise<T>
race(const std::vector<promise<T>> &ps, site where)
{
    return detail::combine<T>(where, &vow_race, &vow_race_site, detail::handles_of(ps).data(), ps.size());
}

template <class T>
inline promise<T>
any(const std::vector<promise<T>> &ps, site where)
{
    return detail::combine<T>(where, &vow_any, &vow_any_site, detail::handles_of(ps).data(), ps.size());
}

template <class Rep, class Period>
inline promise<void>
after(std::chrono::duration<Rep, Period> d, site where)
{
    return promise<void>::adopt(detail::make_promise(where, &vow_after, &vow_after_site, detail::seconds(d)));
}

} // namespace vow

#endif /* VOW_HPP_INL */
