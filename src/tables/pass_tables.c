/* pass_tables.c — YAML loader for the flat record tables of the export and decompose passes. */
#include "tables/pass_tables.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "base/file.h"
#include "base/strbuf.h"
#include "tables/tables.h"
#include "tables/yaml_check.h"


void pass_table_init(pass_table *t)
{
    memset(t, 0, sizeof *t);
    arena_init(&t->arena);
}

void pass_table_free(pass_table *t)
{
    free(t->recs);
    arena_free(&t->arena);
    memset(t, 0, sizeof *t);
}

const char *pt_get(const pt_record *r, const char *key)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->keys[i], key))
            return r->values[i];
    return NULL;
}

static diag_loc node_loc(const char *name, const yaml_node_t *n)
{
    return (diag_loc){ name, (int)n->start_mark.line + 1, (int)n->start_mark.column + 1 };
}

static const char *scalar(const yaml_node_t *n) { return (const char *)n->data.scalar.value; }

static bool load_record(pass_table *t, const char *name, const char *list, yaml_document_t *doc, yaml_node_t *m,
                        diag_sink *d)
{
    if (m->type != YAML_MAPPING_NODE) {
        diag_error(d, node_loc(name, m), "table entry is not a mapping");
        return false;
    }
    size_t n = (size_t)(m->data.mapping.pairs.top - m->data.mapping.pairs.start);
    pt_record r = { 0 };
    r.keys = arena_alloc(&t->arena, (n ? n : 1) * sizeof *r.keys);
    r.values = arena_alloc(&t->arena, (n ? n : 1) * sizeof *r.values);
    r.file = arena_strdup(&t->arena, name);
    r.line = (int)m->start_mark.line + 1;
    r.list = arena_strdup(&t->arena, list);
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(doc, p->key), *v = yaml_document_get_node(doc, p->value);
        if (!k || !v || k->type != YAML_SCALAR_NODE) {
            diag_error(d, node_loc(name, k ? k : m), "table keys must be plain strings");
            return false;
        }
        const char *val;
        if (v->type == YAML_SCALAR_NODE) {
            val = arena_strdup(&t->arena, scalar(v));
        } else if (v->type == YAML_SEQUENCE_NODE) {
            strbuf sb;
            sb_init(&sb);
            for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
                yaml_node_t *e = yaml_document_get_node(doc, *it);
                if (!e || e->type != YAML_SCALAR_NODE) {
                    sb_free(&sb);
                    diag_error(d, node_loc(name, e ? e : v), "list '%s' must hold strings", scalar(k));
                    return false;
                }
                if (sb.len)
                    sb_putc(&sb, ',');
                sb_puts(&sb, scalar(e));
            }
            val = arena_strdup(&t->arena, sb.s ? sb.s : "");
            sb_free(&sb);
        } else {
            diag_error(d, node_loc(name, v), "value of '%s' must be a string or a list of strings", scalar(k));
            return false;
        }
        r.keys[r.n] = arena_strdup(&t->arena, scalar(k));
        r.values[r.n++] = val;
    }
    xgrow((void **)&t->recs, &t->cap, t->n + 1, sizeof *t->recs);
    t->recs[t->n++] = r;
    return true;
}

/* *found tells whether the text has the list; with found non-NULL its absence is no error. */
static bool load_string(pass_table *t, const char *name, const char *text, size_t len, const char *list_key,
                        diag_sink *d, bool *found)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        diag_error(d, (diag_loc){ name, (int)parser.problem_mark.line + 1, (int)parser.problem_mark.column + 1 },
                   "YAML: %s", parser.problem ? parser.problem : "parse error");
        yaml_parser_delete(&parser);
        return false;
    }
    bool ok = false;
    size_t before = t->n;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!yaml_check_expansion(&doc, name, d))
        goto done;
    if (!root || root->type != YAML_MAPPING_NODE) {
        diag_error(d, (diag_loc){ name, 1, 1 }, "table file must be a mapping of lists of records");
        goto done;
    }
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(&doc, p->key), *v = yaml_document_get_node(&doc, p->value);
        if (!k || k->type != YAML_SCALAR_NODE || (list_key && strcmp(scalar(k), list_key) != 0))
            continue;
        if (!v || v->type != YAML_SEQUENCE_NODE) {
            diag_error(d, node_loc(name, v ? v : k), "'%s' must be a list", scalar(k));
            t->n = before;
            goto done;
        }
        for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++)
            if (!load_record(t, name, scalar(k), &doc, yaml_document_get_node(&doc, *it), d)) {
                t->n = before;   /* nothing from this file on error */
                goto done;
            }
        ok = true;
    }
    if (found)
        *found = ok;
    if (!ok && found)
        ok = true;
    else if (!ok)
        diag_error(d, (diag_loc){ name, 1, 1 }, "table file has no '%s' list", list_key ? list_key : "top-level");
done:
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    return ok;
}

bool pass_table_load_string(pass_table *t, const char *name, const char *text, size_t len,
                            const char *list_key, diag_sink *d)
{
    return load_string(t, name, text, len, list_key, d, NULL);
}

bool pass_table_load_file(pass_table *t, const char *path, const char *list_key, diag_sink *d)
{
    size_t len;
    char *text = file_read(path, &len, d);
    if (!text) return false;
    bool ok = pass_table_load_string(t, path, text, len, list_key, d);
    free(text);
    return ok;
}

bool pass_table_load_default(pass_table *t, const char *subdir, const char *list_key, diag_sink *d)
{
    char dir[4096];
    if (!tables_stage_dir(subdir, dir, sizeof dir, d))
        return false;
    char **names;
    size_t n = tables_yaml_files(dir, &names, d);
    if (n == (size_t)-1)
        return false;
    /* a directory may hold several kinds of list: each file adds the ones it has */
    bool ok = true, any = false;
    for (size_t k = 0; k < n; k++) {
        char path[8192];
        size_t len;
        bool found = false;
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        char *text = file_read(path, &len, d);
        ok = text && load_string(t, path, text, len, list_key, d, &found) && ok;
        any |= found;
        free(text);
        free(names[k]);
    }
    free(names);
    if (ok && !any)
        diag_error(d, (diag_loc){ dir, 0, 0 }, "no table file in %s has a '%s' list", dir,
                   list_key ? list_key : "top-level");
    return ok && any;
}
