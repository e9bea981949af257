/* registry.c — loads op rules from YAML (libyaml), picks rules by opset and condition, lists them. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "base/file.h"
#include "base/json_write.h"
#include "base/vec.h"
#include "tables/aten_schemas.h"
#include "tables/ops.h"
#include "tables/tables.h"
#include "tables/yaml_check.h"


#define DEFAULT_OPSET 18

void ops_registry_init(ops_registry *r)
{
    memset(r, 0, sizeof *r);
    arena_init(&r->arena);
    hm_init(&r->by_target);
}

void ops_registry_free(ops_registry *r)
{
    hm_free(&r->by_target);
    free(r->targets);
    arena_free(&r->arena);
    memset(r, 0, sizeof *r);
}

/* ---- loading ---- */

typedef struct loader {
    ops_registry *r;
    yaml_document_t *doc;
    const char *file;        /* arena copy */
    const char *src;
    size_t len;
    const char **lines;      /* start of each source line (for carets) */
    size_t nlines;
    diag_sink *d;
    int file_opset;
    bool failed;
} loader;

static void src_line(loader *L, diagnostic *dg, int line1)
{
    if (line1 < 1 || (size_t)line1 > L->nlines) return;
    const char *b = L->lines[line1 - 1];
    const char *e = memchr(b, '\n', (size_t)(L->src + L->len - b));
    diag_set_source(dg, b, e ? (size_t)(e - b) : (size_t)(L->src + L->len - b));
}

static diagnostic *node_error(loader *L, yaml_node_t *n, const char *fmt, const char *what)
{
    L->failed = true;
    int line = n ? (int)n->start_mark.line + 1 : 0, col = n ? (int)n->start_mark.column + 1 : 0;
    diagnostic *dg = diag_error(L->d, (diag_loc){L->file, line, col}, fmt, what ? what : "");
    src_line(L, dg, line);
    return dg;
}

static const char *scalar(loader *L, yaml_node_t *n, const char *key)
{
    if (!n || n->type != YAML_SCALAR_NODE) {
        node_error(L, n, "'%s' must be a string", key);
        return NULL;
    }
    return arena_strndup(&L->r->arena, (const char *)n->data.scalar.value, n->data.scalar.length);
}

static bool int_value(loader *L, yaml_node_t *n, const char *key, int *out)
{
    const char *s = scalar(L, n, key);
    if (!s) return false;
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < 1 || v > 1000) {
        node_error(L, n, "'%s' must be a positive integer (an opset version)", key);
        return false;
    }
    *out = (int)v;
    return true;
}

/* Where the text of a scalar node starts, for diagnostics inside it (1-based line, 0-based col). */
static void scalar_origin(loader *L, yaml_node_t *n, int *line, int *col)
{
    *line = (int)n->start_mark.line + 1;
    *col = (int)n->start_mark.column;
    if (n->data.scalar.style == YAML_LITERAL_SCALAR_STYLE || n->data.scalar.style == YAML_FOLDED_SCALAR_STYLE) {
        *line += 1;                       /* content starts on the line after '|' */
        *col = 0;
        if ((size_t)*line <= L->nlines) {
            const char *p = L->lines[*line - 1], *end = L->src + L->len;   /* text need not end in NUL */
            while (p < end && *p == ' ') { p++; (*col)++; }
        }
    } else if (n->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
               n->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE) {
        *col += 1;
    }
}

static yaml_node_t *get(loader *L, yaml_node_pair_t *pair, yaml_node_t **key)
{
    *key = yaml_document_get_node(L->doc, pair->key);
    return yaml_document_get_node(L->doc, pair->value);
}

static bool key_is(yaml_node_t *k, const char *s)
{
    return k && k->type == YAML_SCALAR_NODE && k->data.scalar.length == strlen(s) &&
           !memcmp(k->data.scalar.value, s, k->data.scalar.length);
}

static bool load_alt(loader *L, op_rule *rule, yaml_node_t *when, yaml_node_t *low, yaml_node_t *fn,
                     yaml_node_t *builtin, yaml_node_t *refuse, yaml_node_t *where, lowering *out)
{
    memset(out, 0, sizeof *out);
    out->line = (int)where->start_mark.line + 1;
    if (!!low + !!fn + !!builtin + !!refuse != 1) {
        node_error(L, where, "%sgive exactly one of 'lowering', 'function', 'builtin' or 'refuse'", NULL);
        return false;
    }
    if (refuse) {
        out->refuse = scalar(L, refuse, "refuse");
        if (!out->refuse) return false;
    } else if (fn) {
        const char *text = scalar(L, fn, "function");
        if (!text) return false;
        if (!rule->has_schema) {
            node_error(L, fn, "%sa function needs a schema (to bind FX arguments by name): torch has none for "
                          "this target (share/fxsh/aten/schemas.txt), so give the rule 'schema'", NULL);
            return false;
        }
        int line, col;
        scalar_origin(L, fn, &line, &col);
        if (!lowering_parse_function(&L->r->arena, text, &rule->schema, rule->derived, rule->nderived, out, L->d,
                                     L->file, line, col)) {
            L->failed = true;
            return false;
        }
        if (out->nresults != rule->schema.nrets && !(rule->schema.nrets == 1 && rule->schema.rets[0].is_list)) {
            node_error(L, fn, "the function has a different number of outputs than the schema returns%s", NULL);
            return false;
        }
        out->line = line;
    } else if (builtin) {
        out->builtin = scalar(L, builtin, "builtin");
        if (!out->builtin) return false;
        if (L->r->builtin_exists && !L->r->builtin_exists(out->builtin)) {
            diagnostic *dg = node_error(L, builtin, "no C lowering is named '%s'", out->builtin);
            const char *near = L->r->builtin_suggest ? L->r->builtin_suggest(out->builtin) : NULL;
            if (near) diag_set_hint(dg, "did you mean '%s'?", near);
            return false;
        }
    } else {
        const char *text = scalar(L, low, "lowering");
        if (!text) return false;
        if (!rule->has_schema) {
            node_error(L, low, "%sa lowering needs a schema (to bind FX arguments by name): torch has none for "
                           "this target (share/fxsh/aten/schemas.txt), so give the rule 'schema'", NULL);
            return false;
        }
        int line, col;
        scalar_origin(L, low, &line, &col);
        if (!lowering_parse(&L->r->arena, text, &rule->schema, rule->derived, rule->nderived, out, L->d, L->file,
                            line, col)) {
            L->failed = true;
            return false;
        }
        if (out->nresults != rule->schema.nrets && !(rule->schema.nrets == 1 && rule->schema.rets[0].is_list)) {
            node_error(L, low, "the lowering has a different number of outputs than the schema returns%s", NULL);
            return false;
        }
        out->line = line;
    }
    if (when) {
        const char *text = scalar(L, when, "when");
        if (!text) return false;
        if (!rule->has_schema) {
            node_error(L, when, "%s'when' needs a schema: torch has none for this target "
                            "(share/fxsh/aten/schemas.txt), so give the rule 'schema'", NULL);
            return false;
        }
        int line, col;
        scalar_origin(L, when, &line, &col);
        if (!cond_parse(&L->r->arena, text, &rule->schema, out, L->d, (diag_loc){L->file, line, col + 1})) {
            L->failed = true;
            return false;
        }
    }
    return true;
}

/* derive: {name: fn(arg), ...} with fn one of pads, len, neg_len, nonneg, ones, spatial_shape, out_dtype,
 * opmath_dtype, or rank(arg) [+ n | - n] (a Python int: a `Python <value: int = @name>` lowering value). */
static bool load_derive(loader *L, op_rule *rule, yaml_node_t *n)
{
    if (n->type != YAML_MAPPING_NODE) {
        node_error(L, n, "%s'derive' must be a mapping like {pads: pads(padding)}", NULL);
        return false;
    }
    if (!rule->has_schema) {
        node_error(L, n, "%s'derive' needs the rule's 'schema'", NULL);
        return false;
    }
    size_t cnt = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    rule->derived = arena_alloc(&L->r->arena, (cnt + 1) * sizeof *rule->derived);
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k, *v = get(L, p, &k);
        const char *name = scalar(L, k, "derive"), *expr = scalar(L, v, "derive");
        if (!name || !expr) return false;
        /* out_dtype() and opmath_dtype() read the node's result, the others one schema argument */
        static const char *const fns[] = {"pads", "len", "neg_len", "nonneg", "ones", "spatial_shape", "out_dtype",
                                          "opmath_dtype", "rank", "int"};
        const char *fn = NULL;
        for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
            size_t l = strlen(fns[i]);
            if (!strncmp(expr, fns[i], l) && expr[l] == '(') fn = fns[i];
        }
        const char *open = strchr(expr, '('), *close = open ? strchr(open, ')') : NULL;
        int arg = -1;
        bool no_arg = fn && (!strcmp(fn, "out_dtype") || !strcmp(fn, "opmath_dtype"));
        long long offset = 0;
        bool tail_ok = close && !close[1];
        if (fn && close && close[1] && (!strcmp(fn, "rank") || !strcmp(fn, "int"))) {   /* rank(x) - 1, int(dim) + 1 */
            const char *q = close + 1;
            while (*q == ' ') q++;
            char sign = *q;
            if (sign == '+' || sign == '-') {
                q++;
                while (*q == ' ') q++;
                char *end;
                offset = strtoll(q, &end, 10);
                tail_ok = end != q && !*end;
                if (sign == '-') offset = -offset;
            }
        }
        if (fn && close && tail_ok) {
            char *an = arena_strndup(&L->r->arena, open + 1, (size_t)(close - open - 1));
            arg = no_arg ? (*an ? -2 : -1) : aten_schema_find(&rule->schema, an);
        }
        if (!fn || !tail_ok || (no_arg ? arg != -1 : arg < 0)) {
            diagnostic *dg = node_error(L, v, "bad derive expression '%s'", expr);
            diag_set_hint(dg, "derive entries are pads(ARG), len(ARG), neg_len(ARG), nonneg(ARG), ones(ARG) or "
                              "spatial_shape(ARG) of a schema argument, out_dtype(), opmath_dtype(), rank(ARG) [+ n | - n] or int(ARG) "
                              "[+ n | - n]");
            return false;
        }
        rule->derived[rule->nderived++] = (ops_derived){name, fn, arg, offset};
    }
    return true;
}

/* merge_dims: {size: as_is} — which int-list arguments are built the way torchlib's merge_dims
 * builds them; `minus_one_as_one` maps a constant -1 to 1 first, as aten_expand does. */
static bool load_merge_dims(loader *L, op_rule *rule, yaml_node_t *n)
{
    if (n->type != YAML_MAPPING_NODE || !rule->has_schema) {
        diagnostic *dg = node_error(L, n, "%s'merge_dims' must be a mapping like {size: as_is} in a rule with a schema", NULL);
        diag_set_hint(dg, "values: as_is, or minus_one_as_one (a constant -1 becomes 1, as torchlib's expand)");
        return false;
    }
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k, *v = get(L, p, &k);
        const char *name = scalar(L, k, "merge_dims"), *how = scalar(L, v, "merge_dims");
        if (!name || !how) return false;
        int arg = aten_schema_find(&rule->schema, name);
        if (arg < 0 || arg >= 64 || !rule->schema.args[arg].is_list) {
            diagnostic *dg = node_error(L, k, "merge_dims: '%s' is not a list argument of the schema", name);
            diag_set_hint(dg, "name an int[] or SymInt[] argument of %s", rule->schema.text);
            return false;
        }
        bool m1 = !strcmp(how, "minus_one_as_one");
        if (!m1 && strcmp(how, "as_is")) {
            diagnostic *dg = node_error(L, v, "merge_dims: unknown element rule '%s'", how);
            diag_set_hint(dg, "as_is, or minus_one_as_one");
            return false;
        }
        rule->merge_dims |= (uint64_t)1 << arg;
        if (m1) rule->merge_dims_minus_one_as_one |= (uint64_t)1 << arg;
    }
    return true;
}

/* A target that names a Python function (operator.mul, torch.sym_float, math.floor) rather than
 * a torch.ops overload. */
static bool python_callable(const char *target)
{
    static const char *const modules[] = {"operator.", "torch.", "math.", "builtins."};
    for (size_t i = 0; i < sizeof modules / sizeof *modules; i++)
        if (!strncmp(target, modules[i], strlen(modules[i])) && !strchr(target + strlen(modules[i]), '.'))
            return true;
    return false;
}

static op_rule *load_rule(loader *L, yaml_node_t *n)
{
    if (n->type != YAML_MAPPING_NODE) {
        node_error(L, n, "%sa rule must be a mapping (target:, schema:, lowering: ...)", NULL);
        return NULL;
    }
    op_rule *rule = arena_alloc(&L->r->arena, sizeof *rule);
    rule->file = L->file;
    rule->line = (int)n->start_mark.line + 1;
    rule->since_opset = L->file_opset;
    yaml_node_t *when = NULL, *low = NULL, *fn = NULL, *builtin = NULL, *alts = NULL, *schema = NULL, *target = NULL;
    yaml_node_t *derive = NULL, *merge_dims = NULL;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k, *v = get(L, p, &k);
        if (key_is(k, "target")) target = v;
        else if (key_is(k, "schema")) schema = v;
        else if (key_is(k, "opset")) { if (!int_value(L, v, "opset", &rule->since_opset)) return NULL; }
        else if (key_is(k, "doc")) { if (!(rule->doc = scalar(L, v, "doc"))) return NULL; }
        else if (key_is(k, "when")) when = v;
        else if (key_is(k, "lowering")) low = v;
        else if (key_is(k, "function")) fn = v;
        else if (key_is(k, "builtin")) builtin = v;
        else if (key_is(k, "alternatives")) alts = v;
        else if (key_is(k, "derive")) derive = v;
        else if (key_is(k, "merge_dims")) merge_dims = v;
        else {
            diagnostic *dg = node_error(L, k, "unknown key '%s' in rule",
                                        k && k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : "?");
            diag_set_hint(dg, "rule keys: target, schema, opset, doc, derive, merge_dims, when, lowering, function, builtin, alternatives");
            return NULL;
        }
    }
    if (!target) { node_error(L, n, "%srule has no 'target'", NULL); return NULL; }
    if (!(rule->target = scalar(L, target, "target"))) return NULL;
    if (!strncmp(rule->target, "torch.ops.", 10)) rule->target += 10;
    /* aten.tanh is how torch's registry names the default overload; graphs call aten.tanh.default */
    if (!strncmp(rule->target, "aten.", 5) && !strchr(rule->target + 5, '.'))
        rule->target = arena_printf(&L->r->arena, "%s.default", rule->target);
    if (schema) {
        const char *text = scalar(L, schema, "schema");
        if (!text) return NULL;
        int line, col;
        scalar_origin(L, schema, &line, &col);
        if (!aten_schema_parse(&L->r->arena, text, &rule->schema, L->d, (diag_loc){L->file, line, col + 1})) {
            L->failed = true;
            return NULL;
        }
        rule->has_schema = true;
        /* target "ns.name.overload" must agree with the schema's name/overload; a Python
         * callable ("operator.mul", "torch.sym_float") has no overload */
        const char *dot = strchr(rule->target, '.');
        bool callable = python_callable(rule->target);
        char want[256];
        if (callable && !*rule->schema.overload) snprintf(want, sizeof want, "%s", rule->schema.name);
        else snprintf(want, sizeof want, "%s.%s", rule->schema.name,
                      *rule->schema.overload ? rule->schema.overload : "default");
        if (!dot || strcmp(dot + 1, want)) {
            diagnostic *dg = node_error(L, schema, "schema does not match target '%s'", rule->target);
            diag_set_hint(dg, "the schema names %s(...): its target is NAMESPACE.%s (a schema without an overload "
                          "is the .default one); or leave the schema out: torch's is used", want, want);
            return NULL;
        }
    }
    /* No schema: torch's (share/fxsh/aten/schemas.txt); only non-ATen targets (prims, Python
     * callables) and bindings that must differ from torch's spell one out */
    if (!schema && aten_schemas_lookup(rule->target, NULL)) {
        if (!aten_schemas_parse(&L->r->arena, rule->target, &rule->schema, L->d)) {
            L->failed = true;
            return NULL;
        }
        rule->has_schema = true;
    }
    if (derive && !load_derive(L, rule, derive)) return NULL;
    if (merge_dims && !load_merge_dims(L, rule, merge_dims)) return NULL;
    VEC(lowering) v = {0};
    if (alts) {
        if (when || low || fn || builtin) {
            node_error(L, alts, "%suse either 'alternatives' or a single 'lowering'/'function'/'builtin'", NULL);
            return NULL;
        }
        if (alts->type != YAML_SEQUENCE_NODE || alts->data.sequence.items.start == alts->data.sequence.items.top) {
            node_error(L, alts, "%s'alternatives' must be a non-empty list", NULL);
            return NULL;
        }
        for (yaml_node_item_t *it = alts->data.sequence.items.start; it < alts->data.sequence.items.top; it++) {
            yaml_node_t *a = yaml_document_get_node(L->doc, *it);
            yaml_node_t *aw = NULL, *al = NULL, *af = NULL, *ab = NULL, *ar = NULL;
            if (a->type != YAML_MAPPING_NODE) { node_error(L, a, "%san alternative must be a mapping", NULL); goto fail; }
            for (yaml_node_pair_t *p = a->data.mapping.pairs.start; p < a->data.mapping.pairs.top; p++) {
                yaml_node_t *k, *val = get(L, p, &k);
                if (key_is(k, "when")) aw = val;
                else if (key_is(k, "lowering")) al = val;
                else if (key_is(k, "function")) af = val;
                else if (key_is(k, "builtin")) ab = val;
                else if (key_is(k, "refuse")) ar = val;
                else {
                    node_error(L, k, "unknown key '%s' in alternative (when, lowering, function, builtin, refuse)",
                               k && k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : "?");
                    goto fail;
                }
            }
            lowering lw;
            if (!load_alt(L, rule, aw, al, af, ab, ar, a, &lw)) goto fail;
            vec_push(&v, lw);
        }
    } else {
        lowering lw;
        if (!load_alt(L, rule, when, low, fn, builtin, NULL, n, &lw)) goto fail;
        vec_push(&v, lw);
    }
    rule->alts = arena_alloc(&L->r->arena, v.len * sizeof *rule->alts);
    memcpy(rule->alts, v.items, v.len * sizeof *rule->alts);
    rule->nalts = v.len;
    vec_free(&v);
    return rule;
fail:
    vec_free(&v);
    return NULL;
}

static void insert_rule(ops_registry *r, op_rule *rule)
{
    op_rule *head = hm_get(&r->by_target, rule->target);
    if (!head) {
        xgrow((void **)&r->targets, &r->targets_cap, r->ntargets + 1, sizeof *r->targets);
        r->targets[r->ntargets++] = rule->target;
        hm_put(&r->by_target, rule->target, rule);
        return;
    }
    /* Keep the chain sorted by since_opset, newest first; a later load with the same opset
     * replaces (shadows) the earlier rule. */
    op_rule **pp = &head;
    while (*pp && (*pp)->since_opset > rule->since_opset) pp = &(*pp)->older;
    if (*pp && (*pp)->since_opset == rule->since_opset) rule->older = (*pp)->older;
    else rule->older = *pp;
    *pp = rule;
    hm_put(&r->by_target, head->target, head);
}

bool ops_load_string(ops_registry *r, const char *name, const char *text, size_t len, diag_sink *d)
{
    loader L = {.r = r, .file = arena_strdup(&r->arena, name), .src = text, .len = len, .d = d,
                .file_opset = DEFAULT_OPSET};
    size_t cap = 0;
    for (size_t i = 0; i <= len; i++)
        if (i == 0 || text[i - 1] == '\n') {
            xgrow((void **)&L.lines, &cap, L.nlines + 1, sizeof *L.lines);
            L.lines[L.nlines++] = text + i;
        }
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    VEC(op_rule *) rules = {0};
    bool have_doc = false;
    if (!yaml_parser_load(&parser, &doc)) {
        int line = (int)parser.problem_mark.line + 1, col = (int)parser.problem_mark.column + 1;
        diagnostic *dg = diag_error(d, (diag_loc){L.file, line, col}, "YAML error: %s%s%s",
                                    parser.problem ? parser.problem : "malformed YAML",
                                    parser.context ? " " : "", parser.context ? parser.context : "");
        src_line(&L, dg, line);
        L.failed = true;
        goto done;
    }
    have_doc = true;
    L.doc = &doc;
    if (!yaml_check_expansion(&doc, L.file, d)) {
        L.failed = true;
        goto done;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root) goto done;                 /* empty file: no rules */
    yaml_node_t *list = NULL;
    if (root->type == YAML_SEQUENCE_NODE) list = root;
    else if (root->type == YAML_MAPPING_NODE) {
        for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
            yaml_node_t *k, *v = get(&L, p, &k);
            if (key_is(k, "opset")) { if (!int_value(&L, v, "opset", &L.file_opset)) goto done; }
            else if (key_is(k, "rules")) list = v;
            else if (key_is(k, "doc")) continue;
            else {
                diagnostic *dg = node_error(&L, k, "unknown top-level key '%s'",
                                            k && k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : "?");
                diag_set_hint(dg, "a rule file has 'opset: N' and 'rules: [...]'");
                goto done;
            }
        }
        if (!list) { node_error(&L, root, "%sno 'rules:' list in file", NULL); goto done; }
    }
    if (!list || list->type != YAML_SEQUENCE_NODE) {
        diagnostic *dg = node_error(&L, list ? list : root, "%s'rules' must be a list of rules", NULL);
        diag_set_hint(dg, "rules:\n    - target: aten.relu.default\n      schema: relu(Tensor self) -> Tensor\n"
                          "      lowering: 'relu (self) => (result) { result = Relu (self) }'");
        goto done;
    }
    for (yaml_node_item_t *it = list->data.sequence.items.start; it < list->data.sequence.items.top; it++) {
        op_rule *rule = load_rule(&L, yaml_document_get_node(&doc, *it));
        if (rule) vec_push(&rules, rule);
    }
done:
    if (!L.failed)
        for (size_t i = 0; i < rules.len; i++) insert_rule(r, rules.items[i]);
    vec_free(&rules);
    if (have_doc) yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    free(L.lines);
    return !L.failed;
}

bool ops_load_file(ops_registry *r, const char *path, diag_sink *d)
{
    size_t len;
    char *text = file_read(path, &len, d);
    if (!text) return false;
    bool ok = ops_load_string(r, path, text, len, d);
    free(text);
    return ok;
}

bool ops_load_dir(ops_registry *r, const char *dir, diag_sink *d)
{
    char **names;
    size_t n = tables_yaml_files(dir, &names, d);
    if (n == (size_t)-1)
        return false;
    bool ok = true;
    strbuf path;
    sb_init(&path);
    for (size_t i = 0; i < n; i++) {
        sb_reset(&path);
        sb_printf(&path, "%s/%s", dir, names[i]);
        ok &= ops_load_file(r, path.s, d);
        free(names[i]);
    }
    sb_free(&path);
    free(names);
    return ok;
}

bool ops_load_default(ops_registry *r, diag_sink *d)
{
    char dir[4096];
    return tables_stage_dir("translate", dir, sizeof dir, d) && ops_load_dir(r, dir, d);
}

/* ---- lookup and selection ---- */

const op_rule *ops_lookup(const ops_registry *r, const char *target, int opset)
{
    if (!strncmp(target, "torch.ops.", 10)) target += 10;
    for (op_rule *rule = hm_get(&r->by_target, target); rule; rule = rule->older)
        if (rule->since_opset <= opset) return rule;
    return NULL;
}

bool cond_op_holds(cond_op op, double a, double b)
{
    switch (op) {
    case COP_EQ: return a == b;
    case COP_NE: return a != b;
    case COP_LT: return a < b;
    case COP_LE: return a <= b;
    case COP_GT: return a > b;
    case COP_GE: return a >= b;
    }
    return false;
}

bool cond_dtype_matches(const char *have, const char *want)
{
    if (!have) return false;
    if (!strncmp(want, "torch.", 6)) want += 6;
    if (!strcmp(want, "floating"))
        return strstr(have, "float") || !strcmp(have, "half") || !strcmp(have, "double");
    if (!strcmp(want, "integer"))
        return strstr(have, "int") && !strstr(have, "float");
    if (!strcmp(want, "integral"))   /* torch's is_integral(include_bool=True) */
        return (strstr(have, "int") && !strstr(have, "float")) || !strcmp(have, "bool");
    if (!strcmp(want, "complex"))
        return strstr(have, "complex") != NULL;
    return !strcmp(have, want);
}

static bool clause_holds(const cond_clause *c, const arg_info *args)
{
    const arg_info *a = &args[c->arg];
    switch (c->kind) {
    case COND_RANK: {
        if (a->kind != ARGK_TENSOR || a->rank < 0)
            return false;
        if (c->arg2 < 0)
            return cond_op_holds(c->op, a->rank, (double)c->ival);
        const arg_info *b = &args[c->arg2];
        return b->kind == ARGK_TENSOR && b->rank >= 0 && cond_op_holds(c->op, a->rank, (double)b->rank + (double)c->ival);
    }
    case COND_LEN: return a->kind == ARGK_LIST && cond_op_holds(c->op, (double)a->len, (double)c->ival);
    case COND_IS_NONE: return a->kind == ARGK_NONE;
    case COND_IS_SCALAR: return a->kind == ARGK_INT || a->kind == ARGK_FLOAT || a->kind == ARGK_BOOL;
    case COND_IS_LIST: return a->kind == ARGK_LIST;
    case COND_IS_TENSOR: return a->kind == ARGK_TENSOR;
    case COND_PRED: return false;        /* translate has no predicates of its own */
    case COND_DTYPE: {
        /* a Python number has the dtype torchlib's isinstance tests give it: int (bool too) or float */
        const char *have = a->kind == ARGK_TENSOR ? a->dtype : a->kind == ARGK_INT || a->kind == ARGK_BOOL ? "int64"
                         : a->kind == ARGK_FLOAT ? "float" : NULL;
        bool m = cond_dtype_matches(have, c->sval);
        return c->op == COP_EQ ? m : !m;
    }
    case COND_EQ_LITERAL: {
        const char *v = c->sval;
        if (*v == '"' || *v == '\'') {
            size_t n = strlen(v);
            bool eq = a->kind == ARGK_STR && n >= 2 && strlen(a->sval) == n - 2 && !strncmp(a->sval, v + 1, n - 2);
            return c->op == COP_EQ ? eq : c->op == COP_NE ? !eq : false;
        }
        if (a->kind == ARGK_DTYPE) {       /* dtype == torch.int64 (a ScalarType argument) */
            bool m = cond_dtype_matches(a->dtype, v);
            return c->op == COP_EQ ? m : c->op == COP_NE ? !m : false;
        }
        double want;
        if (!strcmp(v, "True")) want = 1;
        else if (!strcmp(v, "False")) want = 0;
        else want = strtod(v, NULL);
        if (a->kind == ARGK_INT || a->kind == ARGK_BOOL) return cond_op_holds(c->op, (double)a->ival, want);
        if (a->kind == ARGK_FLOAT) return cond_op_holds(c->op, a->fval, want);
        return c->op == COP_NE;
    }
    }
    return false;
}

const lowering *ops_select(const op_rule *rule, const arg_info *args)
{
    for (size_t i = 0; i < rule->nalts; i++) {
        const lowering *lw = &rule->alts[i];
        bool ok = true;
        for (size_t k = 0; k < lw->nwhen && ok; k++) {
            const cond_clause *c = &lw->when[k];
            bool h = clause_holds(c, args);
            ok = c->negate ? !h : h;
        }
        if (ok) return lw;
    }
    return NULL;
}

/* ---- listing ---- */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void ops_print_list(const ops_registry *r, strbuf *out)
{
    const char **t = xmalloc((r->ntargets + 1) * sizeof *t);
    if (r->ntargets) memcpy(t, r->targets, r->ntargets * sizeof *t);
    if (r->ntargets) qsort(t, r->ntargets, sizeof *t, cmp_str);
    for (size_t i = 0; i < r->ntargets; i++) {
        const op_rule *head = hm_get(&r->by_target, t[i]);
        /* operators print as FX prints targets (torch.ops.aten.relu.default), Python callables
         * (operator.mul, torch.sym_float) as they are */
        sb_printf(out, "%s%s", python_callable(t[i]) ? "" : "torch.ops.", t[i]);
        const char *sep = "  (opset ";
        for (const op_rule *x = head; x; x = x->older) {
            sb_printf(out, "%s%d+", sep, x->since_opset);
            sep = ", ";
        }
        sb_puts(out, ")");
        if (head->nalts == 1 && head->alts[0].builtin) sb_printf(out, "  builtin %s", head->alts[0].builtin);
        sb_putc(out, '\n');
    }
    sb_printf(out, "%zu ops\n", r->ntargets);
    free(t);
}

void ops_list_json(const ops_registry *r, json_writer *w)
{
    const char **t = xmalloc((r->ntargets + 1) * sizeof *t);
    if (r->ntargets) memcpy(t, r->targets, r->ntargets * sizeof *t);
    if (r->ntargets) qsort(t, r->ntargets, sizeof *t, cmp_str);
    jw_array(w);
    for (size_t i = 0; i < r->ntargets; i++) {   /* what ops_print_list prints, a member each */
        const op_rule *head = hm_get(&r->by_target, t[i]);
        strbuf name;
        sb_init(&name);
        sb_printf(&name, "%s%s", python_callable(t[i]) ? "" : "torch.ops.", t[i]);
        jw_object(w);
        jw_kstring(w, "target", name.s);
        jw_key(w, "opsets");   /* the opsets its rules start at, newest first */
        jw_array(w);
        for (const op_rule *x = head; x; x = x->older) jw_int(w, x->since_opset);
        jw_array_end(w);
        jw_kstring(w, "builtin", head->nalts == 1 ? head->alts[0].builtin : NULL);
        jw_object_end(w);
        sb_free(&name);
    }
    jw_array_end(w);
    free(t);
}

static void indent_block(strbuf *out, const char *text, int n)
{
    const char *p = text;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len) sb_spaces(out, (size_t)n);
        sb_putn(out, p, len);
        sb_putc(out, '\n');
        if (!e) break;
        p = e + 1;
    }
}

static void print_alt(strbuf *out, const lowering *lw, int ind, bool dash)
{
    bool first = true;
    if (lw->when_text) {
        sb_spaces(out, (size_t)ind - (dash ? 2 : 0));
        sb_printf(out, "%swhen: %s\n", dash ? "- " : "", lw->when_text);
        first = false;
    }
    sb_spaces(out, (size_t)ind - (dash && first ? 2 : 0));
    if (dash && first) sb_puts(out, "- ");
    if (lw->builtin) sb_printf(out, "builtin: %s\n", lw->builtin);
    else if (lw->refuse) sb_printf(out, "refuse: %s\n", lw->refuse);
    else {
        sb_puts(out, lw->function ? "function: |\n" : "lowering: |\n");
        indent_block(out, lw->text, ind + 2);
    }
}

bool ops_print_rule(const ops_registry *r, const char *target, strbuf *out)
{
    if (!strncmp(target, "torch.ops.", 10)) target += 10;
    const op_rule *head = hm_get(&r->by_target, target);
    char dflt[256];   /* aten.relu: the default overload, as a rule's target says it */
    if (!head && !strncmp(target, "aten.", 5) && !strchr(target + 5, '.')) {
        snprintf(dflt, sizeof dflt, "%s.default", target);
        head = hm_get(&r->by_target, dflt);
    }
    if (!head) return false;
    for (const op_rule *x = head; x; x = x->older) {
        sb_printf(out, "# %s:%d\n", x->file, x->line);
        sb_printf(out, "- target: %s\n  opset: %d\n", x->target, x->since_opset);
        if (x->doc) sb_printf(out, "  doc: %s\n", x->doc);
        if (x->has_schema) sb_printf(out, "  schema: %s\n", x->schema.text);
        for (size_t i = 0; i < x->nderived; i++) {
            long long off = x->derived[i].offset;
            sb_printf(out, "%s%s: %s(%s)", i ? ", " : "  derive: {", x->derived[i].name, x->derived[i].fn,
                      x->derived[i].arg >= 0 ? x->schema.args[x->derived[i].arg].name : "");
            if (off) sb_printf(out, " %c %lld", off < 0 ? '-' : '+', off < 0 ? -off : off);
            sb_puts(out, i + 1 == x->nderived ? "}\n" : "");
        }
        for (size_t i = 0, k = 0; i < x->schema.nargs && i < 64; i++)
            if ((x->merge_dims >> i) & 1)
                sb_printf(out, "%s%s: %s", k++ ? ", " : "  merge_dims: {", x->schema.args[i].name,
                          (x->merge_dims_minus_one_as_one >> i) & 1 ? "minus_one_as_one" : "as_is");
        if (x->merge_dims) sb_puts(out, "}\n");
        if (x->nalts == 1) print_alt(out, &x->alts[0], 2, false);
        else {
            sb_puts(out, "  alternatives:\n");
            for (size_t i = 0; i < x->nalts; i++) print_alt(out, &x->alts[i], 6, true);
        }
    }
    return true;
}
