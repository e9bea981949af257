#!/bin/sh
# rename-symbols.sh — the renames that gave each folder its own prefixes (issue 23: values in memory
# are src/onnx's ot_, the evaluator src/eval's oe_, the shell's views src/view's view_), as a script
# so that a branch started before them can be brought up to date: sh scripts/dev/rename-symbols.sh
set -eu
cd "$(dirname "$0")/../.."
map='
fx_parse_exported_text fxp_parse_exported_text
fx_indent_of fxp_indent_of
fx_line_blank fxp_line_blank
fx_split_lines fxp_split_lines
fx_value_parse fxp_value_parse
fx_parse_code_text fxp_parse_code_text
fx_parse_forward fxp_parse_forward
fx_prescan_names fxp_prescan_names
fx_parse_module_text fxp_parse_module_text
fx_parse_graph_text fxp_parse_graph_text
fx_load_text load_fx_text
fx_text_complete load_fx_text_complete
fx_attach_weights_buffer load_attach_weights_buffer
fx_attach_weights load_attach_weights
fx_weight_file_format load_weight_file_format
ts_normalize_node tsn_normalize_node
ts_normalize_program_with tsn_normalize_program_with
ts_prepare_program tsn_prepare_program
json_check cmd_json_check
json_flag cmd_json_flag
json_node cmd_json_node
json_nodes cmd_json_nodes
json_option cmd_json_option
json_params cmd_json_params
json_signature cmd_json_signature
json_stages cmd_json_stages
json_stats cmd_json_stats
json_summary cmd_json_summary
load_model_file cmd_load_model_file
oe_bf16_to_float ot_bf16_to_float
oe_doubles ot_doubles
oe_dtype_bytes ot_dtype_bytes
oe_dtype_supported ot_dtype_supported
oe_esize ot_esize
oe_float_to_bf16 ot_float_to_bf16
oe_float_to_half ot_float_to_half
oe_from_proto ot_from_proto
oe_get_f ot_get_f
oe_get_i ot_get_i
oe_half_to_float ot_half_to_float
oe_numel_of ot_numel_of
oe_optional_init ot_optional_init
oe_round_to ot_round_to
oe_seq_init ot_seq_init
oe_seq_push ot_seq_push
oe_set_f ot_set_f
oe_set_i ot_set_i
oe_store_doubles ot_store_doubles
oe_strides ot_strides
oe_tensor_copy ot_tensor_copy
oe_tensor_equal ot_tensor_equal
oe_tensor_free ot_tensor_free
oe_tensor_from_f ot_tensor_from_f
oe_tensor_from_i ot_tensor_from_i
oe_tensor_init ot_tensor_init
oe_to_proto ot_to_proto
oe_compare_models view_compare_models
oe_compare_result_free view_compare_result_free
oe_diff_ok view_diff_ok
oe_diff_values view_diff_values
oe_index_text view_index_text
oe_value_summary view_value_summary
ox_dot view_dot
ox_each_node_name view_each_node_name
ox_find view_find
ox_show_initializer view_show_initializer
ox_show_node view_show_node
ox_show_nodes view_show_nodes
ox_show_provenance view_show_provenance
ox_show_stats view_show_stats
oe_repr view_repr
ox_summary view_summary
ox_summary_type view_summary_type
oe_dtype_from_numpy view_dtype_from_numpy
oe_numpy_dtype_name view_numpy_dtype_name
oe_value_from_pb view_value_from_pb
oe_values_add view_values_add
oe_values_free view_values_free
oe_values_pick view_values_pick
oe_values_read view_values_read
oe_values_read_buffer view_values_read_buffer
'
files=$(git ls-files 'src/*.[ch]' 'tests/*.[ch]' 'fuzz/*.[ch]' 'bench/*.[ch]' DESIGN.md README.md)
echo "$map" | while read -r old new; do
    [ -n "$old" ] || continue
    grep -lw "$old" $files 2>/dev/null | xargs -r sed -i "s/\\b$old\\b/$new/g"
done
