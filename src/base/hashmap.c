/* hashmap.c — string-keyed open-addressing hash map with backward-shift deletion. */
#include "base/hashmap.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

void hm_init(hashmap *m)
{
    m->slots = NULL;
    m->cap = m->len = 0;
}

void hm_free(hashmap *m)
{
    free(m->slots);
    hm_init(m);
}

size_t hm_hash(const char *key)
{
    size_t h = 1469598103934665603ull; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)key; *p; p++) {
        h ^= *p;
        h *= 1099511628211ull;
    }
    return h;
}

static hm_entry *find_slot(const hashmap *m, const char *key, size_t h)
{
    size_t mask = m->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        hm_entry *e = &m->slots[i];
        if (!e->key || (e->hash == h && strcmp(e->key, key) == 0)) return e;
    }
}

static void grow(hashmap *m)
{
    hm_entry *old = m->slots;
    size_t oldcap = m->cap;
    m->cap = oldcap ? oldcap * 2 : 16;
    m->slots = xcalloc(m->cap, sizeof *m->slots);
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].key) *find_slot(m, old[i].key, old[i].hash) = old[i];
    free(old);
}

void *hm_get(const hashmap *m, const char *key)
{
    if (!m->len) return NULL;
    hm_entry *e = find_slot(m, key, hm_hash(key));
    return e->key ? e->value : NULL;
}

bool hm_has(const hashmap *m, const char *key)
{
    if (!m->len) return false;
    return find_slot(m, key, hm_hash(key))->key != NULL;
}

void *hm_put(hashmap *m, const char *key, void *value)
{
    if ((m->len + 1) * 4 > m->cap * 3) grow(m);
    size_t h = hm_hash(key);
    hm_entry *e = find_slot(m, key, h);
    if (e->key) {
        void *prev = e->value;
        e->value = value;
        return prev;
    }
    e->key = key;
    e->hash = h;
    e->value = value;
    m->len++;
    return NULL;
}

bool hm_remove(hashmap *m, const char *key)
{
    if (!m->len) return false;
    hm_entry *e = find_slot(m, key, hm_hash(key));
    if (!e->key) return false;
    size_t mask = m->cap - 1, i = (size_t)(e - m->slots);
    /* Backward-shift: move later entries of the probe run into the hole. */
    for (size_t j = (i + 1) & mask; m->slots[j].key; j = (j + 1) & mask) {
        size_t home = m->slots[j].hash & mask;
        if (((j - home) & mask) >= ((j - i) & mask)) {
            m->slots[i] = m->slots[j];
            i = j;
        }
    }
    m->slots[i].key = NULL;
    m->len--;
    return true;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v * 0x9e3779b97f4a7c15ULL;
    h = (h << 31 | h >> 33) * 0xc2b2ae3d27d4eb4fULL;
    return h;
}

uint64_t hash_bytes(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h0 = 0x243f6a8885a308d3ULL, h1 = 0x13198a2e03707344ULL, h2 = 0xa4093822299f31d0ULL,
             h3 = 0x082efa98ec4e6c89ULL ^ n;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        uint64_t v[4];
        memcpy(v, b + i, sizeof v);
        h0 = mix(h0, v[0]);
        h1 = mix(h1, v[1]);
        h2 = mix(h2, v[2]);
        h3 = mix(h3, v[3]);
    }
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, b + i, 8);
        h0 = mix(h0, v);
    }
    uint64_t tail = 0;
    if (i < n)   /* (an empty region may have no address at all: b + 0 of NULL is undefined) */
        memcpy(&tail, b + i, n - i);
    h1 = mix(h1, tail);
    uint64_t h = mix(mix(mix(h0, h1), h2), h3);
    h ^= h >> 29;
    return h * 0xbf58476d1ce4e5b9ULL ^ (h >> 32);
}
