/* meta_families.c — the rule functions share/fxsh/meta names: the folder's families in one list
 * per kind (shape, dtype, strides), looked up by name through hashed indices (base/builtin.h). */
#include "meta/meta_internal.h"

static const builtin_family *const shape_families[] = {
    &mi_shape_builtins, &mi_view_builtins, &mi_python_builtins, &mi_nn_builtins,
};
static const builtin_family *const dtype_families[] = { &mi_dtype_builtins };
static const builtin_family *const strides_families[] = { &mi_strides_builtins };
static builtin_index shape_index = BUILTIN_INDEX(shape_families);
static builtin_index dtype_index = BUILTIN_INDEX(dtype_families);
static builtin_index strides_index = BUILTIN_INDEX(strides_families);

const mi_fn_entry *mi_find_shape(const char *name) { return builtin_find(&shape_index, name); }
const mi_fn_entry *mi_find_dtype(const char *name) { return builtin_find(&dtype_index, name); }
const mi_fn_entry *mi_find_strides(const char *name) { return builtin_find(&strides_index, name); }

const char *mi_suggest_fn(int kind, const char *name)
{
    builtin_index *idx[] = { &shape_index, &dtype_index, &strides_index };
    return kind >= 0 && kind < 3 ? builtin_suggest(idx[kind], name) : NULL;
}

const char *mi_builtin_duplicate(void)
{
    const char *d = builtin_duplicate(&shape_index);
    if (!d)
        d = builtin_duplicate(&dtype_index);
    return d ? d : builtin_duplicate(&strides_index);
}
