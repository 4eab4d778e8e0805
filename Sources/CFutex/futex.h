#ifndef VOW_CFUTEX_H
#define VOW_CFUTEX_H
/* Linux futex wait and wake for the engine's lock (syscall is variadic: Swift cannot call
   it directly). Measurement variant only (VOW_LOCK_FUTEX). */
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline void vow_futex_wait(const void *address, uint32_t expected) {
    syscall(SYS_futex, address, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

static inline void vow_futex_wake_one(const void *address) {
    syscall(SYS_futex, address, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
#endif
