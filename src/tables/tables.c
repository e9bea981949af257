/* tables.c — finds share/fxsh and keeps each stage's parsed tables for the life of the process. */
#include "tables/tables.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"

#ifndef FXSH_PKGDATADIR
#define FXSH_PKGDATADIR "/usr/local/share/fxsh"
#endif
#ifndef FXSH_SRC_SHAREDIR
#define FXSH_SRC_SHAREDIR "share/fxsh"
#endif

bool tables_stage_dir(const char *subdir, char *buf, size_t cap, diag_sink *d)
{
    /* The user's folder first (FXSH_SHAREDIR), then the installed one, then the sources'. */
    const char *cands[3] = { getenv("FXSH_SHAREDIR"), FXSH_PKGDATADIR, FXSH_SRC_SHAREDIR };
    for (size_t i = 0; i < 3; i++) {
        struct stat st;
        if (!cands[i] || !*cands[i])
            continue;
        int n = snprintf(buf, cap, "%s/%s", cands[i], subdir);
        if (n > 0 && (size_t)n < cap && stat(buf, &st) == 0 && S_ISDIR(st.st_mode))
            return true;
    }
    diagnostic *dg = diag_error(d, (diag_loc){ 0 }, "cannot find fxsh's %s tables (%s/*.yaml)", subdir, subdir);
    diag_set_hint(dg, "set FXSH_SHAREDIR to the directory holding %s/ (share/fxsh in the sources)", subdir);
    return false;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

size_t tables_yaml_files(const char *dir, char ***names, diag_sink *d)
{
    *names = NULL;
    DIR *dh = opendir(dir);
    if (!dh) {
        diag_error(d, (diag_loc){ dir, 0, 0 }, "cannot open table directory: %m");
        return (size_t)-1;
    }
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(dh))) {
        size_t l = strlen(e->d_name);
        if (l > 5 && !strcmp(e->d_name + l - 5, ".yaml")) {
            xgrow((void **)names, &cap, n + 1, sizeof **names);
            (*names)[n++] = xstrdup(e->d_name);
        }
    }
    closedir(dh);
    /* name order, so that a later file's rules replace an earlier one's the same way everywhere */
    if (n)
        qsort(*names, n, sizeof **names, cmp_str);
    return n;
}

/* ---- the cache: one entry per (subdir, list key), a handful in all ---- */

/* Entries are handed out by address, so each is its own allocation, kept until exit. */
typedef struct cached_table {
    struct cached_table *next;
    char *subdir, *list_key;      /* list_key NULL: every top-level list */
    pass_table table;
} cached_table;

static cached_table *cache;
static size_t parse_count;

static bool same_key(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

const pass_table *tables_pass(const char *subdir, const char *list_key, diag_sink *d)
{
    for (cached_table *c = cache; c; c = c->next)
        if (!strcmp(c->subdir, subdir) && same_key(c->list_key, list_key))
            return &c->table;
    cached_table *c = xcalloc(1, sizeof *c);
    pass_table_init(&c->table);
    parse_count++;
    if (!pass_table_load_default(&c->table, subdir, list_key, d)) {
        pass_table_free(&c->table);
        free(c);
        return NULL;
    }
    c->subdir = xstrdup(subdir);
    c->list_key = list_key ? xstrdup(list_key) : NULL;
    c->next = cache;
    cache = c;
    return &c->table;
}

size_t tables_parse_count(void) { return parse_count; }
