/* main.c: a C program that hands texts to a Swift component and gathers the word counts.
 *
 * Each text is a promise made in C; the Swift component (word_stats.h) continues each
 * chain; C gathers them with vow_when and reads the counts. One engine in the process:
 * the program and the component link the same libvow.so. */
#include <stdio.h>
#include <vow.h>
#include "word_stats.h"

#define COUNT 3

int main(void) {
    static const char *texts[COUNT] = {
        "one engine per process",
        "a promise made in C is a promise in Swift",
        "and back",
    };
    vow_resolver *resolvers[COUNT];
    vow_promise *inputs[COUNT], *counts[COUNT];
    for (int i = 0; i < COUNT; i++) {
        inputs[i] = vow_promise_pending(&resolvers[i]);   /* C starts each chain, */
        counts[i] = word_stats_count(inputs[i]);         /* Swift continues it, */
        if (counts[i] == NULL) {
            printf("word_stats_count refused the promise (see the line above)\n");
            return 1;
        }
    }
    vow_promise *all = vow_when(counts, COUNT);          /* C gathers the results. */
    for (int i = 0; i < COUNT; i++) {
        vow_value *text = vow_value_string(texts[i]);
        vow_resolver_fulfill(resolvers[i], text);
        vow_value_release(text);
    }

    vow_value *list = NULL;
    vow_state state = vow_wait(all, 10.0, &list, NULL);
    int64_t total = 0;
    for (size_t i = 0; state == VOW_FULFILLED && i < vow_value_count(list); i++) {
        int64_t words = 0;
        vow_value_get_int(vow_value_at(list, i), &words);
        printf("\"%s\": %lld words\n", texts[i], (long long)words);
        total += words;
    }
    printf("%lld words in %d texts, counted in Swift, gathered in C\n", (long long)total, COUNT);

    vow_value_release(list);
    vow_promise_release(all);
    for (int i = 0; i < COUNT; i++) {
        vow_resolver_release(resolvers[i]);
        vow_promise_release(inputs[i]);
        vow_promise_release(counts[i]);
    }
    return state == VOW_FULFILLED && total == 16 ? 0 : 1;
}
