// expect: vow::promise<T>::then: f must be callable with a T
// then's callback must take the promise's value type.
#include "vow.hpp"
#include <string>
int main() { (void)vow::promise<int>::fulfilled(1).then([](const std::string &s) { return s.size(); }); }
