/* ts_ops.c — TorchScript op names → the targets torch.fx records (ATen overloads by argument kinds,
 * Python callables for ops on Python values) and torch's node names for them. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/interrupt.h"
#include "base/strbuf.h"
#include "fx/fx_control.h"
#include "load/fx_weight_source.h"
#include "load/ts_load.h"
#include "load/ts_load_internal.h"

/* ---- op mapping ------------------------------------------------------------------------------ */

/* TorchScript ops on Python values (no tensor argument) → the Python callables torch.fx records. */
static const char *const scalar_ops[][2] = {
    {"add", "operator.add"}, {"sub", "operator.sub"}, {"mul", "operator.mul"},
    {"floordiv", "operator.floordiv"}, {"div", "operator.truediv"}, {"remainder", "operator.mod"},
    {"eq", "operator.eq"}, {"ne", "operator.ne"}, {"lt", "operator.lt"}, {"gt", "operator.gt"},
    {"le", "operator.le"}, {"ge", "operator.ge"}, {"neg", "operator.neg"}, {"__not__", "operator.not_"},
    {"__and__", "operator.and_"}, {"__or__", "operator.or_"}, {"__xor__", "operator.xor"},
    {"__is__", "operator.is_"}, {"__isnot__", "operator.is_not"}, {"__contains__", "operator.contains"},
    {"__getitem__", "operator.getitem"}, {"len", "builtins.len"}, {"Int", "builtins.int"},
    {"Float", "builtins.float"}, {"Bool", "builtins.bool"}, {"format", "builtins.str.format"},
    {"list", "builtins.list"}, {"append", "fxsh.list_append"}, {"pow", "operator.pow"},
    {"floor", "math.floor"}, {"ceil", "math.ceil"}, {"sqrt", "math.sqrt"}, {"abs", "builtins.abs"},
    {"min", "builtins.min"}, {"max", "builtins.max"}, {"warn", "fxsh.warn"},
    {NULL, NULL}};

/* TorchScript prints an op's name and passes every schema argument, defaults included; the
 * overload is the one Python binds for the same call, as torch.export records it (e.g. a number
 * as the second operand of add is add.Tensor: Python passes it as a tensor). Rows are tried in
 * order; kinds is matched against the arguments' kinds, one letter each: T tensor, # number
 * (int, float or bool), i int, l list, s str, n None, ? any; a final * matches any rest.
 * target is an overload name, or "op.overload" when torch records another op. An op without a
 * matching row is op.default. */
typedef struct ts_overload {
    const char *op, *kinds, *target;
} ts_overload;

static const ts_overload overloads[] = {
    {"add", "T*", "Tensor"}, {"sub", "T*", "Tensor"}, {"mul", "T*", "Tensor"},
    {"div", "T??", "Tensor_mode"}, {"div", "T?", "Tensor"},
    {"add_", "T*", "Tensor"}, {"sub_", "T*", "Tensor"}, {"mul_", "T*", "Tensor"},
    {"div_", "T??", "Tensor_mode"}, {"div_", "T?", "Tensor"},
    {"rsub", "TT*", "Tensor"}, {"rsub", "T#*", "Scalar"},
    {"eq", "TT", "Tensor"}, {"eq", "T#", "Scalar"}, {"ne", "TT", "Tensor"}, {"ne", "T#", "Scalar"},
    {"lt", "TT", "Tensor"}, {"lt", "T#", "Scalar"}, {"gt", "TT", "Tensor"}, {"gt", "T#", "Scalar"},
    {"le", "TT", "Tensor"}, {"le", "T#", "Scalar"}, {"ge", "TT", "Tensor"}, {"ge", "T#", "Scalar"},
    {"__and__", "TT", "Tensor"}, {"__and__", "T#", "Scalar"}, {"__or__", "TT", "Tensor"},
    {"__or__", "T#", "Scalar"}, {"__xor__", "TT", "Tensor"}, {"__xor__", "T#", "Scalar"},
    {"bitwise_and", "TT", "Tensor"}, {"bitwise_and", "T#", "Scalar"}, {"bitwise_or", "TT", "Tensor"},
    {"bitwise_or", "T#", "Scalar"}, {"bitwise_xor", "TT", "Tensor"}, {"bitwise_xor", "T#", "Scalar"},
    {"pow", "TT", "Tensor_Tensor"}, {"pow", "T#", "Tensor_Scalar"}, {"pow", "#T", "Scalar"},
    {"remainder", "TT", "Tensor"}, {"remainder", "T#", "Scalar"}, {"fmod", "TT", "Tensor"},
    {"fmod", "T#", "Scalar"}, {"floor_divide", "T#", "Scalar"},
    {"masked_fill", "TTT", "Tensor"}, {"masked_fill", "TT?", "Scalar"}, {"masked_fill_", "TTT", "Tensor"},
    {"masked_fill_", "TT?", "Scalar"}, {"fill_", "TT", "Tensor"}, {"fill_", "T?", "Scalar"},
    {"where", "TTT", "self"}, {"where", "T#T", "ScalarSelf"}, {"where", "TT#", "ScalarOther"},
    {"where", "T##", "Scalar"},
    {"clamp", "TT?", "Tensor"}, {"clamp", "T?T", "Tensor"},
    {"sum", "T?", "default"}, {"sum", "T???", "dim_IntList"}, {"mean", "T?", "default"},
    {"mean", "T???", "dim"}, {"nansum", "T???", "default"}, {"prod", "T?", "default"},
    {"prod", "T???", "dim_int"},
    {"max", "T", "default"}, {"max", "TT", "other"}, {"max", "T??", "dim"}, {"min", "T", "default"},
    {"min", "TT", "other"}, {"min", "T??", "dim"},
    {"any", "T", "default"}, {"any", "Ti?", "dim"}, {"any", "T??", "dims"}, {"all", "T", "default"},
    {"all", "Ti?", "dim"}, {"all", "T??", "dims"},
    {"var", "Tb", "default"}, {"var", "T?b?", "dim"}, {"var", "T???", "correction"},
    {"std", "Tb", "default"}, {"std", "T?b?", "dim"}, {"std", "T???", "correction"},
    {"var_mean", "T?b?", "dim"}, {"var_mean", "T???", "correction"},
    {"std_mean", "T?b?", "dim"}, {"std_mean", "T???", "correction"},
    {"softmax", "T*", "int"}, {"log_softmax", "T*", "int"}, {"select", "T*", "int"},
    {"transpose", "T*", "int"}, {"unbind", "T*", "int"}, {"flatten", "T*", "using_ints"},
    {"unflatten", "T*", "int"}, {"slice", "T*", "Tensor"}, {"index", "T*", "Tensor"},
    {"split", "Tl*", "split_with_sizes.default"}, {"split", "T*", "Tensor"},
    {"squeeze", "T", "default"}, {"squeeze", "Ti", "dim"}, {"squeeze", "Tl", "dims"},
    {"view", "Ti", "dtype"},
    {"to", "TT*", "other"}, {"to", "T????", "dtype"}, {"to", "T?????", "device"},
    {"to", "T*", "dtype_layout"},
    {"conv1d", "TT??s*", "padding"}, {"conv2d", "TT??s*", "padding"}, {"conv3d", "TT??s*", "padding"},
    {"conv_transpose2d", "T*", "input"}, {"conv_transpose3d", "T*", "input"},
    {"scatter", "T?TT", "src"}, {"scatter", "T?T?", "value"}, {"scatter_", "T?TT", "src"},
    {"scatter_", "T?T?", "value"},
    /* F.interpolate calls the vec overloads: (input, output_size, [align_corners,] scale_factors) */
    {"upsample_nearest1d", "T??", "vec"}, {"upsample_nearest2d", "T??", "vec"},
    {"upsample_nearest3d", "T??", "vec"}, {"_upsample_nearest_exact1d", "T??", "vec"},
    {"_upsample_nearest_exact2d", "T??", "vec"}, {"_upsample_nearest_exact3d", "T??", "vec"},
    {"upsample_linear1d", "T???", "vec"}, {"upsample_bilinear2d", "T???", "vec"},
    {"upsample_trilinear3d", "T???", "vec"}, {"upsample_bicubic2d", "T???", "vec"},
    {"_upsample_bilinear2d_aa", "T???", "vec"}, {"_upsample_bicubic2d_aa", "T???", "vec"},
    {"_upsample_lanczos2d_aa", "T???", "vec"},
    {NULL, NULL, NULL}};

/* The Python callable of TorchScript op `op` on Python values, NULL if it has none. */
const char *tsl_scalar_op_target(const char *op)
{
    for (size_t i = 0; scalar_ops[i][0]; i++)
        if (strcmp(scalar_ops[i][0], op) == 0)
            return scalar_ops[i][1];
    return NULL;
}

static bool kinds_match(const char *pat, const char *tks, size_t na)
{
    size_t i = 0;
    for (; *pat; pat++, i++) {
        if (*pat == '*')
            return true;
        if (i >= na)
            return false;
        char k = tks[i];
        bool ok = *pat == '?' || *pat == k || (*pat == '#' && (k == 'i' || k == 'f' || k == 'b'));
        if (!ok)
            return false;
    }
    return i == na;
}

/* torch.ops.aten.<op>.<overload> for a TorchScript call of op with arguments of these kinds. */
const char *tsl_aten_target(loader *L, const char *op, const char *tks, size_t na)
{
    if (strcmp(op, "size") == 0)
        return na >= 2 ? "torch.ops.aten.sym_size.int" : "torch.ops.aten.sym_size.default";
    for (const ts_overload *o = overloads; o->op; o++)
        if (strcmp(o->op, op) == 0 && kinds_match(o->kinds, tks, na))
            return strchr(o->target, '.') ? arena_printf(&L->p->arena, "torch.ops.aten.%s", o->target)
                                          : arena_printf(&L->p->arena, "torch.ops.aten.%s.%s", op, o->target);
    return arena_printf(&L->p->arena, "torch.ops.aten.%s.default", op);
}

const char *tsl_base_name(loader *L, const char *op)
{
    size_t n = strlen(op);
    if (strcmp(op, "Int") == 0 || strcmp(op, "Float") == 0 || strcmp(op, "Bool") == 0)
        return op[0] == 'I' ? "int" : op[0] == 'F' ? "float" : "bool";
    if (n > 4 && strncmp(op, "__", 2) == 0 && strcmp(op + n - 2, "__") == 0)
        return fx_strndup(L->p, op + 2, n - 4);
    return op;
}
