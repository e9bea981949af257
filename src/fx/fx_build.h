/* fx_build.h — helpers for passes that build FX programs: copies, names, literals.
 *
 * Ownership: copies and parsed literals live in the destination program's arena; a program copy
 * is a new fx_program the caller frees with fx_program_free() (weight data is borrowed). */
#ifndef FXSH_FX_BUILD_H
#define FXSH_FX_BUILD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/hashmap.h"
#include "fx/fx_ir.h"

/* True when p already is an ATen-level (exported) program. */
bool fx_program_is_aten(const fx_program *p);

/* Sets symbol's range constraint (min, max as torch prints them: "3", "int_oo"), replacing one
 * the program has. */
void fx_program_set_range(fx_program *p, const char *symbol, const char *min, const char *max);

/* Deep copy of a whole program (module tree, graphs, meta, signature, ranges, weights table;
 * weight data is borrowed by the copy, never owned). */
fx_program *fx_program_copy(const fx_program *p);
/* The same without graph nodes: every graph of the copy is empty (for passes that rebuild). */
fx_program *fx_program_copy_shell(const fx_program *p);

/* Deep copy of value meta into dst (NULL stays NULL). */
fx_value *fx_copy_value(fx_program *dst, const fx_value *v);

/* The value meta of weight w in p: a tensor of its dtype and shape (sizes as text), no device. */
fx_value *fx_weight_value(fx_program *p, const fx_weight *w);

/* Copies argument tree a into dst, replacing node references through map (a NULL result of
 * map keeps None in its place). */
fx_arg *fx_copy_arg(fx_program *dst, const fx_arg *a,
                        fx_node *(*map)(const fx_node *n, void *ctx), void *ctx);

/* The FX base name torch.export gives a node calling an aten target:
 * "torch.ops.aten.relu_.default" → "relu_", "torch.ops.aten.sym_size.int" → "sym_size_int".
 * Writes into buf (cap bytes) and returns it. */
const char *fx_node_base_name(const char *target, char *buf, size_t cap);

/* The placeholder torch.export lifts a weight to: "p_" (parameter), "b_" (buffer) or "c_"
 * (constant) and the FQN lowercased with every other character than a letter or digit made '_'
 * ("seq.0.weight" -> "p_seq_0_weight"). Writes into buf (cap bytes) and returns it. */
const char *fx_lifted_name(fx_tensor_role role, const char *fqn, char *buf, size_t cap);

/* Parses a Python literal (int, float, True/False, None, 'str', tuple, list, torch.<memfmt>)
 * from [s, end) into p; NULL if the text is not one. */
fx_arg *fx_parse_literal(fx_program *p, const char *s, const char *end);

/* Node names chosen the way torch.fx's _Namespace does: a trailing _N is split off as a
 * counter, Python builtins and keywords are avoided ("sum" -> "sum_1"), and each base name
 * remembers its last counter. Names are reserved in g's name map only when the node is
 * created with the returned name. */
typedef struct fx_namer {
    fx_graph *g;
    hashmap counts;         /* base name -> (void *)(intptr_t)last counter */
} fx_namer;

void fx_namer_init(fx_namer *nm, fx_graph *g);
void fx_namer_free(fx_namer *nm);
/* Returns an arena string (in g's program) not used in g. */
const char *fx_namer_name(fx_namer *nm, const char *candidate);

/* The end of the comma-separated item starting at s (brackets and quotes nest), at most end. */
const char *fx_literal_item_end(const char *s, const char *end);
/* Looks up a module repr argument "Conv2d(3, 8, kernel_size=(3, 3))" by keyword, else by
 * position (pos < 0: keyword only). Sets the value range vs..ve to the value text; false if absent. */
bool fx_repr_find(const char *repr, const char *key, int pos, const char **vs, const char **ve);
/* True when the module repr has key=False. */
bool fx_repr_is_false(const char *repr, const char *key);

#endif
