// A C++ program on Vow built with CMake (target Vow::vow): a promise made pending, a
// lambda that doubles its value on Vow's queue, a bounded wait for the result.
#include <cstdio>
#include <vow.hpp>

int main() {
    auto [p, r] = vow::promise<int>::pending();
    vow::promise<int> doubled = p.then([](int n) { return 2 * n; });
    r.resolve(21);
    int answer = doubled.get();
    std::printf("cpp-app: libvow %s, 21 doubled is %d\n", vow_version(), answer);
    return answer == 42 ? 0 : 1;
}
