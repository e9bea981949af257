/* meta_rules.h — the meta rule tables in share/fxsh/meta: per ATen overload, its schema
 * (to bind FX args/kwargs by name) and the rule functions that give its output shape, dtype and
 * strides.
 *
 * A record:
 *   - targets: [aten.add.Tensor, aten.sub.Tensor]      one or more overloads sharing the rule
 *                                                      (or Python callables, operator.eq, builtins.len,
 *                                                      math.floor, fxsh.*: no overload)
 *     schema: (Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
 *                                                      (optional) else each target's torch schema
 *                                                      (share/fxsh/aten/schemas.txt)
 *     shape: broadcast(self, other)                    a shape function and its parameters
 *     dtype: promote(self, other)                      alternatives "a | b": the first that applies
 *     dtype1: i64                                      (optional) for output 1 only
 *     strides: contiguous                              (optional) overrides the shape function's
 * Parameters are schema argument names or Python literals (1, [0, 1], False, None). A dtype
 * alternative may also be a bare ScalarType argument (used when it is not None) or a dtype
 * abbreviation (b8, i64, f32). Function names are checked when the table is loaded.
 *
 * Ownership: a meta_rules owns every rule, schema, literal and string until meta_rules_free. */
#ifndef FXSH_META_META_RULES_H
#define FXSH_META_META_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/hashmap.h"
#include "fx/fx_ir.h"
#include "tables/ops.h"
#include "meta/meta_internal.h"

#define MI_MAX_OUTPUTS 8   /* dtypeN keys: N < MI_MAX_OUTPUTS */

typedef struct mi_call {
    const mi_fn_entry *fn;      /* NULL for a constant dtype or a bare argument */
    int *params;                /* >= 0: schema argument index; < 0: literal -(1 + index) */
    size_t np;
    fx_dtype constant;          /* a constant dtype alternative */
    int arg;                    /* a bare ScalarType argument alternative, -1 if none */
} mi_call;

typedef struct mi_alts {
    mi_call *alt;
    size_t n;
} mi_alts;

typedef struct mi_rule {
    const char *target;         /* "aten.add.Tensor" */
    aten_schema schema;
    const fx_arg **defaults;    /* per schema argument: its default, NULL if none */
    mi_call shape;
    mi_alts dtype;              /* every output whose dtype the shape left unset */
    mi_alts dtype_of[MI_MAX_OUTPUTS];
    bool has_strides;
    mi_call strides;
    const char *file;
    int line;
} mi_rule;

typedef struct meta_rules {
    arena arena;
    fx_program *lits;           /* holds literal and default argument trees */
    const fx_arg **lit;         /* literals by index */
    size_t nlit, lit_cap;
    hashmap by_target;          /* "aten.add.Tensor" → mi_rule* */
} meta_rules;

void meta_rules_init(meta_rules *r);
void meta_rules_free(meta_rules *r);
/* Loads records from YAML text (the list under "ops"). A target already present is replaced.
 * On error nothing of this text is kept and false is returned. */
bool meta_rules_load_string(meta_rules *r, const char *name, const char *text, size_t len, diag_sink *d);
bool meta_rules_load_file(meta_rules *r, const char *path, diag_sink *d);
/* The tables shipped with fxsh (the *.yaml files of share/fxsh/meta), parsed once per process and
 * shared read-only by every caller (never free them); NULL after reporting to d. */
const meta_rules *meta_rules_shipped(diag_sink *d);
/* Adds the shipped rules to r, a table of the caller's that user rules can then extend (the
 * YAML is still parsed only once per process). */
bool meta_rules_load_default(meta_rules *r, diag_sink *d);
/* target may carry the "torch.ops." prefix; NULL if no rule. */
const mi_rule *meta_rules_find(const meta_rules *r, const char *target);
/* The default of schema argument i as an argument tree, NULL if it has none. */
const fx_arg *meta_rules_default(const meta_rules *r, const mi_rule *rule, size_t i);
const fx_arg *meta_rules_literal(const meta_rules *r, int param);

#endif
