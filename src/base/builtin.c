/* builtin.c — the hashed index of a stage's C builtin families (builtin.h). */
#include "base/builtin.h"

#include <string.h>

#include "base/suggest.h"

static const char *entry_name(const builtin_family *f, size_t i)
{
    return *(const char *const *)((const char *)f->entries + i * f->size);
}

/* Indexes every family once; a name registered twice is kept in idx->dup. */
static void build(builtin_index *idx)
{
    if (idx->built)
        return;
    idx->built = true;
    hm_init(&idx->by_name);
    for (size_t k = 0; k < idx->nfamilies; k++) {
        const builtin_family *f = idx->families[k];
        for (size_t i = 0; i < f->n; i++) {
            const char *name = entry_name(f, i);
            const void *e = (const char *)f->entries + i * f->size;
            const void *prev = hm_put(&idx->by_name, name, (void *)e);
            if (prev && !idx->dup) {
                idx->dup = name;
                idx->dup_family2 = f->family;
                for (size_t j = 0; j < idx->nfamilies && !idx->dup_family; j++) {
                    const builtin_family *g = idx->families[j];
                    if ((const char *)prev >= (const char *)g->entries &&
                        (const char *)prev < (const char *)g->entries + g->n * g->size)
                        idx->dup_family = g->family;
                }
            }
        }
    }
}

const void *builtin_find(builtin_index *idx, const char *name)
{
    build(idx);
    return idx->dup || !name ? NULL : hm_get(&idx->by_name, name);
}

const char *builtin_duplicate(builtin_index *idx)
{
    build(idx);
    return idx->dup;
}

const char *builtin_suggest(builtin_index *idx, const char *word)
{
    suggester s;
    suggester_init(&s, word);
    for (size_t k = 0; k < idx->nfamilies; k++)
        for (size_t i = 0; i < idx->families[k]->n; i++)
            suggester_add(&s, entry_name(idx->families[k], i));
    /* the names are static: the index's own copy need not outlive s */
    const char *best = suggester_result(&s);
    const char *r = NULL;
    for (size_t k = 0; best && k < idx->nfamilies && !r; k++)
        for (size_t i = 0; i < idx->families[k]->n && !r; i++)
            if (!strcmp(entry_name(idx->families[k], i), best))
                r = entry_name(idx->families[k], i);
    suggester_free(&s);
    return r;
}
