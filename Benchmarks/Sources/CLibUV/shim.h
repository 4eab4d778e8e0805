/* libuv for the C server benchmarks (CServerBench), linked as a system library. */
#define _POSIX_C_SOURCE 200809L
#include <uv.h>
