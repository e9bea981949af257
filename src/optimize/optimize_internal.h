/* optimize_internal.h — what the optimizer's passes share (not a public API: see optimize.h).
 *
 * Ownership: names and copies live in the model's arena; scopes borrow their graph and free
 * only their own maps (opt_scope_free). */
#ifndef FXSH_OPTIMIZE_INTERNAL_H
#define FXSH_OPTIMIZE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "eval/onnx_eval.h"
#include "onnx/onnx_ir.h"
#include "onnx/onnx_pb.h"
#include "optimize/optimize.h"

/* Calls fn on every graph attribute of node n. */
#define FOR_SUBGRAPHS(n, var, body)                                                          \
    do {                                                                                     \
        for (size_t fs_j_ = 0; fs_j_ < (n)->n_attribute; fs_j_++) {                           \
            Onnx__AttributeProto *fs_a_ = (n)->attribute[fs_j_];                              \
            if (fs_a_->g) {                                                                  \
                Onnx__GraphProto *var = fs_a_->g;                                            \
                body;                                                                        \
            }                                                                                \
            for (size_t fs_k_ = 0; fs_k_ < fs_a_->n_graphs; fs_k_++) {                        \
                Onnx__GraphProto *var = fs_a_->graphs[fs_k_];                                \
                body;                                                                        \
            }                                                                                \
        }                                                                                    \
    } while (0)

typedef struct cval {
    const Onnx__TensorProto *proto;  /* initializer or Constant value, or NULL */
    oe_tensor *t;                    /* evaluated value (owned by the fold context) */
    bool not_const;                  /* a graph input shadowing an outer constant, or unreadable */
} cval;

typedef struct scope {
    struct scope *parent;
    hashmap types;    /* name → Onnx__TypeProto */
    hashmap vals;     /* name → cval */
    hashmap elems;    /* name → inferred element type (uintptr_t) for values without a type */
    bool no_infer;    /* inside a SequenceMap body: ONNX Runtime types its values from the
                         body's own nodes, so nothing may be folded away on inferred types */
} scope;

/* s, or "" for NULL. */
const char *opt_str(const char *s);
bool opt_is_default_domain(const char *d);
bool opt_is_op(const Onnx__NodeProto *n, const char *op);
const optimize_options *opt_opts_or_default(const optimize_options *o, optimize_options *buf);
void opt_too_deep(diag_sink *d, int max_depth);
const char *opt_resolve(const hashmap *ren, const char *name);
void opt_rename_uses(Onnx__GraphProto *g, const hashmap *ren, bool outputs, int depth, int max_depth);
size_t opt_compact_nodes(Onnx__GraphProto *g, const bool *dead);
void opt_graph_outputs(const Onnx__GraphProto *g, hashmap *set);
void opt_graph_inputs(const Onnx__GraphProto *g, hashmap *set);   /* the names of g's inputs */
void opt_collect_names(Onnx__GraphProto *g, hashmap *set, int depth, int max_depth);
char *opt_fresh_name(ox_model *m, hashmap *taken, const char *base);
/* The number onnx-ir gives g's next unnamed node (node_<Op>_<N>): one past the highest N there. */
int64_t opt_next_node_number(const Onnx__GraphProto *g);
/* A deep copy of a protobuf message in m's arena (packs and unpacks it). */
void *opt_deep_copy(ox_model *m, const ProtobufCMessage *msg,
                    void *(*unpack)(ProtobufCAllocator *, size_t, const uint8_t *));
Onnx__NodeProto *opt_node_copy(ox_model *m, const Onnx__NodeProto *n);
Onnx__AttributeProto *opt_attr_copy(ox_model *m, const Onnx__AttributeProto *a);
void opt_scope_init(scope *s, scope *parent, Onnx__GraphProto *g, arena *a);
void opt_scope_free(scope *s);
cval *opt_scope_val(scope *s, const char *name);
const Onnx__TypeProto *opt_scope_type(scope *s, const char *name);
int opt_static_shape(const Onnx__TypeProto *tp, int64_t *dims, int *elem);
int opt_elem_type_of(const Onnx__TypeProto *tp);
int opt_scope_elem(scope *s, const char *name);
void opt_infer_elem(scope *s, const Onnx__NodeProto *n);
/* opt_infer.c: types n's outputs by ONNX inference when all its inputs are typed (adds value_info
 * entries to g and s for untyped ones, fills in the dims typed ones did not know), as
 * onnxscript's constant folder does before folding a node. */
void opt_infer_types(ox_model *m, Onnx__GraphProto *g, scope *s, const Onnx__NodeProto *n, int64_t opset);
/* opt_infer.c: the type of the value folded into initializer t becomes t's dtype and dims. */
void opt_type_as_tensor(ox_model *m, scope *s, const Onnx__TensorProto *t);

const char *opt_func_key(arena *a, const char *domain, const char *name, const char *overload);
int opt_const_ints(scope *s, const char *name, int64_t *v, int cap);
int opt_count_uses(Onnx__GraphProto *g, int depth, void *ctx);
int opt_count_output_uses(Onnx__GraphProto *g, int depth, void *ctx);

#endif
