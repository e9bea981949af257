/* translate_families.c — the C lowerings a rule's `builtin:` names: the folder's families in one
 * list, looked up by name through one hashed index (base/builtin.h). */
#include "translate/translate.h"
#include "translate/translate_internal.h"

static const builtin_family *const families[] = {
    &tx_core_builtins, &tx_hop_builtins, &tx_composite_builtins, &tx_diagonal_builtins, &tx_strided_builtins,
    &tx_sample_builtins, &tx_histc_builtins, &tx_stft_builtins, &tx_complex_builtins, &tx_embedding_bag_builtins,
    &tx_scatter_reduce_builtins, &tx_norm_builtins, &tx_unbind_builtins, &tx_logical_builtins, &tx_rnn_builtins,
};
static builtin_index index_ = BUILTIN_INDEX(families);

const tx_builtin_entry *tx_find_builtin(const char *name) { return builtin_find(&index_, name); }

const char *tx_builtin_duplicate(void) { return builtin_duplicate(&index_); }

bool translate_builtin_exists(const char *name) { return tx_find_builtin(name) != NULL; }

const char *translate_builtin_suggest(const char *name) { return builtin_suggest(&index_, name); }

void translate_registry_init(ops_registry *r)
{
    ops_registry_init(r);
    r->builtin_exists = translate_builtin_exists;
    r->builtin_suggest = translate_builtin_suggest;
}
