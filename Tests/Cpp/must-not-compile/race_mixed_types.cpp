// expect: vow::race: every promise must have the same value type
// race settles with one of its inputs' values: they must share a type.
#include "vow.hpp"
int main() { (void)vow::race(vow::promise<int>::fulfilled(1), vow::promise<double>::fulfilled(2.0)); }
