/* suggest.h — "did you mean": the candidate closest to a mistyped word.
 *
 * Ownership: returns one of the caller's candidate pointers, or NULL; keeps nothing. */
#ifndef FXSH_SUGGEST_H
#define FXSH_SUGGEST_H

#include <stddef.h>

/* The candidate nearest to word by edit distance (insertions, deletions, substitutions and
 * transpositions of adjacent characters), when it is near enough to be a typo: at most 1 edit
 * for words up to 4 characters, 2 up to 8, 3 beyond. Ties go to the earlier candidate. NULL
 * when none is that near, or when word equals a candidate. */
const char *suggest_closest(const char *word, const char *const *cands, size_t n);

/* An accumulator for candidates offered one at a time (callbacks that enumerate names). */
typedef struct suggester {
    const char *word;
    const char *best;      /* borrowed from the candidates: copy it before they go away */
    size_t best_dist;
    char *best_copy;       /* owned copy of best (suggester_add keeps it) */
} suggester;

void suggester_init(suggester *s, const char *word);
void suggester_add(suggester *s, const char *cand);
/* The best candidate so far (owned by s), or NULL. */
const char *suggester_result(const suggester *s);
void suggester_free(suggester *s);

#endif
