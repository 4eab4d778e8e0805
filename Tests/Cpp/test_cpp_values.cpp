/*
 * test_cpp_values.cpp: every value type a vow::promise<T> may hold, as C sees it
 * and back; the type errors (a value of another kind, an integer out of range,
 * a C++ value with no vow form) with their messages; vow::value; a scalar
 * passed on unchanged keeps its handle.
 */
#include "cpp_test.hpp"

#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

using namespace cpp_test;

/* The kind C sees in a promise made from C++. */
template <class T>
static vow_kind
kind_of(const vow::promise<T> &p)
{
    vow_value *v = vow_promise_value(p.handle());
    vow_kind k = vow_value_kind(v);
    vow_value_release(v);
    return k;
}

/* Round trip through a promise and a then: x comes back as x. */
template <class T>
static bool
round_trips(const T &x)
{
    auto p = vow::promise<T>::fulfilled(x).then([](T y) { return y; });
    auto outcome = bounded(p).try_get();
    return outcome.has_value() && *outcome == x;
}

/* The type error's message for reading p's value as U. */
template <class U, class T>
static std::string
type_error_reading(const vow::promise<T> &p)
{
    auto outcome = p.template as<U>().try_get();
    if (outcome.has_value()) return "(no error)";
    if (!outcome.error().is("vow", VOW_ERROR_TYPE)) return std::string("(another error: ") + outcome.error().what() + ")";
    return outcome.error().what();
}

template <class T>
static void
check_integer_limits()
{
    CHECK(round_trips<T>(std::numeric_limits<T>::min()));
    CHECK(round_trips<T>(std::numeric_limits<T>::max()));
    CHECK(round_trips<T>(T(0)));
    CHECK(round_trips<T>(T(1)));
}

static void
test_integers()
{
    check_integer_limits<signed char>();
    check_integer_limits<unsigned char>();
    check_integer_limits<short>();
    check_integer_limits<unsigned short>();
    check_integer_limits<int>();
    check_integer_limits<unsigned>();
    check_integer_limits<long>();
    check_integer_limits<long long>();
    check_integer_limits<std::int64_t>();
    check_integer_limits<std::uint32_t>();
    CHECK(round_trips<std::uint64_t>(static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())));
    CHECK(kind_of(vow::promise<std::uint8_t>::fulfilled(200)) == VOW_KIND_INT);

    /* Out of range on the way in: the reading step rejects, naming the type and the value. */
    auto big = vow::promise<int>::fulfilled(300);
    CHECK_EQ(type_error_reading<std::int8_t>(big), std::string("expected int8_t, found INT (300)"));
    CHECK_EQ(type_error_reading<std::uint8_t>(big), std::string("expected uint8_t, found INT (300)"));
    auto negative = vow::promise<int>::fulfilled(-1);
    CHECK_EQ(type_error_reading<unsigned>(negative), std::string("expected uint32_t, found INT (-1)"));
    CHECK_EQ(type_error_reading<std::uint64_t>(negative), std::string("expected uint64_t, found INT (-1)"));
    auto huge = vow::promise<std::int64_t>::fulfilled(std::numeric_limits<std::int64_t>::min());
    CHECK_EQ(type_error_reading<int>(huge), std::string("expected int32_t, found INT (-9223372036854775808)"));

    /* No vow form on the way out: a uint64_t above INT64_MAX. */
    auto too_big = vow::promise<std::uint64_t>::fulfilled(std::numeric_limits<std::uint64_t>::max());
    auto outcome = too_big.try_get();
    REQUIRE(!outcome.has_value());
    CHECK(outcome.error().is("vow", VOW_ERROR_TYPE));
    CHECK_STR(outcome.error().what(), "a uint64_t has no vow value: it is above INT64_MAX, the largest INT");
    auto [p, r] = vow::promise<std::uint64_t>::pending();
    CHECK(r.resolve(std::numeric_limits<std::uint64_t>::max())); /* settles it, by rejecting */
    CHECK(p.is_rejected());
    auto from_then = vow::promise<int>::fulfilled(1).then([](int) { return std::numeric_limits<std::uint64_t>::max(); });
    auto then_outcome = bounded(from_then).try_get();
    REQUIRE(!then_outcome.has_value());
    CHECK(then_outcome.error().is("vow", VOW_ERROR_TYPE));
}

static void
test_bool_and_floating()
{
    CHECK(round_trips(true));
    CHECK(round_trips(false));
    CHECK(kind_of(vow::promise<bool>::fulfilled(true)) == VOW_KIND_BOOL);
    CHECK(round_trips(0.1));
    CHECK(round_trips(-0.0));
    CHECK(std::signbit(vow::promise<double>::fulfilled(-0.0).then([](double d) { return d; }).get()));
    CHECK(round_trips(std::numeric_limits<double>::infinity()));
    CHECK(round_trips(1.5f));
    CHECK(kind_of(vow::promise<double>::fulfilled(2.5)) == VOW_KIND_DOUBLE);
    auto nan = vow::promise<double>::fulfilled(std::nan("")).then([](double d) { return d; });
    CHECK(std::isnan(bounded(nan).get()));
    /* An INT widens to double (as vow_value_get_double does); a BOOL is not a number. */
    CHECK_EQ(vow::promise<int>::fulfilled(3).as<double>().get(), 3.0);
    CHECK_EQ(type_error_reading<double>(vow::promise<bool>::fulfilled(true)), std::string("expected double, found BOOL"));
    CHECK_EQ(type_error_reading<bool>(vow::promise<int>::fulfilled(1)), std::string("expected bool, found INT (1)"));
    /* A double result equal to an INT input is still a new DOUBLE: the handle is not reused across kinds. */
    auto widened = vow::promise<int>::fulfilled(4).as<double>().then([](double d) { return d; });
    bounded(widened).get();
    CHECK(kind_of(widened) == VOW_KIND_DOUBLE);
}

static void
test_strings_and_bytes()
{
    CHECK(round_trips(std::string("h\xc3\xa9llo, w\xc3\xb6rld")));
    CHECK(round_trips(std::string()));
    CHECK(kind_of(vow::promise<std::string>::fulfilled("text")) == VOW_KIND_STRING);
    /* A NUL byte has no STRING form: a type error, not a cut string. */
    auto with_nul = vow::promise<std::string>::fulfilled(std::string("a\0b", 3));
    auto outcome = with_nul.try_get();
    REQUIRE(!outcome.has_value());
    CHECK(outcome.error().is("vow", VOW_ERROR_TYPE));
    CHECK_STR(outcome.error().what(),
              "a std::string has no vow value: it holds a NUL byte (a STRING cannot; use std::vector<std::uint8_t>)");
    /* Invalid UTF-8 becomes U+FFFD, as vow_value_string says. */
    CHECK_EQ(vow::promise<std::string>::fulfilled("a\xff").get(), std::string("a\xef\xbf\xbd"));

    std::vector<std::uint8_t> bytes{0, 1, 255, 0, 7};
    CHECK(round_trips(bytes));
    CHECK(round_trips(std::vector<std::uint8_t>()));
    CHECK(kind_of(vow::promise<std::vector<std::uint8_t>>::fulfilled(bytes)) == VOW_KIND_BYTES);
    CHECK_EQ(type_error_reading<std::string>(vow::promise<std::vector<std::uint8_t>>::fulfilled(bytes)),
             std::string("expected std::string, found BYTES (5 bytes)"));
    CHECK_EQ(type_error_reading<std::vector<std::uint8_t>>(vow::promise<std::string>::fulfilled("x")),
             std::string("expected std::vector<uint8_t>, found STRING"));
}

static void
test_lists_and_tuples()
{
    CHECK(round_trips(std::vector<int>{1, 2, 3}));
    CHECK(round_trips(std::vector<int>()));
    CHECK(round_trips(std::vector<std::string>{"a", "", "c"}));
    CHECK(round_trips(std::vector<std::vector<int>>{{1}, {}, {2, 3}}));
    CHECK(round_trips(std::vector<bool>{true, false, true}));
    CHECK(round_trips(std::vector<double>{0.5, -1}));
    CHECK(kind_of(vow::promise<std::vector<int>>::fulfilled({1})) == VOW_KIND_LIST);

    using row = std::tuple<int, std::string, double>;
    CHECK(round_trips(row{1, "two", 3.5}));
    CHECK(round_trips(std::tuple<>()));
    CHECK(round_trips(std::tuple<std::vector<int>, bool>({4, 5}, true)));
    auto made = vow::promise<row>::fulfilled(row{1, "two", 3.5});
    vow_value *v = vow_promise_value(made.handle());
    CHECK_EQ(vow_value_count(v), static_cast<std::size_t>(3));
    CHECK_STR(vow_value_get_string(vow_value_at(v, 1)), "two");
    vow_value_release(v);

    /* Mismatches name the item. */
    auto ints = vow::promise<std::vector<int>>::fulfilled({1, 2});
    CHECK_EQ(type_error_reading<row>(ints), std::string("expected std::tuple<int32_t, std::string, double>, found a LIST of 2 values"));
    auto mixed = vow::promise<std::tuple<int, std::string>>::fulfilled({1, "x"});
    CHECK_EQ(type_error_reading<std::vector<int>>(mixed),
             std::string("expected std::vector<int32_t>, item 1: expected int32_t, found STRING"));
    using pair = std::tuple<int, int>;
    CHECK_EQ(type_error_reading<pair>(mixed),
             std::string("expected std::tuple<int32_t, int32_t>, item 1: expected int32_t, found STRING"));
    /* An item with no vow form fails the whole list. */
    auto bad_items = vow::promise<std::vector<std::string>>::fulfilled({"ok", std::string("\0", 1)});
    auto outcome = bad_items.try_get();
    REQUIRE(!outcome.has_value());
    CHECK(outcome.error().is("vow", VOW_ERROR_TYPE));
}

static void
test_vow_value()
{
    vow::value v = vow::value::of(std::vector<int>{7, 8});
    CHECK(v.kind() == VOW_KIND_LIST);
    CHECK_EQ(v.size(), static_cast<std::size_t>(2));
    CHECK_EQ(v[1].get<int>(), 8);
    CHECK(!v[5]);
    CHECK((v.get<std::vector<int>>() == std::vector<int>{7, 8}));
    auto wrong = v.try_get<std::string>();
    REQUIRE(!wrong.has_value());
    CHECK_STR(wrong.error().what(), "expected std::string, found a LIST of 2 values");
    CHECK_THROWS(vow::error, v.get<int>());
    CHECK(!vow::value::try_of(std::string("\0", 1)).has_value());
    CHECK_THROWS(vow::error, vow::value::of(std::numeric_limits<std::uint64_t>::max()));
    auto empty = vow::value().try_get<int>();
    REQUIRE(!empty.has_value());
    CHECK_STR(empty.error().what(), "expected int32_t, found an empty vow::value");

    /* A promise<vow::value> carries any value untouched: the same handle. */
    vow::value text = vow::value::of(std::string("as it is"));
    auto p = vow::promise<vow::value>::fulfilled(text);
    vow::value out = p.then([](vow::value x) { return x; }).get();
    CHECK_EQ(out.handle(), text.handle());
    /* An empty vow::value is the NULL value. */
    CHECK(vow::promise<vow::value>::fulfilled(vow::value()).get().kind() == VOW_KIND_NULL);
    /* A callback returning a vow::value. */
    auto made = vow::promise<int>::fulfilled(2).then([](int x) { return vow::value::of(std::to_string(x)); });
    CHECK_EQ(made.as<std::string>().get(), std::string("2"));
    /* promise<void> ignores whatever value it holds. */
    CHECK(vow::promise<int>::fulfilled(5).as<void>().try_get().has_value());
}

static void
test_unchanged_scalar_keeps_its_handle()
{
    /* A callback that returns the int it got passes the same vow_value on (no new value). */
    auto p = vow::promise<int>::fulfilled(123456);
    auto same = p.then([](int x) { return x; });
    auto changed = p.then([](int x) { return x + 1; });
    CHECK_EQ(bounded(same).get(), 123456);
    CHECK_EQ(bounded(changed).get(), 123457);
    vow_value *a = vow_promise_value(p.handle());
    vow_value *b = vow_promise_value(same.handle());
    vow_value *c = vow_promise_value(changed.handle());
    CHECK_EQ(a, b);
    CHECK(a != c);
    vow_value_release(a);
    vow_value_release(b);
    vow_value_release(c);
}

static void
test_callback_result_types()
{
    /* const char * and std::string_view results make a promise<std::string>. */
    auto text = vow::promise<int>::fulfilled(1).then([](int) { return "literal"; });
    static_assert(std::is_same_v<decltype(text), vow::promise<std::string>>);
    CHECK_EQ(bounded(text).get(), std::string("literal"));
    auto view = vow::promise<int>::fulfilled(1).then([](int) { return std::string_view("view"); });
    static_assert(std::is_same_v<decltype(view), vow::promise<std::string>>);
    CHECK_EQ(bounded(view).get(), std::string("view"));
    /* A callback taking its argument by const reference, or by rvalue reference. */
    auto by_ref = vow::promise<std::string>::fulfilled("ab").then([](const std::string &s) { return s.size(); });
    CHECK_EQ(bounded(by_ref).get(), static_cast<std::size_t>(2));
    auto by_rvalue = vow::promise<std::string>::fulfilled("cd").then([](std::string &&s) { return s + "!"; });
    CHECK_EQ(bounded(by_rvalue).get(), std::string("cd!"));
    /* A generic lambda. */
    auto generic = vow::promise<int>::fulfilled(20).then([](auto x) { return x * 2; });
    CHECK_EQ(bounded(generic).get(), 40);
    /* A void promise's value is the NULL value. */
    auto nothing = vow::promise<int>::fulfilled(1).then([](int) {});
    static_assert(std::is_same_v<decltype(nothing), vow::promise<void>>);
    bounded(nothing).get();
    CHECK(kind_of(nothing) == VOW_KIND_NULL);
}

int
main()
{
    return run_all("test_cpp_values", {
                                           {"integers", test_integers},
                                           {"bool and floating point", test_bool_and_floating},
                                           {"strings and bytes", test_strings_and_bytes},
                                           {"lists and tuples", test_lists_and_tuples},
                                           {"vow::value", test_vow_value},
                                           {"an unchanged scalar keeps its handle", test_unchanged_scalar_keeps_its_handle},
                                           {"callback result types", test_callback_result_types},
                                       });
}
