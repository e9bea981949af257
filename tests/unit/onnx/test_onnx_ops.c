/* test_onnx_ops.c — the operator records: one per ai.onnx operator of the generated signatures,
 * found by domain and name, each version by opset, joined with its defaults and inference. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "onnx/onnx_op.h"
#include "onnx/onnx_schema.h"

/* Every generated signature row belongs to the record of its name, in order: a regenerated
 * table with a new operator fails here until the registry has its line. */
static void test_every_signature_has_a_record(void **state)
{
    (void)state;
    size_t rows = 0;
    for (size_t i = 0; i < ox_op_schema_count; i++) {
        const ox_op *op = ox_op_find(ox_op_schema_table[i].domain, ox_op_schema_table[i].name);
        if (!op) fail_msg("no record for %s %s", ox_op_schema_table[i].domain, ox_op_schema_table[i].name);
        assert_true(&ox_op_schema_table[i] >= op->versions && &ox_op_schema_table[i] < op->versions + op->n_versions);
    }
    for (size_t id = 0; id < ox_op_count(); id++) {
        const ox_op *op = ox_op_at(id);
        assert_int_equal(op->id, id);
        assert_ptr_equal(ox_op_find(op->domain, op->name), op);
        rows += op->n_versions;
        if (!op->n_versions) fail_msg("record %s %s has no generated signature", op->domain, op->name);
    }
    assert_int_equal(rows, ox_op_schema_count);
    assert_null(ox_op_at(ox_op_count()));
}

static void test_lookup(void **state)
{
    (void)state;
    const ox_op *add = ox_op_find("", "Add");
    assert_non_null(add);
    assert_ptr_equal(ox_op_find(NULL, "Add"), add);
    assert_ptr_equal(ox_op_find("ai.onnx", "Add"), add);
    assert_string_equal(add->name, "Add");
    assert_non_null(add->infer);
    assert_null(ox_op_find("", "add"));
    assert_null(ox_op_find("", NULL));
    assert_null(ox_op_find("com.example", "Add"));
    /* another domain's operator is not the default domain's */
    const ox_op *adam = ox_op_find("ai.onnx.preview.training", "Adam");
    assert_non_null(adam);
    assert_string_equal(adam->domain, "ai.onnx.preview.training");
    assert_null(ox_op_find("", "Adam"));
    assert_int_equal(ox_op_version(adam, 1)->since_version, 1);
    assert_string_equal(ox_op_version(adam, 1)->domain, "ai.onnx.preview.training");
    /* ai.onnx.ml's operators have their signatures too, by their own domain's versions */
    const ox_op *le = ox_op_find("ai.onnx.ml", "LabelEncoder");
    assert_non_null(le);
    assert_null(ox_op_find("", "LabelEncoder"));
    assert_int_equal(ox_op_version(le, 3)->since_version, 2);
    assert_int_equal(ox_op_version(le, 4)->since_version, 4);
    int first = -1;
    assert_ptr_equal(ox_op_schema_find("ai.onnx.ml", "LabelEncoder", 5, &first), ox_op_version(le, 5));
    assert_int_equal(first, 1);
    assert_null(ox_op_schema_find("", "LabelEncoder", 18, &first));
    assert_int_equal(first, 0);
}

/* The version an opset imports: the latest at or before it, as onnx's schema registry picks. */
static void test_versions_and_defaults(void **state)
{
    (void)state;
    const ox_op *add = ox_op_find("", "Add");
    assert_int_equal(add->versions[0].since_version, 1);
    assert_null(ox_op_version(add, 0));
    assert_int_equal(ox_op_version(add, 6)->since_version, 6);
    assert_int_equal(ox_op_version(add, 13)->since_version, 13);
    assert_int_equal(ox_op_version(add, 18)->since_version, 14);
    assert_null(ox_op_version(ox_op_find("", "Attention"), 22));
    assert_int_equal(ox_op_version(ox_op_find("", "Attention"), 23)->since_version, 23);
    int first = -1;
    assert_ptr_equal(ox_op_schema_find("", "Add", 18, &first), ox_op_version(add, 18));
    assert_int_equal(first, 1);
    assert_null(ox_op_schema_find(NULL, "NoSuchOp", 18, &first));
    assert_int_equal(first, 0);
    /* the opset-18 attribute defaults ride on the record */
    const ox_op *argmax = ox_op_find("", "ArgMax");
    assert_non_null(argmax->defaults);
    assert_string_equal(argmax->defaults->name, "ArgMax");
    assert_ptr_equal(ox_op_attr_defaults_find("ArgMax"), argmax->defaults);
    assert_null(ox_op_find("", "Attention")->defaults);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_signature_has_a_record),
        cmocka_unit_test(test_lookup),
        cmocka_unit_test(test_versions_and_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
