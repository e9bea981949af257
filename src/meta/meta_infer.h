/* meta_infer.h — shape and dtype inference for ATen programs: fills each node's value meta
 * (meta["val"]: dtype, sizes with symbolic dims such as "s77" or "2*s77", strides, device) the
 * way torch.export's FakeTensor propagation records it, so that programs fxsh builds itself
 * (export of a torch-level graph, TorchScript loads, user patches) print "f32[s77, 4]" and
 * translate to typed ONNX values like programs torch exported.
 *
 * What it fills, in graph order, in the root graph and every HOP subgraph:
 *   - call_function nodes on ATen / prims / onnx_symbolic overloads, by the rule tables in
 *     share/fxsh/meta/ (see meta_rules.h): shape, torch's dtype promotion, strides;
 *   - operator.getitem of multi-output ops and HOPs; operator arithmetic on SymInts;
 *     aten.sym_size / sym_stride / sym_numel (SymInt values);
 *   - torch.ops.higher_order.cond / while_loop / scan and fxsh.python_if / python_for /
 *     python_while: subgraph placeholders without meta take their operands' (scan: one slice
 *     of each scanned input), the subgraph is inferred, the node gets the tuple of its results;
 *   - root placeholders without meta that the graph signature names as parameters, buffers or
 *     constants: from the program's weights table; get_attr nodes naming a weight.
 * A node that already has meta is left as it is (its meta feeds its users).
 *
 * Ownership: values are allocated in the program's arena. The rules are the caller's. */
#ifndef FXSH_META_META_INFER_H
#define FXSH_META_META_INFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "fx/fx_ir.h"
#include "meta/meta_rules.h"

/* Fills the missing metas of p in place, with the tables shipped with fxsh. Returns true when
 * every node that produces a value has meta afterwards. Nodes left without meta (an op without
 * a rule, an input without meta, arguments a rule rejects) are reported to d as notes naming
 * the node and the reason, grouped by op; nothing here is an error, and p stays valid either
 * way. When the tables themselves cannot be loaded, that is reported as an error and false is
 * returned with p unchanged. Linear in the number of nodes. */
bool meta_infer_program(fx_program *p, diag_sink *d);

/* The same with rules loaded by the caller (meta_rules_shipped, or rules of their own), for
 * callers that infer many programs. */
bool meta_infer_program_with(fx_program *p, const meta_rules *rules, diag_sink *d);

/* Node by node, for a pass that builds a program and needs each new node's meta before it emits
 * the next (export specializes `x.shape` on it, as torch.export does): meta_inferer_node fills
 * one node (no-op when it has meta); meta_inferer_finish optionally walks the whole program for
 * what is still missing, reports the notes, frees the inferer and returns true when every
 * value-producing node has meta. The rules must outlive the inferer. */
typedef struct meta_inferer meta_inferer;
meta_inferer *meta_inferer_new(fx_program *p, const meta_rules *rules, diag_sink *d);
void meta_inferer_node(meta_inferer *mi, fx_node *n);
bool meta_inferer_finish(meta_inferer *mi, bool whole_program);

/* Strict inference, for export: a rule that rejects the arguments of a node whose inputs all
 * have meta (shapes that cannot be multiplied, an index out of range) is an error at that node,
 * as torch's fake tensors raise there, instead of a note; meta_inferer_errors counts them.
 * What fxsh cannot infer (no rule, an input without meta) stays a note. */
void meta_inferer_set_strict(meta_inferer *mi, bool strict);
size_t meta_inferer_errors(const meta_inferer *mi);
/* The whole-program walk of meta_inferer_finish(mi, true), without reporting or freeing. */
void meta_inferer_walk(meta_inferer *mi);
/* meta_infer_program_with in strict mode: false when an error was reported. */
bool meta_infer_program_strict(fx_program *p, const meta_rules *rules, diag_sink *d);

/* The value meta a call target(args | kwargs) in graph g of p would have, without adding the
 * call to g: for a pass that decides what to emit from a result's meta (decompose branches on
 * the sizes and strides of what it is about to emit). NULL, with nothing reported, when it
 * cannot be inferred (no rule, an input without meta, arguments the rule rejects) and for
 * higher-order ops, whose results come from their subgraphs. args is a TUPLE and kwargs a DICT
 * (as a node's), only read. Allocated in p's arena. */
fx_value *meta_infer_call(fx_program *p, const meta_rules *rules, fx_graph *g, const char *target, fx_arg *args,
                          fx_arg *kwargs);

/* Node n of p (a call_function) inferred again from its arguments' metas, ignoring the meta n
 * already has: for checking a program's declared metas (meta_verify.h). NULL when it cannot be
 * inferred; why (may be NULL) then holds the rule's reason when the rule rejected arguments that
 * all have meta, and "" when fxsh has no rule or an argument has no meta. Allocated in p's
 * arena; n is not changed. */
fx_value *meta_infer_node_again(fx_program *p, const meta_rules *rules, const fx_node *n, char *why, size_t cap);

/* Specializations: a rule that takes a symbolic size equal to a number (a matmul's inner size, a
 * broadcast against a static size) makes torch's ShapeEnv pin the symbol to it. While a log is
 * set, every inference appends (symbol, value, node) to it, once per symbol; NULL stops. The
 * caller owns the log (meta_spec_log_clear). */
typedef struct meta_spec {
    char *symbol;
    int64_t value;
    char *node;
} meta_spec;
typedef struct meta_spec_log {
    meta_spec *items;
    size_t len, cap;
} meta_spec_log;
void meta_record_specializations(meta_spec_log *log);
void meta_spec_log_clear(meta_spec_log *log);

#endif
