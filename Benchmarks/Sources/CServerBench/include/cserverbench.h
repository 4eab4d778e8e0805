/*
 * Bluebird's server benchmarks in C (see server.c and BenchWorkloads/ServerWorkloads.swift):
 * doxbee and parallel, written with plain callbacks and with Vow promises, on a libuv loop
 * through the libuv bridge (vow_uv.h).
 */
#ifndef CSERVERBENCH_H
#define CSERVERBENCH_H

/**
 * Runs `requests` uploads of `workload` (0: doxbee, 1: parallel) at once on this thread's
 * libuv loop, written with promises (`promises` 1) or plain callbacks (0), and returns when
 * every one finished: how many finished without error (-1 if the loop could not be made).
 */
long csb_run(int workload, int promises, long requests);

#endif
