/* meta_promote.h — torch's dtype promotion: torch.promote_types and torch.result_type.
 *
 * result_type follows c10's ResultTypeState: operands fall in three groups — tensors with
 * dimensions, zero-dim tensors, and wrapped Python scalars — each promoted within itself; a
 * lower group only decides the result when its category (bool < integer < floating < complex)
 * is higher than every group above it. A Python float scalar counts as the default dtype
 * (float32), a Python complex as complex64, a Python int as int64, a Python bool as bool.
 *
 * Everything here is pure; FX_DT_UNKNOWN stands for "torch raises / undefined". */
#ifndef FXSH_META_META_PROMOTE_H
#define FXSH_META_META_PROMOTE_H

#include <stdbool.h>

#include "fx/fx_ir.h"

bool md_is_bool(fx_dtype t);
bool md_is_integral(fx_dtype t);       /* bool excluded */
bool md_is_floating(fx_dtype t);       /* float8 ... float64 */
bool md_is_complex(fx_dtype t);
/* complex64 → float32 (torch's toRealValueType); other types unchanged. */
fx_dtype md_to_real(fx_dtype t);

/* torch.promote_types(a, b); UNKNOWN when torch refuses (float8 with another type, uint16+
 * with a signed integer, ...). */
fx_dtype md_promote(fx_dtype a, fx_dtype b);

typedef enum md_operand {
    MD_TENSOR,         /* a tensor with at least one dimension */
    MD_ZERO_DIM,       /* a 0-d tensor */
    MD_SCALAR          /* a Python number (or SymInt / SymFloat / SymBool) wrapped by the op */
} md_operand;

typedef struct md_state {
    fx_dtype dim, zero, wrapped;
    bool failed;       /* an operand's dtype is unknown or a promotion is undefined */
} md_state;

void md_state_init(md_state *s);
/* Adds one operand; for MD_SCALAR pass the Python type's dtype (i64, f64, c128, bool). */
void md_state_add(md_state *s, md_operand kind, fx_dtype t);
/* torch.result_type of the operands added; UNKNOWN if none or failed. */
fx_dtype md_state_result(const md_state *s);

#endif
