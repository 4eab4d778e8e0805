/*
 * test_cpp_handles.cpp: the RAII handles of vow.hpp. A copy is a retain, a move
 * is free, the destructor releases (each checked through something the library
 * does at the last release: an unhandled rejection reported, a POINTER's
 * destroy, a broken resolver, a dispatcher's destroy); adopt / borrow /
 * handle / release_handle; pending() with structured bindings; settling twice;
 * empty handles answered like NULL in vow.h.
 */
#include "cpp_test.hpp"

#include <stdexcept>
#include <vector>

using namespace cpp_test;

namespace {

std::atomic<int> unhandled{0};

void
count_unhandled(void *, const vow_error *)
{
    unhandled.fetch_add(1);
}

struct unhandled_counter {
    unhandled_counter()
    {
        unhandled.store(0);
        vow_set_unhandled_error_handler(count_unhandled, nullptr, nullptr);
    }
    ~unhandled_counter() { vow_set_unhandled_error_handler(nullptr, nullptr, nullptr); }
};

std::atomic<int> pointer_destroyed{0};

void
destroy_pointer(void *)
{
    pointer_destroyed.fetch_add(1);
}

} // namespace

static void
test_pending_pair()
{
    auto [p, r] = vow::promise<int>::pending();
    CHECK(p.valid());
    CHECK(static_cast<bool>(r));
    CHECK(p.state() == vow::state::pending);
    CHECK(p.is_pending());
    CHECK(!r.is_used());
    CHECK(r.resolve(7));
    CHECK(r.is_used());
    CHECK(!r.resolve(8));
    CHECK(!r.reject(vow::error("test", 1, "late")));
    CHECK(p.is_fulfilled());
    CHECK(p.state() == vow::state::fulfilled);
    CHECK_EQ(p.get(), 7);

    auto [q, qr] = vow::promise<void>::pending();
    CHECK(qr.resolve());
    CHECK(!qr.resolve());
    CHECK(q.try_get().has_value());
}

static void
test_promise_copies_are_references()
{
    /* The last reference to a rejected promise with no handler reports it: exactly once, at the last release. */
    unhandled_counter counter;
    {
        auto rejected = vow::promise<int>::rejected(vow::error("test", 2, "nobody handles this"));
        vow::promise<int> copy = rejected;
        CHECK_EQ(copy.handle(), rejected.handle());
        vow::promise<int> moved = std::move(copy);
        CHECK(!copy.valid());
        CHECK_EQ(moved.handle(), rejected.handle());
        vow::promise<int> assigned;
        assigned = moved;
        vow::promise<int> &alias = assigned;
        assigned = alias; /* self-assignment keeps the reference */
        CHECK_EQ(assigned.handle(), rejected.handle());
        rejected = vow::promise<int>();
        moved = vow::promise<int>();
        CHECK_EQ(unhandled.load(), 0);
    }
    CHECK_EQ(unhandled.load(), 1);
}

static void
test_adopt_borrow_release_handle()
{
    unhandled_counter counter;
    vow_error *e = vow_error_new("test", 3, "from C");
    vow_promise *h = vow_promise_rejected(e);
    vow_error_release(e);
    {
        auto borrowed = vow::promise<int>::borrow(h); /* +1 of its own */
        CHECK_EQ(borrowed.handle(), h);
        vow_promise_release(h);                       /* the C reference goes */
        CHECK_EQ(unhandled.load(), 0);
        vow_promise *given = borrowed.release_handle(); /* +1 to C: borrowed is empty */
        CHECK(!borrowed.valid());
        CHECK_EQ(given, h);
        auto adopted = vow::promise<int>::adopt(given); /* takes it back without a retain */
        CHECK(adopted.is_rejected());
    }
    CHECK_EQ(unhandled.load(), 1);
}

static void
test_value_handles()
{
    pointer_destroyed.store(0);
    int target = 5;
    {
        vow::value v = vow::value::pointer(&target, destroy_pointer);
        CHECK(v.kind() == VOW_KIND_POINTER);
        CHECK_EQ(vow_value_get_pointer(v.handle()), static_cast<void *>(&target));
        vow::value copy = v;
        vow::value moved = std::move(v);
        CHECK(!v);
        CHECK(v.kind() == VOW_KIND_INVALID);
        vow::value again = vow::value::borrow(copy.handle());
        vow_value *raw = again.release_handle();
        vow::value back = vow::value::adopt(raw);
        copy = moved;
        CHECK_EQ(pointer_destroyed.load(), 0);
    }
    CHECK_EQ(pointer_destroyed.load(), 1);
    vow::value null = vow::value::null();
    CHECK(null.kind() == VOW_KIND_NULL);
}

static void
test_error_handles()
{
    pointer_destroyed.store(0);
    int target = 6;
    {
        vow::error e("app.io", 42, "the disk is full", vow::value::pointer(&target, destroy_pointer));
        CHECK_STR(e.domain(), "app.io");
        CHECK_EQ(e.code(), 42);
        CHECK_STR(e.message(), "the disk is full");
        CHECK_STR(e.what(), "the disk is full");
        CHECK_EQ(vow_value_get_pointer(e.payload().handle()), static_cast<void *>(&target));
        CHECK(e.is("app.io", 42));
        CHECK(!e.is("app.io", 41));
        CHECK(!e.is_cancelled());
        vow::error copy = e;
        vow::error moved = std::move(copy);
        CHECK(copy.handle() == nullptr);
        CHECK_STR(copy.what(), "");
        CHECK_STR(copy.domain(), "");
        const std::exception &as_std = moved;
        CHECK_STR(as_std.what(), "the disk is full");
        vow_error *raw = moved.release_handle();
        vow::error adopted = vow::error::adopt(raw);
        vow::error borrowed = vow::error::borrow(adopted.handle());
        CHECK_EQ(borrowed.handle(), e.handle());
        CHECK_EQ(pointer_destroyed.load(), 0);
    }
    CHECK_EQ(pointer_destroyed.load(), 1);
    vow::error cancelled = vow::error::cancelled();
    CHECK(cancelled.is_cancelled());
    CHECK(cancelled.is("vow", VOW_ERROR_CANCELLED));
    vow::error from_strings(std::string("dom"), 3, std::string("msg"));
    CHECK_STR(from_strings.domain(), "dom");
}

static void
test_resolver_copies()
{
    /* The last reference to an unused resolver breaks its promise; an earlier copy's release does not. */
    auto [p, r] = vow::promise<int>::pending();
    {
        vow::resolver<int> copy = r;
        vow::resolver<int> moved = std::move(copy);
        CHECK(!copy);
        r = vow::resolver<int>();
        CHECK(p.is_pending());
        vow_resolver *raw = moved.release_handle();
        auto adopted = vow::resolver<int>::adopt(raw);
        auto borrowed = vow::resolver<int>::borrow(adopted.handle());
        CHECK(p.is_pending());
    }
    auto outcome = p.try_get();
    REQUIRE(!outcome.has_value());
    CHECK(outcome.error().is("vow", VOW_ERROR_BROKEN));
}

static void
test_resolve_with_promise()
{
    auto [outer, r] = vow::promise<int>::pending();
    auto [inner, ir] = vow::promise<int>::pending();
    CHECK(r.resolve(inner));
    CHECK(r.is_used());
    CHECK(outer.is_pending());
    CHECK(!r.resolve(5));
    ir.resolve(9);
    CHECK_EQ(bounded(outer).get(), 9);

    auto [p2, r2] = vow::promise<int>::pending();
    CHECK(r2.resolve(vow::promise<int>()));
    auto empty_outcome = p2.try_get();
    REQUIRE(!empty_outcome.has_value());
    CHECK(empty_outcome.error().is(vow::cxx_domain, vow::cxx_no_handle));
}

static void
test_empty_handles()
{
    vow::promise<int> empty;
    CHECK(!empty.valid());
    CHECK(empty.state() == vow::state::invalid);
    CHECK(!empty.is_pending());
    empty.cancel(); /* nothing happens */
    {
        auto derived = empty.then([c = counted()](int x) { return x; });
        CHECK(!derived.valid());
        CHECK(!empty.recover([](const vow::error &) { return 0; }).valid());
        CHECK(!empty.finally([] {}).valid());
        CHECK(!empty.timeout(std::chrono::seconds(1)).valid());
    }
    CHECK_EQ(live(), 0); /* the callback's captures were destroyed at once */
    auto outcome = empty.try_get();
    REQUIRE(!outcome.has_value());
    CHECK(outcome.error().is("c++", vow::cxx_no_handle));
    CHECK_THROWS(vow::error, empty.get());

    vow::resolver<int> no_resolver;
    CHECK(!no_resolver.resolve(1));
    CHECK(!no_resolver.reject(vow::error("x", 1, "y")));
    CHECK(!no_resolver.is_used());
    CHECK(!no_resolver.on_cancel([c = counted()] {}));
    CHECK_EQ(live(), 0);

    auto rejected_by_empty_error = vow::promise<int>::rejected(vow::error());
    auto reason = rejected_by_empty_error.try_get();
    REQUIRE(!reason.has_value());
    CHECK(reason.error().is("c++", vow::cxx_no_handle));

    /* A combinator over an empty promise answers like vow_when over NULL: an empty promise. */
    CHECK(!vow::when_all(vow::promise<int>::fulfilled(1), empty).valid());

    /* An empty dispatcher (default-constructed, or moved from) answers like NULL d in vow.h. */
    vow::dispatcher no_dispatcher;
    CHECK(!no_dispatcher);
    CHECK(no_dispatcher.handle() == nullptr);
    CHECK(static_cast<bool>(vow::dispatcher::inline_()));
    {
        auto on_nothing = vow::promise<int>::fulfilled(1).then(no_dispatcher, [c = counted()](int x) { return x; });
        CHECK(!on_nothing.valid());
    }
    CHECK_EQ(live(), 0);
    CHECK(!vow::error());
    CHECK(static_cast<bool>(vow::error("x", 1, "y")));
}

static void
test_dispatcher_handles()
{
    struct host {
        std::atomic<int> destroyed{0};
        static void submit(void *, vow_job run, void *job) { run(job); }
        static void destroy(void *ctx) { static_cast<host *>(ctx)->destroyed.fetch_add(1); }
    } h;
    {
        vow::dispatcher d = vow::dispatcher::adopt(vow_dispatcher_new(&host::submit, &h, &host::destroy));
        vow::dispatcher copy = d;
        vow::dispatcher moved = std::move(copy);
        CHECK(moved == d);
        auto p = vow::promise<int>::fulfilled(20).then(moved, [](int x) { return x + 1; });
        CHECK_EQ(bounded(p).get(), 21);
        vow_dispatcher *raw = moved.release_handle();
        vow::dispatcher back = vow::dispatcher::adopt(raw);
        vow::dispatcher borrowed = vow::dispatcher::borrow(back.handle());
        CHECK_EQ(h.destroyed.load(), 0);
    }
    CHECK(wait_until([&] { return h.destroyed.load() == 1; }));

    /* The built-in ones: the same handles as vow.h's. */
    CHECK(vow::dispatcher::inline_().handle() == vow_dispatcher_inline());
    CHECK(vow::dispatcher::background().handle() == vow_dispatcher_background());
    CHECK(vow::dispatcher::default_().handle() == vow_dispatcher_default());
    vow::dispatcher inline_copy = vow::dispatcher::inline_();
    vow_dispatcher *given = inline_copy.release_handle();
    CHECK(given == vow_dispatcher_inline());
    vow_dispatcher_release(given);
}

/*
 * Move assignment leaves the source empty and lets go of what the target held at once
 * (issue 32, fault 3: it swapped, so the source kept the target's old handle alive, and a
 * resolver's promise stayed pending until the end of the program instead of breaking).
 * Each class is checked through what the library does at the last release of the old
 * handle; self-move keeps the handle.
 */
static void
test_move_assignment_resolver()
{
    auto [p1, r1] = vow::promise<int>::pending();
    auto [p2, r2] = vow::promise<int>::pending();
    vow_resolver *first = r1.handle();
    r2 = std::move(r1);
    CHECK(!r1);
    CHECK(r1.handle() == nullptr);
    CHECK_EQ(r2.handle(), first);
    /* r2's old resolver was the last reference to an unused one: its promise is broken. */
    REQUIRE(!bounded(p2).is_pending());
    auto outcome = p2.try_get();
    REQUIRE(!outcome.has_value());
    CHECK(outcome.error().is("vow", VOW_ERROR_BROKEN));
    CHECK(p1.is_pending());
    CHECK(r2.resolve(4));
    CHECK_EQ(bounded(p1).get(), 4);
    vow::resolver<int> &alias = r2;
    r2 = std::move(alias);
    CHECK_EQ(r2.handle(), first);
}

static void
test_move_assignment_promise()
{
    unhandled_counter counter;
    auto kept = vow::promise<int>::rejected(vow::error("test", 5, "the source, handled below"));
    auto dropped = vow::promise<int>::rejected(vow::error("test", 6, "the target's old promise, never handled"));
    vow_promise *source = kept.handle();
    dropped = std::move(kept);
    CHECK(!kept.valid());
    CHECK(kept.handle() == nullptr);
    CHECK_EQ(dropped.handle(), source);
    CHECK_EQ(unhandled.load(), 1); /* the target's old promise was let go of, unhandled */
    vow::promise<int> &alias = dropped;
    dropped = std::move(alias);
    CHECK_EQ(dropped.handle(), source);
    CHECK(!dropped.try_get().has_value()); /* handles the source's rejection */
    dropped = vow::promise<int>();
    CHECK_EQ(unhandled.load(), 1);
}

static void
test_move_assignment_value()
{
    pointer_destroyed.store(0);
    int first = 1, second = 2;
    vow::value source = vow::value::pointer(&first, destroy_pointer);
    vow::value target = vow::value::pointer(&second, destroy_pointer);
    const vow_value *moved = source.handle();
    target = std::move(source);
    CHECK(!source);
    CHECK(source.handle() == nullptr);
    CHECK_EQ(target.handle(), moved);
    CHECK_EQ(pointer_destroyed.load(), 1); /* the target's old value is gone */
    vow::value &alias = target;
    target = std::move(alias);
    CHECK_EQ(target.handle(), moved);
    target = vow::value();
    CHECK_EQ(pointer_destroyed.load(), 2);
}

static void
test_move_assignment_error()
{
    pointer_destroyed.store(0);
    int first = 1, second = 2;
    vow::error source("test", 7, "source", vow::value::pointer(&first, destroy_pointer));
    vow::error target("test", 8, "target", vow::value::pointer(&second, destroy_pointer));
    const vow_error *moved = source.handle();
    target = std::move(source);
    CHECK(source.handle() == nullptr);
    CHECK_STR(source.what(), "");
    CHECK_EQ(target.handle(), moved);
    CHECK_STR(target.what(), "source");
    CHECK_EQ(pointer_destroyed.load(), 1); /* the target's old error (and its payload) is gone */
    vow::error &alias = target;
    target = std::move(alias);
    CHECK_EQ(target.handle(), moved);
    target = vow::error();
    CHECK_EQ(pointer_destroyed.load(), 2);
}

static void
test_move_assignment_dispatcher()
{
    struct host {
        std::atomic<int> destroyed{0};
        static void submit(void *, vow_job run, void *job) { run(job); }
        static void destroy(void *ctx) { static_cast<host *>(ctx)->destroyed.fetch_add(1); }
    } a, b;
    {
        vow::dispatcher source = vow::dispatcher::adopt(vow_dispatcher_new(&host::submit, &a, &host::destroy));
        vow::dispatcher target = vow::dispatcher::adopt(vow_dispatcher_new(&host::submit, &b, &host::destroy));
        vow_dispatcher *moved = source.handle();
        target = std::move(source);
        CHECK(source.handle() == nullptr);
        CHECK_EQ(target.handle(), moved);
        CHECK(wait_until([&] { return b.destroyed.load() == 1; })); /* the target's old host is let go of */
        vow::dispatcher &alias = target;
        target = std::move(alias);
        CHECK_EQ(target.handle(), moved);
        CHECK_EQ(a.destroyed.load(), 0);
    }
    CHECK(wait_until([&] { return a.destroyed.load() == 1; }));
}

static void
test_as_reads_another_type()
{
    auto p = vow::promise<int>::fulfilled(300);
    CHECK_EQ(p.as<long long>().get(), 300LL);
    CHECK_EQ(p.as<double>().get(), 300.0);
    CHECK(p.as<vow::value>().get().kind() == VOW_KIND_INT);
    auto narrow = p.as<std::int8_t>().try_get();
    REQUIRE(!narrow.has_value());
    CHECK(narrow.error().is("vow", VOW_ERROR_TYPE));
    CHECK_STR(narrow.error().what(), "expected int8_t, found INT (300)");
}

int
main()
{
    return run_all("test_cpp_handles", {
                                            {"pending pair", test_pending_pair},
                                            {"promise copies are references", test_promise_copies_are_references},
                                            {"adopt, borrow, release_handle", test_adopt_borrow_release_handle},
                                            {"value handles", test_value_handles},
                                            {"error handles", test_error_handles},
                                            {"resolver copies", test_resolver_copies},
                                            {"resolve with a promise", test_resolve_with_promise},
                                            {"empty handles", test_empty_handles},
                                            {"dispatcher handles", test_dispatcher_handles},
                                            {"move assignment: resolver", test_move_assignment_resolver},
                                            {"move assignment: promise", test_move_assignment_promise},
                                            {"move assignment: value", test_move_assignment_value},
                                            {"move assignment: error", test_move_assignment_error},
                                            {"move assignment: dispatcher", test_move_assignment_dispatcher},
                                            {"as<U>", test_as_reads_another_type},
                                        });
}
