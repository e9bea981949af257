/* ts_load.h — TorchScript IR text (torch.jit.script(m).inlined_graph) into the FX IR.
 *
 * The result looks like an ATen-level torch.export program: parameters/buffers reached through
 * prim::GetAttr chains become placeholders p_<fqn> / b_<fqn> with a PARAMETER / BUFFER
 * signature entry (with a weights table, every weight of each submodule reached, parameters
 * then buffers in the table's order, as torch.export lifts them), user inputs follow, aten::
 * ops become torch.ops.aten.<op>.<overload> calls (the overload Python binds for the argument
 * kinds: mean.dim, add.Tensor for a number operand, split_with_sizes for a list of sizes), and
 * later uses of an in-place op's self read its result. TorchScript's arguments are kept as it
 * passes them (all of them); capture/ts_normalize.h puts them in torch.export's form. Python
 * values: sizes are aten.sym_size / aten.dim calls, arithmetic and tests operator.* / builtins.*
 * / math.* calls, a list the code appends to a builtins.list node (fxsh.list_append mutates
 * it), other lists literals; a module attribute declared in ts_load_options.attrs is its value,
 * another one the opaque "self.<fqn>". prim::If becomes fxsh.python_if and prim::Loop
 * fxsh.python_for / fxsh.python_while with branch/body subgraphs (fx/fx_control.h). Factory
 * functions (zeros, ones, empty, full, rand, *_like) take dtype / device / pin_memory as
 * keywords, as torch.export records them (the c10 ScalarType numbers TorchScript prints become
 * dtypes). forward's returned tuple is flattened into the outputs. Value meta is recorded only
 * where the loader knows it: the declared inputs (ts_load_options.inputs) and the weights; the
 * other nodes get theirs from meta inference, which callers run on the loaded program
 * (capture/ts_normalize.h: tsn_prepare_program), as `load` does.
 *
 * Ownership: ts_load_text returns a new program the caller frees with fx_program_free(), or
 * NULL after reporting at least one error to d. Weight data is copied into the program. */
#ifndef FXSH_LOAD_TS_LOAD_H
#define FXSH_LOAD_TS_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "fx/fx_ir.h"

typedef struct ts_input_decl {
    char name[64];             /* user input name as in the TorchScript header, without ".N" */
    fx_dtype dtype;
    size_t rank;
    char dims[8][24];          /* a size ("4"), or a symbol for a dynamic dimension ("s77") */
} ts_input_decl;

/* A Python attribute of the scripted module (self.heads = 4): TorchScript reads it from the
 * module object, so its value is not in the IR text. name is an FQN ("blocks.0.heads") or a
 * bare attribute name that applies to every module; value is a Python literal (4, 0.5, True,
 * None, 'tanh'). */
typedef struct ts_attr_decl {
    char name[96];
    char value[64];
} ts_attr_decl;

typedef struct ts_load_options {
    const char *weights_path;  /* .pt2 (weights table by FQN) or .onnx (initializers by name); NULL = none */
    const ts_input_decl *inputs;
    size_t n_inputs;
    const ts_attr_decl *attrs;
    size_t n_attrs;
} ts_load_options;

/* True when text starts with "graph(%self : __torch__." (leading blanks allowed). */
bool ts_sniff(const char *text, size_t len);
/* Parses "x=f32[3,4]" (dtype abbreviation or torch name, dims: sizes or symbols such as s77)
 * into out; false if malformed. */
bool ts_parse_input_decl(const char *s, ts_input_decl *out);
/* Parses "heads=4" (NAME=LITERAL) into out; false if malformed or the literal is not one of
 * int, float, True, False, None, 'str' / "str". */
bool ts_parse_attr_decl(const char *s, ts_attr_decl *out);
/* The c10 enum numbers TorchScript prints for ScalarType and MemoryFormat arguments:
 * FX_DT_UNKNOWN / NULL for a number that names none. */
fx_dtype ts_c10_scalar_type(int64_t st);
const char *ts_c10_memory_format(int64_t mf);
/* opts may be NULL. */
fx_program *ts_load_text(const char *text, size_t len, const char *file, const ts_load_options *opts,
                         diag_sink *d);

#endif
