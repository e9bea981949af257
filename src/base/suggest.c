/* suggest.c — "did you mean": optimal-string-alignment edit distance to candidate words. */
#include "base/suggest.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

enum { SUGGEST_MAX_LEN = 128 };

static size_t max_edits(size_t len)
{
    return len <= 4 ? 1 : len <= 8 ? 2 : 3;
}

/* Distance between a and b, or limit + 1 when it exceeds limit (or a word is too long). */
static size_t distance(const char *a, const char *b, size_t limit)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > SUGGEST_MAX_LEN || m > SUGGEST_MAX_LEN) return limit + 1;
    if ((n > m ? n - m : m - n) > limit) return limit + 1;
    size_t rows[3][SUGGEST_MAX_LEN + 1];
    size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= m; j++) prev[j] = j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = i;
        size_t row_min = cur[0];
        for (size_t j = 1; j <= m; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t d = prev[j] + 1;
            if (cur[j - 1] + 1 < d) d = cur[j - 1] + 1;
            if (prev[j - 1] + cost < d) d = prev[j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < d)
                d = prev2[j - 2] + 1;
            cur[j] = d;
            if (d < row_min) row_min = d;
        }
        if (row_min > limit) return limit + 1;
        size_t *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[m];
}

const char *suggest_closest(const char *word, const char *const *cands, size_t n)
{
    size_t best_dist = max_edits(strlen(word)) + 1;
    const char *best = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!cands[i]) continue;
        size_t d = distance(word, cands[i], best_dist - 1);
        if (d == 0) return NULL;   /* the word is a candidate: nothing to correct */
        if (d < best_dist) {
            best_dist = d;
            best = cands[i];
        }
    }
    return best;
}

void suggester_init(suggester *s, const char *word)
{
    s->word = word;
    s->best = NULL;
    s->best_dist = max_edits(strlen(word)) + 1;
    s->best_copy = NULL;
}

void suggester_add(suggester *s, const char *cand)
{
    if (!s->best_dist || !cand) return;   /* an exact match was seen: nothing to suggest */
    size_t d = distance(s->word, cand, s->best_dist - 1);
    if (d == 0) {
        s->best_dist = 0;
        free(s->best_copy);
        s->best_copy = NULL;
        s->best = NULL;
        return;
    }
    if (d < s->best_dist) {
        s->best_dist = d;
        free(s->best_copy);
        s->best_copy = xstrdup(cand);
        s->best = s->best_copy;
    }
}

const char *suggester_result(const suggester *s)
{
    return s->best_dist ? s->best_copy : NULL;
}

void suggester_free(suggester *s)
{
    free(s->best_copy);
    s->best_copy = NULL;
    s->best = NULL;
}
