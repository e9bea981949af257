/* export_tables.c — the export pass's module and op tables (share/fxsh/capture) as lookup structures. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/interrupt.h"
#include "base/shape.h"
#include "base/strbuf.h"
#include "fx/fx_build.h"
#include "capture/export_internal.h"
#include "tables/tables.h"
#include "meta/meta_infer.h"

/* ---- the pass ------------------------------------------------------------------------------ */

const module_spec *xp_find_module_spec(xctx *x, const char *type)
{
    return hm_get(&x->mod_by_type, type);
}

static unsigned where_bits(const char *w)
{
    unsigned b = 0;
    if (w && strstr(w, "function"))
        b |= F_FN;
    if (w && strstr(w, "method"))
        b |= F_METH;
    if (w && strstr(w, "operator"))
        b |= F_OP;
    return b;
}

/* The C builders nn.yaml can name with `builtin:`: the folder's families, in one hashed index. */
static const builtin_family *const builder_families[] = { &xp_mha_builders };
static builtin_index builder_index = BUILTIN_INDEX(builder_families);

const xp_builder_entry *xp_find_builder(const char *name) { return builtin_find(&builder_index, name); }

const char *xp_builder_duplicate(void) { return builtin_duplicate(&builder_index); }

/* Builds the module and op tables from the loaded records. */
bool xp_load_tables(xctx *x)
{
    hm_init(&x->mod_by_type);
    hm_init(&x->op_by_name);
    x->tbl = tables_pass("capture", NULL, x->d);
    if (!x->tbl)
        return false;
    x->mods = xcalloc(x->tbl->n + 1, sizeof *x->mods);
    x->ops = xcalloc(x->tbl->n + 1, sizeof *x->ops);
    int *last = xcalloc(x->tbl->n + 1, sizeof *last);
    for (size_t i = 0; i < x->tbl->n; i++) {
        const pt_record *r = &x->tbl->recs[i];
        diag_loc l = { r->file, r->line, 0 };
        if (!strcmp(r->list, "modules")) {
            module_spec *m = &x->mods[x->n_mods++];
            m->type = pt_get(r, "type");
            m->params = pt_get(r, "params");
            m->buffers = pt_get(r, "buffers");
            m->target = pt_get(r, "target");
            m->inplace_target = pt_get(r, "inplace_target");
            m->schema = pt_get(r, "schema");
            m->args = pt_get(r, "args");
            m->builtin = pt_get(r, "builtin");
            m->shapes = pt_get(r, "shapes");
            if (!m->params)
                m->params = "";
            if (!m->buffers)
                m->buffers = "";
            if (!m->type || (m->target && (!m->schema || !m->args))) {
                diag_error(x->d, l, "module entry needs type, and schema and args with a target");
                free(last);
                return false;
            }
            if (m->builtin) {
                const xp_builder_entry *b = xp_find_builder(m->builtin);
                m->build = b ? b->build : NULL;
                if (!m->build) {
                    diagnostic *dg = diag_error(x->d, l, "module entry names an unknown builtin '%s'", m->builtin);
                    const char *near = builtin_suggest(&builder_index, m->builtin);
                    if (near)
                        diag_set_hint(dg, "did you mean '%s'?", near);
                    free(last);
                    return false;
                }
            }
            if (!hm_has(&x->mod_by_type, m->type))
                hm_put(&x->mod_by_type, m->type, m);
        } else if (!strcmp(r->list, "ops")) {
            op_spec *o = &x->ops[x->n_ops];
            o->name = pt_get(r, "name");
            o->where = where_bits(pt_get(r, "where"));
            o->target = pt_get(r, "target");
            o->schema = pt_get(r, "schema");
            o->need = pt_get(r, "need");
            o->extra = pt_get(r, "extra");
            o->assert_metadata = pt_get(r, "asserts") && !strcmp(pt_get(r, "asserts"), "metadata");
            o->next = -1;
            o->returns_list = pt_get(r, "returns") && !strcmp(pt_get(r, "returns"), "list");
            if (!o->name || !o->target || !o->schema || !o->where) {
                diag_error(x->d, l, "op entry needs name, where, target and schema");
                free(last);
                return false;
            }
            intptr_t first = (intptr_t)hm_get(&x->op_by_name, o->name);
            if (!first)
                hm_put(&x->op_by_name, o->name, (void *)(intptr_t)(x->n_ops + 1));
            else
                x->ops[last[first - 1]].next = (int)x->n_ops;
            if (first)
                last[first - 1] = (int)x->n_ops;
            else
                last[x->n_ops] = (int)x->n_ops;
            x->n_ops++;
        } else {
            diag_error(x->d, l, "unknown table '%s' (expected modules or ops)", r->list);
            free(last);
            return false;
        }
    }
    free(last);
    return true;
}

void xp_free_tables(xctx *x)
{
    free(x->mods);
    free(x->ops);
    hm_free(&x->mod_by_type);
    hm_free(&x->op_by_name);
}
