/*
 * Compiled by check_header.sh as C11 with -Wall -Wextra -pedantic -Werror
 * (gcc and clang): every array-taking function accepts the natural C arrays
 * without a cast (issue 16, item 4).
 */
#include "vow.h"

vow_value *lists(vow_value *v);
vow_promise *combine(vow_promise *p);

vow_value *
lists(vow_value *v)
{
    vow_value *items[2] = {v, v};
    vow_value *const fixed[2] = {v, v};
    const vow_value *consts[2] = {v, v};
    const vow_value *const const_fixed[2] = {v, v};
    vow_value **heap = items;
    vow_value *a = vow_value_list(items, 2);
    vow_value *b = vow_value_list(fixed, 2);
    vow_value *c = vow_value_list(consts, 2);
    vow_value *d = vow_value_list(const_fixed, 2);
    vow_value *e = vow_value_list(heap, 2);
    vow_value *f = vow_value_list(NULL, 0);
    vow_value *all[6] = {a, b, c, d, e, f};
    return vow_value_list(all, 6);
}

vow_promise *
combine(vow_promise *p)
{
    vow_promise *ps[2] = {p, p};
    vow_promise *const fixed[2] = {p, p};
    vow_promise **heap = ps;
    vow_promise *w = vow_when(ps, 2);
    vow_promise *j = vow_join(fixed, 2);
    vow_promise *r = vow_race(heap, 2);
    vow_promise *all[3] = {w, j, r};
    return vow_when(all, 3);
}
