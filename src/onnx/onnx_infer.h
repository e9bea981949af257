/* onnx_infer.h — ONNX type and shape inference for one node, by each operator's inference
 * function as onnx defines it (onnx/defs), and for a graph's untyped values.
 *
 * torch.onnx's models carry a value_info entry for every value its builder typed, and its
 * builder types each node's outputs with ONNX's inference as the node is made (constant inputs
 * known). fxsh types the values its lowerings make the same way, so that `show onnx` /
 * `show optimized` print what torch's do, and `check` can tell a declared type that contradicts
 * the inferred one, as onnx's checker with full_check does. What an operator's inference cannot
 * tell stays unknown: a dimension as "?", a whole type as no entry. */
#ifndef FXSH_ONNX_INFER_H
#define FXSH_ONNX_INFER_H

#include <stdbool.h>
#include <stdint.h>

#include "base/hashmap.h"
#include "onnx/onnx_tensor.h"
#include "onnx/onnx_ir.h"

/* One dimension: a value (v >= 0), a symbol (sym), or unknown (v < 0, sym NULL). */
typedef struct oi_dim {
    int64_t v;
    const char *sym;
    bool neg;            /* a negative dim_value as a model declares it (v is that value; -1 too):
                            read as unknown, but onnx's inference compares it as a number */
} oi_dim;

/* What a value holds: a tensor, a sequence of tensors, an optional tensor or sequence. */
enum { OI_TENSOR = 0, OI_SEQUENCE, OI_OPTIONAL, OI_OPTIONAL_SEQUENCE };

/* A type as inference sees it: its kind, and its (innermost) tensor's element type and shape;
 * elem 0 = unknown (no type at all), rank -1 = no shape. value, when set, is the tensor's
 * constant value (borrowed; small int tensors only). */
typedef struct oi_type {
    int elem;
    int rank;
    oi_dim d[OE_MAX_RANK];
    const oe_tensor *value;
    int kind;                /* OI_TENSOR (0) unless said */
} oi_type;

/* Infers the outputs of n (opset: of the default domain) from its inputs' types. out[i].elem
 * is 0 where nothing is known. Returns 0, or -1 when the inputs contradict the operator
 * (incompatible broadcast, wrong rank...) with the reason in why (may be NULL). */
int oi_infer_node(const Onnx__NodeProto *n, int64_t opset, const oi_type *in, size_t nin, oi_type *out,
                  size_t nout, char *why, size_t why_cap);

/* oi_type of a TypeProto (a tensor, a sequence of tensors, an optional of either; anything else
 * is unknown). */
void oi_from_proto(const Onnx__TypeProto *tp, oi_type *t);
/* A TypeProto for t, in m's arena; NULL when t is unknown or not a tensor. */
Onnx__TypeProto *oi_to_proto(ox_model *m, const oi_type *t);

/* Called for each node output in node order (g: the graph the node is in, g itself or one of
 * its subgraphs, each walked when its If / Loop / Scan node is): inferred (never NULL then) and the type the graph
 * declares for it (value_info, graph output; NULL if none); or once per node, with why set and
 * the types NULL, when the node's inputs contradict its operator. */
typedef void (*oi_visit)(void *ctx, const Onnx__GraphProto *g, size_t node_index, const Onnx__NodeProto *n, size_t output, const oi_type *inferred,
                         const oi_type *declared, const char *why);
/* Infers g's nodes in order, and those of the bodies of its If / Loop / Scan nodes: from the
 * types g declares (inputs, initializers, value_info, outputs) and its small constants' values.
 * A declared value carries downstream what inference adds to it (a dimension it leaves open). */
void oi_walk_graph(const Onnx__GraphProto *g, int64_t opset, oi_visit visit, void *ctx);

/* Adds a value_info entry, in node order, for every node output of g (not its subgraphs) that
 * has no type yet and whose type inference tells (element type at least). Graph outputs are
 * left alone. Returns how many entries were added. */
size_t oi_type_graph_values(ox_model *m, Onnx__GraphProto *g, int64_t opset);
/* The same, leaving out the values named in skip (name → non-NULL). */
size_t oi_type_graph_values_except(ox_model *m, Onnx__GraphProto *g, int64_t opset, const hashmap *skip);

#endif
