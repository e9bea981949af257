/* alloc.h — the one allocation funnel (x* functions) and bump arenas for graph data.
 *
 * Ownership: xmalloc/xcalloc/xrealloc/xstrdup return memory the caller frees with free().
 * They never return NULL: on exhaustion they print "fxsh: error: out of memory" and exit(1).
 * Arena allocations belong to the arena and are released all at once by arena_free(). */
#ifndef FXSH_ALLOC_H
#define FXSH_ALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* What the x* functions do on exhaustion, for memory had another way (fmap's mmap'd pages). */
void xalloc_failed(void) __attribute__((noreturn));
/* Grows *items (of *cap elements of elem_size) so that it can hold at least need elements. */
void xgrow(void **items, size_t *cap, size_t need, size_t elem_size);

typedef struct arena_block arena_block;
typedef struct arena {
    arena_block *head;   /* newest block first */
    size_t bytes;        /* total bytes handed out, for stats */
} arena;

void arena_init(arena *a);
void *arena_alloc(arena *a, size_t n);            /* zeroed, 16-byte aligned */
char *arena_strdup(arena *a, const char *s);      /* NULL stays NULL */
char *arena_strndup(arena *a, const char *s, size_t n);
char *arena_printf(arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void arena_free(arena *a);                        /* releases every block; a is reusable */

#endif
