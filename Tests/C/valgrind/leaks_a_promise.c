/* Leaks one promise on purpose. Run by `run-c-tests.sh --valgrind`, which expects
   valgrind to fail it: `--leak-check=full` with scripts/vow-valgrind.supp (the file
   make install ships) must hide the Swift runtime's one-time allocations and nothing
   that a program owns. */
#include <stdio.h>
#include <vow.h>

int main(void) {
    vow_value *seven = vow_value_int(7);
    vow_promise *leaked = vow_promise_fulfilled(seven);
    printf("leaks_a_promise: made a promise in state %d and never releases it\n", (int)vow_promise_state(leaked));
    vow_value_release(seven);
    return 0;
}
