/* cmd_guards.c — guard blame: `guards` lists the guards the last capture decided on dynamic
 * sizes (the if, its condition, the example's truth, what it did to the dimension's range, where
 * it is in the program and in Python), and `explain DIM` follows one dimension through them. */
#include <stdio.h>
#include <string.h>

#include "base/json_write.h"
#include "base/strbuf.h"
#include "repl/cmd_handlers.h"

static const char *effect_name(py_guard_effect e)
{
    static const char *const names[] = {"kept", "narrowed", "pinned", "failed", "untracked"};
    return (unsigned)e < sizeof names / sizeof *names ? names[e] : "?";
}

/* "VR[3, int_oo]" */
static void range_text(strbuf *sb, int64_t lo, int64_t hi)
{
    if (hi < 0) sb_printf(sb, "VR[%lld, int_oo]", (long long)lo);
    else sb_printf(sb, "VR[%lld, %lld]", (long long)lo, (long long)hi);
}

/* What the guard did, in words: "narrowed batch to VR[3, int_oo]". */
static void effect_text(strbuf *sb, const py_guard_record *r)
{
    switch (r->effect) {
    case PY_GUARD_KEPT: sb_printf(sb, "kept %s's range (", r->symbol); range_text(sb, r->lo, r->hi); sb_putc(sb, ')'); break;
    case PY_GUARD_NARROWED: sb_printf(sb, "narrowed %s to ", r->symbol); range_text(sb, r->lo, r->hi); break;
    case PY_GUARD_PINNED: sb_printf(sb, "pinned %s to %lld (static)", r->symbol, (long long)r->lo); break;
    case PY_GUARD_FAILED:
        sb_printf(sb, "failed: would make %s ", r->symbol);
        if (r->lo == r->hi) sb_printf(sb, "the constant %lld", (long long)r->lo);
        else range_text(sb, r->lo, r->hi);
        break;
    case PY_GUARD_UNTRACKED: sb_printf(sb, "decided for the example only (%s)", r->symbol); break;
    }
}

static void json_record(json_writer *w, const py_guard_record *r)
{
    jw_object(w);
    jw_kstring(w, "node", r->node);
    jw_kstring(w, "guard", r->expr);
    jw_kstring(w, "symbol", r->symbol);
    jw_kstring(w, "input", r->input);
    jw_key(w, "axis");
    if (r->input) jw_int(w, r->axis);
    else jw_null(w);
    jw_key(w, "example");
    if (r->input) jw_int(w, r->example);
    else jw_null(w);
    jw_kbool(w, "truth", r->truth != 0);
    jw_kstring(w, "effect", effect_name(r->effect));
    jw_key(w, "range");
    if (r->effect == PY_GUARD_UNTRACKED) {
        jw_null(w);
    } else {
        jw_array(w);
        jw_int(w, r->lo);
        if (r->hi >= 0) jw_int(w, r->hi);
        else jw_null(w);
        jw_array_end(w);
    }
    jw_kstring(w, "file", r->file);
    jw_key(w, "line");
    if (r->line > 0) jw_int(w, r->line);
    else jw_null(w);
    jw_kstring(w, "source", r->source);
    jw_object_end(w);
}

static void text_record(session *s, const py_guard_record *r)
{
    strbuf sb;
    sb_init(&sb);
    sb_printf(&sb, "%%%s  `%s`  %s", r->node, r->expr, r->truth ? "True" : "False");
    if (r->input) sb_printf(&sb, " at %s=%lld", r->symbol, (long long)r->example);
    sb_puts(&sb, ": ");
    effect_text(&sb, r);
    sb_putc(&sb, '\n');
    if (r->source) sb_printf(&sb, "    %s\n", r->source);
    if (r->file) sb_printf(&sb, "    %s:%d\n", r->file, r->line);
    fwrite(sb.s, 1, sb.len, s->out);
    sb_free(&sb);
}

/* The records to show: all, or those of one dimension (a symbol or INPUT:AXIS). */
static bool wanted(const py_guard_record *r, const char *dim)
{
    if (!dim) return true;
    if (r->symbol && !strcmp(r->symbol, dim)) return true;
    char io[300];
    if (!r->input) return false;
    snprintf(io, sizeof io, "%s:%d", r->input, r->axis);
    return !strcmp(io, dim);
}

static int list(session *s, const char *command, const char *dim, bool json)
{
    const py_guard_log *log = &s->guards;
    size_t n = 0;
    for (size_t i = 0; i < log->len; i++) n += wanted(&log->items[i], dim);
    if (json) {
        strbuf sb;
        sb_init(&sb);
        json_writer w;
        cmd_json_begin(&w, &sb, command, NULL);
        if (dim) jw_kstring(&w, "dimension", dim);
        jw_key(&w, "guards");
        jw_array(&w);
        for (size_t i = 0; i < log->len; i++)
            if (wanted(&log->items[i], dim)) json_record(&w, &log->items[i]);
        jw_array_end(&w);
        jw_kint(&w, "count", (int64_t)n);
        cmd_json_end(&w);
        session_write(s, sb.s, sb.len);
        sb_free(&sb);
    } else if (!n) {
        if (dim) fprintf(s->out, "no guard of the last capture reads %s\n", dim);
        else fputs("no guards: the last capture decided nothing on a dynamic size\n", s->out);
    } else {
        for (size_t i = 0; i < log->len; i++)
            if (wanted(&log->items[i], dim)) text_record(s, &log->items[i]);
        if (dim) {
            /* where the dimension ended: the last guard's range */
            const py_guard_record *last = NULL;
            for (size_t i = 0; i < log->len; i++)
                if (wanted(&log->items[i], dim) && log->items[i].effect != PY_GUARD_UNTRACKED) last = &log->items[i];
            if (last) {
                strbuf sb;
                sb_init(&sb);
                sb_printf(&sb, "%s: ", dim);
                effect_text(&sb, last);
                sb_printf(&sb, " at %%%s\n", last->node);
                fwrite(sb.s, 1, sb.len, s->out);
                sb_free(&sb);
            }
        }
    }
    return 0;
}

int cmd_guards(session *s, int argc, char **argv)
{
    bool json;
    if (!cmd_json_option(s, &argc, argv, 0, &json)) return 1;
    return list(s, "guards", NULL, json);
}

int cmd_explain(session *s, int argc, char **argv)
{
    bool json;
    if (!cmd_json_option(s, &argc, argv, 1, &json)) return 1;
    if (argc < 2) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "explain: which dimension?");
        diag_set_hint(dg, "explain batch (a dynamic_shapes name) or explain x:0 (an input's axis)");
        return 1;
    }
    return list(s, "explain", argv[1], json);
}
