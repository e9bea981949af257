/* fx.h — printers and inspection helpers of the FX IR (with fx_ir.h, the public API of src/fx).
 *
 * Ownership: loaders return a new fx_program the caller frees with fx_program_free(), or NULL
 * after reporting at least one error to d (nothing else is left behind). Printers and
 * inspection helpers append to a caller-owned strbuf and never print. */
#ifndef FXSH_FX_H
#define FXSH_FX_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/strbuf.h"
#include "fx/fx_ir.h"

/* Printers: GRAPH = print(gm.graph), CODE = print_readable(), MODULE = print(gm),
 * TABULAR = graph.print_tabular(). Output has no trailing newline except CODE, which ends
 * with one exactly like print_readable(print_output=False). */
void fx_print(const fx_program *p, fx_form form, strbuf *out);
/* One graph in print(graph) form. */
void fx_print_graph(const fx_graph *g, strbuf *out);
/* A Graphviz digraph of the program, as torch.fx's FxGraphDrawer draws it: a box per node (name,
 * opcode and target, "f32[4, 1]"), an edge per node argument, each subgraph module (cond branches,
 * loop bodies) a cluster of its own nodes with a dashed edge from its output to the get_attr
 * that names it; edges are written after the clusters, at the top level. */
void fx_print_dot(const fx_program *p, strbuf *out);
/* One node as node.format_node() renders it (a graph line without its indentation):
 * "%relu : [num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%x,), kwargs = {})". */
void fx_format_node(const fx_node *n, strbuf *out);
/* str(node.target) as print_tabular shows it: OpOverloads without "torch.ops." ("aten.relu.default"),
 * operator functions as "<built-in function mul>", anything else as printed in graph text. */
void fx_target_str(const fx_node *n, strbuf *out);
/* str(ep.graph_signature): "\n# inputs\n...\n\n# outputs\n...\n" (print(ep) indents it). */
void fx_print_signature(const fx_program *p, strbuf *out);
/* str(ep.range_constraints): "{s77: VR[2, int_oo]}". */
void fx_print_range_constraints(const fx_program *p, strbuf *out);
/* print(gm): module tree repr + generated forward code + debug-info trailer. */
void fx_print_module(const fx_program *p, strbuf *out);
/* One module as a readable class ("class <class_name>(torch.nn.Module):") with nested
 * GraphModule children. indent 0 = print_readable() exactly; indent N puts N spaces at the
 * start and after every newline (blank lines and the final one included), which is the layout
 * print(ep) uses: "ExportedProgram:\n" + fx_print_code_class(root, "GraphModule", 4) + "\n"
 * + "Graph signature:...". */
void fx_print_code_class(const fx_module *m, const char *class_name, size_t indent, strbuf *out);

/* Inspection (REPL commands). Subgraph nodes are listed after the root graph's, named by
 * their module path: "true_graph_0.mul". */
void fx_print_nodes(const fx_program *p, strbuf *out);
int fx_print_node(const fx_program *p, const char *name, strbuf *out);   /* -1 if not found */
/* Nodes whose name or target contains text (fold_case: ASCII case ignored); how many matched. */
size_t fx_find(const fx_program *p, const char *text, bool fold_case, strbuf *out);
void fx_print_stats(const fx_program *p, strbuf *out);
void fx_each_node_name(const fx_program *p, void (*cb)(const char *name, void *ctx), void *ctx);
/* Resolves "name", "%name" or "sub.path.name"; NULL if absent. */
fx_node *fx_program_find_node(const fx_program *p, const char *qualified);

/* Whether node n's value can become an input of a program made of some of its graph's nodes
 * (fx_extract): a placeholder, or a call whose value meta is one tensor. */
bool fx_extract_cuttable(const fx_node *n);
/* A new program made of the root-graph nodes keep[i] (by index in graph order) of p and returning
 * the nodes named outputs[0..n_out): every node a kept node reads that is not kept becomes a user
 * input placeholder holding its value meta; the weights' placeholders stay weights (their table
 * entries kept). Node names, targets and meta are kept. The caller frees it; NULL after reporting. */
fx_program *fx_extract(const fx_program *p, const bool *keep, const char *const *outputs, size_t n_out, diag_sink *d);

/* True when some weight of p carries its data (a .pt2 archive, --weights), not only its meta. */
bool fx_program_has_weight_data(const fx_program *p);

/* REPL commands. Return false (and report to d) when the request cannot be served, e.g. an
 * unknown weight name, or `weights` on a program loaded from bare JSON. */
bool fx_program_signature(const fx_program *p, strbuf *out, diag_sink *d);
bool fx_program_params(const fx_program *p, strbuf *out, diag_sink *d);
bool fx_program_weight_summary(const fx_program *p, const char *name, strbuf *out, diag_sink *d);
/* The weight `weights NAME` means: by state-dict name (fc1.weight) or by the placeholder that
 * lifts it (p_fc1_weight); NULL if none. */
const fx_weight *fx_program_weight_named(const fx_program *p, const char *name);

/* print(ep): "ExportedProgram:\n    <readable code>\nGraph signature: ...\nRange constraints: {...}\n". */
bool fx_print_program(const fx_program *p, strbuf *out, diag_sink *d);

#endif
