// expect: vow::promise<T>::recover: f must take a const vow::error&
// recover's callback takes the error, not a value.
#include "vow.hpp"
int main() { (void)vow::promise<int>::fulfilled(1).recover([](int x) { return x; }); }
