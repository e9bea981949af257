/* builtin.h — the one way a stage registers its C builtins (decompositions, lowerings, meta rule
 * functions, module builders): each family file exports one table of entries whose first member
 * is the name, the stage lists its families in one place, and a name is found with one hash probe
 * in an index built on first use.
 *
 * Ownership: a family describes a static table; the index keeps pointers into those tables and
 * copies nothing. An index lives as long as the process (a static of the stage). */
#ifndef FXSH_BUILTIN_H
#define FXSH_BUILTIN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/hashmap.h"

/* One family's table: n entries of size bytes each, every entry a struct whose first member is
 * `const char *name`. */
typedef struct builtin_family {
    const char *family;      /* "loss": names the family when a name is registered twice */
    const void *entries;
    size_t n, size;
} builtin_family;

/* The family of a static array of entries (its length and entry size taken from the array). */
#define BUILTIN_FAMILY(family, table) { (family), (table), sizeof(table) / sizeof *(table), sizeof *(table) }

typedef struct builtin_index {
    const builtin_family *const *families;
    size_t nfamilies;
    bool built;
    hashmap by_name;         /* name → entry */
    /* the first name two entries share, and their families; the index then finds nothing, so a
     * mistake in the tables cannot pick one of the two silently */
    const char *dup, *dup_family, *dup_family2;
} builtin_index;

/* A stage's index over its families (a static initializer; built on the first lookup). */
#define BUILTIN_INDEX(families) { (families), sizeof(families) / sizeof *(families), false, { NULL, 0, 0 }, NULL, NULL, NULL }

/* The entry registered as name, NULL when none (or when a name is registered twice: see dup). */
const void *builtin_find(builtin_index *idx, const char *name);
/* NULL when every name is registered once; otherwise the name registered twice (idx->dup_family
 * and idx->dup_family2 name the two families). */
const char *builtin_duplicate(builtin_index *idx);
/* The registered name nearest to word, for a "did you mean" hint; NULL when none is near. */
const char *builtin_suggest(builtin_index *idx, const char *word);

#endif
