#!/bin/sh
# rename-symbols.sh — the renames that gave each folder its own prefixes (issue 23), as a script
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
'
files=$(git ls-files 'src/*.[ch]' 'tests/*.[ch]' 'fuzz/*.[ch]' 'bench/*.[ch]' DESIGN.md README.md)
echo "$map" | while read -r old new; do
    [ -n "$old" ] || continue
    grep -lw "$old" $files 2>/dev/null | xargs -r sed -i "s/\\b$old\\b/$new/g"
done
