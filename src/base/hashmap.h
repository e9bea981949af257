/* hashmap.h — string-keyed hash map (open addressing) for linear-time name lookups.
 *
 * Ownership: the map copies nothing: keys must outlive the map (they usually live in a graph
 * arena); values are opaque pointers the map never frees. hm_free releases the table only. */
#ifndef FXSH_HASHMAP_H
#define FXSH_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct hm_entry {
    const char *key;
    void *value;
    size_t hash;
} hm_entry;

typedef struct hashmap {
    hm_entry *slots;
    size_t cap, len;   /* cap is a power of two; len counts live keys */
} hashmap;

void hm_init(hashmap *m);
void hm_free(hashmap *m);
size_t hm_hash(const char *key);
/* A 64-bit hash of n bytes, fast on large blocks (8 bytes a step in four lanes): for comparing
 * weights, whose equality is then confirmed byte by byte. */
uint64_t hash_bytes(const void *p, size_t n);
void *hm_get(const hashmap *m, const char *key);            /* NULL if absent */
bool hm_has(const hashmap *m, const char *key);
/* Inserts or replaces; returns the previous value (NULL if the key was new). */
void *hm_put(hashmap *m, const char *key, void *value);
bool hm_remove(hashmap *m, const char *key);

#endif
