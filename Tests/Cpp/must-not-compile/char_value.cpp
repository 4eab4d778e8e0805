// expect: vow: the value type must be void, bool, an integer type
// A character type is not an integer type here: char has no vow value.
#include "vow.hpp"
int main() { return vow::promise<char>::fulfilled('a').get() == 'a' ? 0 : 1; }
