/*
 * prices.h: the C face of the Swift component in prices.swift, for C and C++.
 *
 * The component is a Swift library (libprices.so) built against the same libvow.so as
 * the program, so there is one promise engine in the process and a promise passes between
 * C++ and Swift as it is: C++ lends a handle with p.handle() and takes a returned one with
 * vow::promise<T>::adopt. The functions follow vow.h's rules: a returned handle is +1,
 * everything passed in is borrowed, any thread.
 */
#ifndef PRICES_H
#define PRICES_H

#include <stdint.h>
#include <vow.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The price of each symbol of a LIST of STRINGs (borrowed), in order: a promise (+1) of a
 * LIST of DOUBLEs, computed on Vow's background pool once symbols fulfils. An unknown
 * symbol rejects it with the Swift error QuoteError (domain "QuoteError"); symbols' error
 * passes through. NULL symbols returns NULL.
 */
vow_promise *quote_prices(vow_promise *symbols);

/*
 * A DOUBLE promise (borrowed) passed through a Swift step that counts its error, if any,
 * and rejects with that same error: +1. NULL order returns NULL.
 */
vow_promise *quote_audit(vow_promise *order);

/*
 * A live quote for symbol that fulfils with a DOUBLE after seconds (+1). Cancelling it
 * reaches the Swift producer (counted by quote_count(1)) and stops its timer.
 */
vow_promise *quote_live(const char *symbol, double seconds);

/* 0: errors quote_audit saw; 1: live quotes whose producer heard a cancellation. */
int64_t quote_count(int which);

#ifdef __cplusplus
}
#endif

#endif
