/* ts_load_internal.h — what the TorchScript IR loader's files share (ts_load.c: statements → nodes,
 * ts_stmt.c: text → statements, ts_ops.c: op names, ts_blocks.c: prim::If / prim::Loop blocks): the
 * loader's state and its helpers. Not a public API.
 *
 * Ownership: nodes, names and values live in the program being built (L->p). */
#ifndef FXSH_LOAD_TS_LOAD_INTERNAL_H
#define FXSH_LOAD_TS_LOAD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/hashmap.h"
#include "fx/fx_ir.h"
#include "load/ts_load.h"

typedef struct ts_line {
    const char *s;      /* first non-blank char */
    size_t len;         /* up to the newline, from s */
    size_t indent;
    int lineno;
} ts_line;

/* A TorchScript value in the loader: an FX argument (node or literal), or a module path. */
typedef struct tsval {
    fx_arg *arg;        /* NULL for modules */
    const char *path;   /* module FQN ("" = self), NULL for values */
    char tk;            /* 'T' tensor, 'i' int, 'f' float, 'b' bool, 's' str, 'n' None, 'l' list, 'o' other */
} tsval;

typedef struct scope {
    struct scope *parent;
    fx_graph *g;
    fx_module *m;
    hashmap vals;       /* ts name -> tsval* */
    hashmap caps;       /* outer node name -> local placeholder */
    fx_arg **captured;  /* outer args, in capture order */
    size_t n_captured, cap_captured;
    fx_node *last_ph;
} scope;

typedef struct loader {
    fx_program *p;
    diag_sink *d;
    const char *file;
    ts_line *lines;
    size_t n_lines, pos;
    scope *root;
    fx_node *first_user_ph;   /* weights are inserted before it */
    fx_node *first_buffer_ph; /* parameters are inserted before it */
    hashmap params;           /* fqn -> placeholder */
    hashmap param_fqn;        /* placeholder name -> fqn */
    hashmap appended;         /* TorchScript names of the lists aten::append mutates */
    hashmap modules;          /* FQNs of the submodules prim::GetAttr reaches */
    const ts_load_options *opts;
    bool failed;
} loader;
#define MAX_OUTS 64
#define MAX_ARGS 64

typedef struct stmt {
    const ts_line *ln;
    size_t n_out;
    const char *out[MAX_OUTS];   /* names (arena) */
    char out_tk[MAX_OUTS];
    const char *type0;           /* first output's type text (not NUL-terminated) */
    size_t type0_len;
    const char *kind;            /* "aten::linear" (arena) */
    const char *attr_name;       /* [name="..."] */
    const char *attr_value;      /* [value=...] raw text, strings unquoted */
    bool value_is_str, has_value;
    size_t n_args;
    const char *args[MAX_ARGS];
    const char *src_file;
    int src_line;
} stmt;

/* ---- ts_load.c ---- */
/* A scope for graph m's statements inside parent (NULL: the root); free with tsl_scope_free. */
scope *tsl_scope_new(loader *L, scope *parent, fx_module *m);
void tsl_scope_free(scope *s);
/* Adds placeholder ph after s's other placeholders. */
void tsl_insert_ph(scope *s, fx_node *ph);
/* Moves node n of g just before `before` (both in g), keeping its name and users. */
void tsl_move_before(fx_graph *g, fx_node *n, fx_node *before);
/* The node in s's graph standing for n (a node of an enclosing graph): a placeholder created on
 * first use in every scope between n's graph and s, recorded as a captured operand. */
fx_node *tsl_capture(loader *L, scope *s, fx_node *n);
/* The value TorchScript name `name` has in s or an enclosing scope; NULL after reporting. */
tsval *tsl_lookup(loader *L, scope *s, const char *name);
/* Binds TorchScript name `name` in s to a value (arg) or a module path, of kind tk (tsval.tk). */
void tsl_bind(loader *L, scope *s, const char *name, fx_arg *arg, const char *path, char tk);
/* n's source location and stack trace from the statement's "# file:line" comment. */
void tsl_set_src(loader *L, fx_node *n, const stmt *st);
/* Statements at indentation > indent until the "-> (...)" / "return (...)" line. */
bool tsl_parse_block_body(loader *L, scope *s, size_t indent, const ts_line **ret_line);

/* ---- ts_stmt.c ---- */
/* Reports msg at line ln (NULL: the file) with its source text; marks the load failed. */
void tsl_err(loader *L, const ts_line *ln, const char *msg);
/* Splits the text into L->lines: non-blank lines with their indentation and number. */
void tsl_split_lines(loader *L, const char *text, size_t len);
/* The kind letter (tsval.tk) of a TorchScript type text of n chars. */
char tsl_type_kind(const char *t, size_t n);
/* c may appear in a TorchScript value name. */
bool tsl_is_name_char(char c);
/* Reads "%name" at *i; returns arena name or NULL. */
const char *tsl_read_value(loader *L, const char *s, size_t n, size_t *i);
/* Reads a type up to a top-level ',' or ')' (or end); returns its span. */
void tsl_read_type(const char *s, size_t n, size_t *i, size_t *ts, size_t *te);
/* Skips spaces at *i. */
void tsl_skip_sp(const char *s, size_t n, size_t *i);
/* Parses the statement on line ln ("%a : T = aten::op[attrs](%x, %y) # file:line"); false after
 * reporting. */
bool tsl_parse_stmt(loader *L, const ts_line *ln, stmt *st);
/* A Python literal as an argument (ts_parse_attr_decl checked it). */
fx_arg *tsl_attr_value(fx_program *p, const char *v);

/* ---- ts_ops.c ---- */
/* The Python callable of TorchScript op `op` on Python values, NULL if it has none. */
const char *tsl_scalar_op_target(const char *op);
/* torch.ops.aten.<op>.<overload> for a TorchScript call of op with arguments of these kinds. */
const char *tsl_aten_target(loader *L, const char *op, const char *tks, size_t na);
/* The name torch gives a node of op ("add" for aten::add, "int" for aten::Int). */
const char *tsl_base_name(loader *L, const char *op);

/* ---- ts_blocks.c ---- */
/* The declared value of attribute fqn (by FQN first, then by its bare name), NULL if none. */
const ts_attr_decl *tsl_attr_decl(loader *L, const char *fqn, const char *name);
/* Parses "-> (%a, %b)" / "return (%a)" into an output node of s; returns the count. */
bool tsl_finish_block(loader *L, scope *s, const ts_line *ret);
/* Binds the statement's outputs to getitems of n. */
void tsl_bind_outputs(loader *L, scope *s, const stmt *st, fx_node *n);
/* prim::If → torch.cond with its blocks as subgraphs; prim::Loop → a while-loop node. False after
 * reporting. */
bool tsl_do_if(loader *L, scope *s, const stmt *st);
bool tsl_do_loop(loader *L, scope *s, const stmt *st);

#endif
