/* ep_text_parse.c — print(ep) text: "ExportedProgram:", the program's readable code indented by
 * four spaces, "Graph signature:" with its input and output specs, "Range constraints: {...}"
 * (ExportedProgram.__str__; fx_print_program prints the same). Weights are not in the text:
 * parameters and buffers stay graph inputs until --weights gives them values. */
#include <stdlib.h>
#include <string.h>

#include "fx/fx.h"
#include "load/fx_parse_internal.h"

static bool starts(const fx_line *l, size_t k, const char *lit)
{
    size_t n = strlen(lit);
    return l->len >= k + n && memcmp(l->s + k, lit, n) == 0;
}

static void error_at(diag_sink *d, const char *file, const fx_line *l, size_t col, const char *fmt, const char *what)
{
    diag_loc loc = {file, l ? l->no : 1, (int)col + 1};
    diagnostic *dg = diag_error(d, loc, fmt, what);
    diag_set_hint(dg, "paste print(ep) whole: ExportedProgram:, the code, Graph signature: and Range constraints:");
}

/* "name: KIND target='fqn' persistent=True" → one spec; false on a line of another shape. */
static bool parse_spec(fx_program *p, const fx_line *l, size_t k, bool input, void *spec)
{
    const char *s = l->s + k, *e = l->s + l->len;
    const char *colon = memchr(s, ':', (size_t)(e - s));
    if (!colon || colon == s || colon + 2 > e || colon[1] != ' ') return false;
    const char *kind = colon + 2, *ke = kind;
    while (ke < e && *ke != ' ') ke++;
    size_t kn = (size_t)(ke - kind);
    const char *target = NULL, *te = NULL;
    bool persistent = false;
    for (const char *q = ke; q < e; q++) {
        if ((size_t)(e - q) > 8 && !memcmp(q, " target='", 9)) {
            target = q + 9;
            te = memchr(target, '\'', (size_t)(e - target));
            if (!te) return false;
            q = te;
        } else if ((size_t)(e - q) >= 16 && !memcmp(q, " persistent=True", 16)) {
            persistent = true;
        }
    }
    int found = -1;
    for (int i = 0; i < 8 && found < 0; i++) {
        const char *nm = input ? (i <= FX_IN_TOKEN ? fx_input_kind_name((fx_input_kind)i) : "") : fx_output_kind_name((fx_output_kind)i);
        if (strlen(nm) == kn && !memcmp(nm, kind, kn)) found = i;
    }
    if (found < 0) return false;
    const char *name = fx_strndup(p, s, (size_t)(colon - s));
    const char *tgt = target ? fx_strndup(p, target, (size_t)(te - target)) : NULL;
    if (input) *(fx_input_spec *)spec = (fx_input_spec){(fx_input_kind)found, name, tgt, persistent};
    else *(fx_output_spec *)spec = (fx_output_spec){(fx_output_kind)found, name, tgt};
    return true;
}

/* "{s77: VR[2, int_oo], s3: VR[0, 9]}" */
static bool parse_ranges(fx_program *p, const char *s, const char *e)
{
    if (s >= e || *s != '{' || e[-1] != '}') return false;
    s++, e--;
    size_t n = 0;
    for (const char *q = s; q < e; q++) n += *q == 'V' && q + 2 < e && q[1] == 'R' && q[2] == '[';
    p->ranges = fx_alloc(p, (n + 1) * sizeof *p->ranges);
    p->n_ranges = 0;
    while (s < e) {
        while (s < e && (*s == ' ' || *s == ',')) s++;
        if (s >= e) break;
        const char *colon = memchr(s, ':', (size_t)(e - s));
        if (!colon || (size_t)(e - colon) < 6 || memcmp(colon, ": VR[", 5) || p->n_ranges >= n) return false;
        const char *lo = colon + 5, *comma = memchr(lo, ',', (size_t)(e - lo));
        if (!comma || comma + 2 > e) return false;
        const char *hi = comma + 2, *close = memchr(hi, ']', (size_t)(e - hi));
        if (!close) return false;
        fx_range *r = &p->ranges[p->n_ranges++];
        r->symbol = fx_strndup(p, s, (size_t)(colon - s));
        r->min = fx_strndup(p, lo, (size_t)(comma - lo));
        r->max = fx_strndup(p, hi, (size_t)(close - hi));
        s = close + 1;
    }
    return true;
}

fx_program *fxp_parse_exported_text(const char *text, size_t len, const char *file, diag_sink *d)
{
    fx_lines lines = {0};
    fxp_split_lines(text, len, &lines);
    size_t i = 0;
    while (i < lines.len && fxp_line_blank(&lines.items[i])) i++;
    /* the code: every line after the header up to "Graph signature:", less four spaces; the
     * header line becomes blank so that line numbers stay the file's */
    size_t code_from = i + 1, sig_at = code_from;
    while (sig_at < lines.len && !starts(&lines.items[sig_at], 0, "Graph signature:")) sig_at++;
    if (sig_at == lines.len) {
        error_at(d, file, lines.len ? &lines.items[lines.len - 1] : NULL, 0, "%s", "print(ep) text without its 'Graph signature:' section");
        vec_free(&lines);
        return NULL;
    }
    strbuf code;
    sb_init(&code);
    for (size_t k = 0; k < code_from; k++) sb_putc(&code, '\n');
    for (size_t k = code_from; k < sig_at; k++) {
        const fx_line *l = &lines.items[k];
        size_t cut = fxp_indent_of(l) < 4 ? fxp_indent_of(l) : 4;
        sb_putn(&code, l->s + cut, l->len - cut);
        sb_putc(&code, '\n');
    }
    fx_program *p = fxp_parse_code_text(code.s, code.len, file, d);
    sb_free(&code);
    if (!p) {
        vec_free(&lines);
        return NULL;
    }
    /* the signature: "# inputs" specs, "# outputs" specs; then the ranges */
    size_t n_in = 0, k = sig_at + 1;
    for (size_t q = k; q < lines.len && !starts(&lines.items[q], 0, "Range constraints:"); q++) n_in++;
    p->sig.inputs = fx_alloc(p, (n_in + 1) * sizeof *p->sig.inputs);
    p->sig.outputs = fx_alloc(p, (n_in + 1) * sizeof *p->sig.outputs);
    int section = 0;   /* 1: inputs, 2: outputs */
    const fx_line *bad = NULL;
    for (; k < lines.len && !starts(&lines.items[k], 0, "Range constraints:"); k++) {
        const fx_line *l = &lines.items[k];
        size_t ind = fxp_indent_of(l);
        if (fxp_line_blank(l)) continue;
        if (starts(l, ind, "# inputs")) { section = 1; continue; }
        if (starts(l, ind, "# outputs")) { section = 2; continue; }
        bool ok = section == 1 ? parse_spec(p, l, ind, true, &p->sig.inputs[p->sig.n_inputs])
                : section == 2 ? parse_spec(p, l, ind, false, &p->sig.outputs[p->sig.n_outputs])
                : false;
        if (!ok) { bad = l; break; }
        if (section == 1) p->sig.n_inputs++;
        else p->sig.n_outputs++;
    }
    if (!bad && k < lines.len) {
        const fx_line *l = &lines.items[k];
        size_t at = strlen("Range constraints: ");
        if (l->len < at || !parse_ranges(p, l->s + at, l->s + l->len)) bad = l;
    }
    if (bad) {
        error_at(d, file, bad, fxp_indent_of(bad), "%s", "expected an input or output spec ('name: KIND target=...') or the range constraints");
        fx_program_free(p);
        vec_free(&lines);
        return NULL;
    }
    if (k == lines.len) {
        error_at(d, file, &lines.items[lines.len - 1], 0, "%s", "print(ep) text without its 'Range constraints:' line");
        fx_program_free(p);
        vec_free(&lines);
        return NULL;
    }
    /* every spec names a placeholder of the graph, in order */
    const fx_graph *g = fx_program_graph(p);
    size_t spec = 0;
    for (const fx_node *n = g ? g->first : NULL; n; n = n->next) {
        if (n->op != FX_OP_PLACEHOLDER) continue;
        if (spec >= p->sig.n_inputs || strcmp(p->sig.inputs[spec].name, n->name)) {
            diag_loc loc = {file, lines.items[sig_at].no, 1};
            diag_error(d, loc, "the graph signature does not list input '%s' in the forward's order", n->name);
            fx_program_free(p);
            vec_free(&lines);
            return NULL;
        }
        spec++;
    }
    p->sig.present = true;
    p->source_form = FX_FORM_PROGRAM;
    vec_free(&lines);
    return p;
}
