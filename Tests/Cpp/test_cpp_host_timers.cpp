/*
 * test_cpp_host_timers.cpp: a host loop with timers of its own, from C++. vow.hpp adopts
 * the handle of vow_dispatcher_new_with_timers like any host dispatcher
 * (vow::dispatcher::adopt); made the default, it times vow::after and promise::timeout
 * on the loop's clock and thread: armed by a job of the loop, fired when the loop's time
 * comes (the library's real clock does not count), cancelled when no longer needed, and
 * dropped when the loop shuts down (the promise of after is then cancelled). The loop
 * here runs on the test's thread, with a clock the test moves.
 */
#include "cpp_test.hpp"

#include <vector>

using namespace cpp_test;

namespace {

/** A single-threaded loop: a queue of jobs and one-shot timers on a clock the test moves. */
class timer_loop {
public:
    timer_loop()
        : dispatcher_(vow::dispatcher::adopt(
              vow_dispatcher_new_with_timers(&submit, &arm, &cancel, this, &destroyed)))
    {
    }
    timer_loop(const timer_loop &) = delete;
    timer_loop &operator=(const timer_loop &) = delete;

    const vow::dispatcher &dispatcher() const noexcept { return dispatcher_; }
    /** Lets go of the loop's own reference (destroy runs once nothing else holds it). */
    void release() { dispatcher_ = vow::dispatcher(); }

    /** Runs the queued jobs, then the timers due by `until` in order (each followed by the
        jobs it made), and moves the clock there. */
    void run_until(double until)
    {
        for (;;) {
            while (!jobs_.empty()) {
                auto job = jobs_.front();
                jobs_.erase(jobs_.begin());
                job.first(job.second);
            }
            timer *next = nullptr;
            for (auto &t : timers_) {
                if (t.live && t.due <= until && (next == nullptr || t.due < next->due)) next = &t;
            }
            if (next == nullptr) break;
            if (next->due > now_) now_ = next->due;
            next->live = false;
            next->run(next->job);
        }
        if (until > now_) now_ = until;
    }
    /** Shuts down: drops the queued jobs and the live timers. */
    void close()
    {
        for (auto &job : jobs_) vow_job_drop(job.second);
        jobs_.clear();
        for (auto &t : timers_) {
            if (t.live) {
                t.live = false;
                vow_job_drop(t.job);
            }
        }
    }

    int arms = 0;
    int cancels = 0;
    int destroys = 0;
    double last_seconds = -1;

private:
    struct timer {
        double due;
        vow_job run;
        void *job;
        bool live;
    };

    static void submit(void *ctx, vow_job run, void *job)
    {
        static_cast<timer_loop *>(ctx)->jobs_.emplace_back(run, job);
    }
    static void *arm(void *ctx, double seconds, vow_job run, void *job)
    {
        auto *self = static_cast<timer_loop *>(ctx);
        self->arms++;
        self->last_seconds = seconds;
        self->timers_.push_back({self->now_ + seconds, run, job, true});
        return reinterpret_cast<void *>(self->timers_.size()); /* index + 1: stable across growth */
    }
    static void cancel(void *ctx, void *host_timer)
    {
        auto *self = static_cast<timer_loop *>(ctx);
        self->cancels++;
        timer &t = self->timers_[reinterpret_cast<std::size_t>(host_timer) - 1];
        if (t.live) {
            t.live = false;
            vow_job_drop(t.job);
        }
    }
    static void destroyed(void *ctx) { static_cast<timer_loop *>(ctx)->destroys++; }

    vow::dispatcher dispatcher_;
    std::vector<std::pair<vow_job, void *>> jobs_;
    std::vector<timer> timers_;
    double now_ = 0;
};

/** Makes d the default for the scope (vow_after and vow_timeout use the default's clock). */
struct default_dispatcher {
    explicit default_dispatcher(const vow::dispatcher &d) { vow::dispatcher::set_default(d); }
    ~default_dispatcher() { vow::dispatcher::reset_default(); }
};

} // namespace

static void
test_after_on_the_loops_clock()
{
    timer_loop loop;
    REQUIRE(static_cast<bool>(loop.dispatcher()));
    vow::promise<void> five;
    {
        default_dispatcher scope(loop.dispatcher());
        five = vow::after(std::chrono::seconds(5));
    }
    CHECK_EQ(loop.arms, 0); /* armed by a job of the loop, not inside after */
    loop.run_until(0);
    CHECK_EQ(loop.arms, 1);
    CHECK(loop.last_seconds > 4.9 && loop.last_seconds <= 5.0);
    loop.run_until(4.5);
    CHECK(five.is_pending());
    std::this_thread::sleep_for(std::chrono::milliseconds(20)); /* real time does not count */
    CHECK(five.is_pending());
    loop.run_until(5);
    CHECK(five.is_fulfilled());
    CHECK_EQ(loop.cancels, 0);
    five = vow::promise<void>();
    loop.release();
    loop.run_until(10);
    CHECK_EQ(loop.destroys, 1);
}

static void
test_timeout_cancels_its_timer_when_the_promise_settles()
{
    timer_loop loop;
    auto [p, r] = vow::promise<int>::pending();
    vow::promise<int> limited;
    {
        default_dispatcher scope(loop.dispatcher());
        limited = p.timeout(std::chrono::seconds(30));
    }
    loop.run_until(0);
    CHECK_EQ(loop.arms, 1);
    CHECK(r.resolve(7));
    loop.run_until(1); /* the settled promise's link runs; the timer is no longer needed */
    CHECK(limited.is_fulfilled());
    CHECK_EQ(limited.get(), 7);
    CHECK_EQ(loop.cancels, 1);
    loop.run_until(60); /* cancelled: nothing fires */
    CHECK_EQ(limited.get(), 7);
    limited = vow::promise<int>();
    p = vow::promise<int>();
    loop.release();
    loop.run_until(61);
    CHECK_EQ(loop.destroys, 1);
}

static void
test_a_loop_that_shuts_down_cancels_after()
{
    timer_loop loop;
    vow::promise<void> later;
    {
        default_dispatcher scope(loop.dispatcher());
        later = vow::after(std::chrono::hours(1));
    }
    loop.run_until(0);
    CHECK_EQ(loop.arms, 1);
    loop.close();
    REQUIRE(bounded(later));
    CHECK(later.is_rejected());
    CHECK(later.is_cancelled());
    later = vow::promise<void>();
    loop.release();
    CHECK(wait_until([&loop] { return loop.destroys == 1; }));
}

int
main()
{
    return run_all("test_cpp_host_timers", {
                                               {"after on the loop's clock", test_after_on_the_loops_clock},
                                               {"timeout cancels its timer", test_timeout_cancels_its_timer_when_the_promise_settles},
                                               {"a loop that shuts down cancels after", test_a_loop_that_shuts_down_cancels_after},
                                           });
}
