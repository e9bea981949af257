/* aten_schemas.c — torch's ATen schemas from share/fxsh/aten/schemas.txt: read once, indexed by
 * "name.overload" (see aten_schemas.h). */
#include "tables/aten_schemas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/hashmap.h"
#include "tables/tables.h"

typedef struct schema_table {
    char *text;             /* the file, each schema line NUL-terminated in place */
    const char **lines;     /* "aten::diff(...) -> Tensor", in file (name) order */
    size_t n;
    hashmap by_key;         /* "diff.default" (in keys) -> line */
    arena keys;
} schema_table;

static schema_table *loaded;

/* The "name.overload" key of a schema line "aten::name[.overload](...": written to buf. */
static bool line_key(const char *line, char *buf, size_t cap)
{
    if (strncmp(line, "aten::", 6) != 0) return false;
    const char *s = line + 6, *paren = strchr(s, '(');
    if (!paren) return false;
    const char *dot = memchr(s, '.', (size_t)(paren - s));
    int n = dot ? snprintf(buf, cap, "%.*s", (int)(paren - s), s)
                : snprintf(buf, cap, "%.*s.default", (int)(paren - s), s);
    return n > 0 && (size_t)n < cap;
}

static schema_table *table(diag_sink *d)
{
    if (loaded) return loaded;
    char dir[4096], path[4200];
    if (!tables_stage_dir("aten", dir, sizeof dir, d)) return NULL;
    snprintf(path, sizeof path, "%s/schemas.txt", dir);
    size_t len;
    char *text = file_read(path, &len, d);
    if (!text) return NULL;
    schema_table *t = xcalloc(1, sizeof *t);
    t->text = text;
    hm_init(&t->by_key);
    arena_init(&t->keys);
    size_t cap = 0;
    for (char *p = text, *end = text + len; p < end;) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        if (nl) *nl = '\0';
        char key[256];
        if (*p != '#' && *p && line_key(p, key, sizeof key)) {
            if (t->n == cap) {
                cap = cap ? cap * 2 : 4096;
                t->lines = xrealloc(t->lines, cap * sizeof *t->lines);
            }
            t->lines[t->n++] = p;
            if (!hm_get(&t->by_key, key)) hm_put(&t->by_key, arena_strdup(&t->keys, key), p);
        }
        p = nl ? nl + 1 : end;
    }
    loaded = t;
    return t;
}

/* target → "name.overload": drops "torch.ops.", "aten." or "aten::", adds ".default". */
static bool target_key(const char *target, char *buf, size_t cap)
{
    const char *s = target;
    if (!strncmp(s, "torch.ops.", 10)) s += 10;
    if (!strncmp(s, "aten::", 6)) s += 6;
    else if (!strncmp(s, "aten.", 5)) s += 5;
    else return false;
    int n = strchr(s, '.') ? snprintf(buf, cap, "%s", s) : snprintf(buf, cap, "%s.default", s);
    return n > 0 && (size_t)n < cap;
}

const char *aten_schemas_lookup(const char *target, diag_sink *d)
{
    char key[256];
    if (!target || !target_key(target, key, sizeof key)) return NULL;
    schema_table *t = table(d);
    return t ? hm_get(&t->by_key, key) : NULL;
}

size_t aten_schemas_overloads(const char *name, const char **out, size_t cap, diag_sink *d)
{
    schema_table *t = table(d);
    if (!t || !name) return 0;
    size_t nl = strlen(name), found = 0;
    for (size_t i = 0; i < t->n; i++) {
        const char *s = t->lines[i] + 6;
        if (strncmp(s, name, nl) != 0 || (s[nl] != '.' && s[nl] != '(')) continue;
        if (found < cap) out[found] = t->lines[i];
        found++;
    }
    return found;
}

size_t aten_schemas_count(diag_sink *d)
{
    schema_table *t = table(d);
    return t ? t->n : 0;
}

const char *aten_schemas_at(size_t i)
{
    schema_table *t = table(NULL);
    return t && i < t->n ? t->lines[i] : NULL;
}

bool aten_schemas_parse(arena *a, const char *target, aten_schema *out, diag_sink *d)
{
    const char *line = aten_schemas_lookup(target, d);
    if (!line) return false;
    return aten_schema_parse(a, line + 6, out, d, (diag_loc){ "schemas.txt", 0, 0 });
}
