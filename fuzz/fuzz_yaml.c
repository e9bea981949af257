/* fuzz_yaml.c — libFuzzer harness: the YAML tables a user can load (ops lowering rules, the
 * pass tables of export/decompose, meta-inference rules). */
#include "fuzz/fuzz.h"
#include "tables/ops.h"
#include "meta/meta_rules.h"
#include "tables/pass_tables.h"

FXSH_FUZZ_ENTRY(yaml)
{
    diag_sink d;
    diag_init(&d);
    ops_registry r;
    ops_registry_init(&r);
    if (ops_load_string(&r, "fuzz.yaml", (const char *)data, size, &d)) {
        strbuf sb;
        sb_init(&sb);
        ops_print_list(&r, &sb);
        sb_free(&sb);
    }
    ops_registry_free(&r);
    pass_table t;
    pass_table_init(&t);
    pass_table_load_string(&t, "fuzz.yaml", (const char *)data, size, NULL, &d);
    pass_table_free(&t);
    meta_rules mr;
    meta_rules_init(&mr);
    meta_rules_load_string(&mr, "fuzz.yaml", (const char *)data, size, &d);
    meta_rules_free(&mr);
    diag_free(&d);
    return 0;
}
