/* commands.c — the command table and everything driven by it: dispatch, help, completion, man. */
#include "repl/commands.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/suggest.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "repl/cmd_handlers.h"
#include "pipeline/settings.h"

/* Keep sorted by name: help lists them in this order. */
const command command_table[] = {
    {"check", 0, 1, cmd_check, COMPLETE_NOTHING, "check [--json]",
     "validate the current ONNX model",
     "Checks the current ONNX model as onnx.checker.check_model(full_check=True) does: ir_version\n"
     "and opset imports, typed inputs and outputs, external data files present, names defined\n"
     "before use, single assignment, topological order, subgraph scoping, each node against its\n"
     "operator's signature, and ONNX shape inference (If / Loop / Scan bodies included): an\n"
     "inferred element type, rank or dimension that contradicts a declared one is an error naming\n"
     "the node, the value and both types. Each problem is reported with its node; the command\n"
     "fails if there is any."},
    {"compare", 2, 17, cmd_compare, COMPLETE_STAGE_OR_FORM,
     "compare A B [--inputs FILE] [--seed N] [--shapes NAME=SIZE] [--atol A] [--rtol R] [--json]",
     "evaluate two stages or models node by node; the first value that differs",
     "Runs A and B (each a stage: onnx, optimized, or exported / decomposed translated as `run`\n"
     "translates them; or an ONNX model file, binary or text) on the same inputs (--inputs FILE, or\n"
     "random with --seed N, as `run` makes them) and compares every value the two compute under\n"
     "the same name, in A's order. ONNX values are named after the FX nodes they come from, by\n"
     "torch.onnx and by fxsh alike, so fxsh's model lines up with torch.onnx's onnx_dynamo.onnx and\n"
     "one stage with another; the exporters' numbered temporaries (val_12) are not matched, nor\n"
     "values inside Loop / Scan bodies. The first value that differs beyond the tolerance (as\n"
     "`verify` judges it: |a - b| <= atol + rtol * |b|, defaults 1e-4 and 1e-3; shapes must match)\n"
     "is shown with both values summarised (dtype, shape, min, max, mean), the largest difference\n"
     "and where, and the node's provenance: the FX node and the Python source line it came from.\n"
     "The command then fails. Without a divergence it says how many values agreed. This is the tool\n"
     "for \"the export runs but the numbers are wrong\", e.g.\n"
     "  compare optimized ../corpus/fx/mlp/onnx_dynamo.onnx --inputs ../corpus/fx/mlp/io.json"},
    {"delete", 1, 2, cmd_delete, COMPLETE_NODE, "delete NODE [%OTHER]",
     "delete a node (rewiring its users to %OTHER)",
     "Deletes NODE from the loaded FX program. A node that still has users is refused, unless\n"
     "%OTHER is given: its users are then rewired to %OTHER first. Undo with `undo`."},
    {"diff", 2, 3, cmd_diff, COMPLETE_STAGE_OR_FORM, "diff A B [--json]",
     "nodes added, removed and changed between two stages or models",
     "Compares A and B node by node, each a stage or an ONNX model file (binary or text), as\n"
     "`compare` and `verify` take them: FX nodes by name; ONNX nodes by name, with the exporter's\n"
     "node_ prefix removed so that an FX node lines up with the ONNX node made from it. Lists the\n"
     "nodes added (+), removed (-) and changed (~), then a count line, e.g.\n"
     "  diff optimized ../corpus/fx/mlp/onnx_dynamo.onnx"},
    {"dot", 0, 2, cmd_dot, COMPLETE_FILE, "dot [FILE | --svg FILE.svg]",
     "write the current graph as Graphviz DOT, or render it to SVG",
     "Prints the current graph as a Graphviz digraph, or writes it to FILE: an ONNX model's nodes\n"
     "with their inputs, outputs and initializers, or an FX program's nodes (name, opcode, target,\n"
     "dtype and shape) as torch.fx's FxGraphDrawer draws them. Each If / Loop / Scan body (or cond\n"
     "branch, loop body of an FX program) is a cluster holding its own nodes only, with a dashed\n"
     "edge from it into the node that runs it. --svg FILE.svg renders it with Graphviz's dot (dot\n"
     "-Tsvg) when Graphviz is installed (FXSH_DOT names another dot binary), e.g. to embed the graph\n"
     "in an export report."},
    {"exit", 0, 0, cmd_quit, COMPLETE_NOTHING, "exit", "leave fxsh (same as quit)", NULL},
    {"explain", 1, 2, cmd_explain, COMPLETE_NOTHING, "explain DIM [--json]",
     "follow one dynamic dimension through the guards of the last capture",
     "The guards of the last export on DIM (a dynamic_shapes name, batch, or an input's axis,\n"
     "x:0), in the order torch.export's tracing decided them, as `guards` shows them, and the\n"
     "range the dimension ended with: kept, narrowed to VR[lo, hi], pinned to a constant, or the\n"
     "guard that failed export."},
    {"export", 0, -1, cmd_export, COMPLETE_NOTHING,
     "export [--legacy script|trace] [--inputs FILE] [--seed N] [--report FILE.md|.html] [--json] [NAME=VALUE...]",
     "run every stage: export, decompose, translate, optimize",
     "Replays torch.onnx.export(model, args, dynamo=True) on the loaded program, printing the\n"
     "[torch.onnx] progress lines torch prints: export (torch-level graphs only), decompose (the\n"
     "ONNX exporter's table), translate (op tables in share/fxsh/translate) and optimize. Each stage\n"
     "is kept (`stages`, `show STAGE`); a failing stage says which one, which node and why, and\n"
     "leaves the earlier stages inspectable. NAME=VALUE overrides a `set` default for this run,\n"
     "e.g. `export opset_version=18 optimize=False`. Python control flow fails as torch.export\n"
     "fails (an if or while on a tensor, a for over a dimension marked dynamic with\n"
     "dynamic_shapes) and names the rewrite that fixes it; a for over a known range is unrolled.\n"
     "An if on a size that dynamic_shapes marks dynamic (if x.shape[0] > 2 with x:0=batch) is\n"
     "a guard, taken as torch.export takes it: decided for the example input, it narrows the\n"
     "dimension's range (batch >= 3). A named Dim whose declared range it narrows or pins fails\n"
     "with torch's \"Constraints violated\" and its suggested fix, given as the dynamic_shapes\n"
     "to write (x:0=Dim('batch', min=3)); AUTO and DYNAMIC are narrowed (AUTO may be pinned to the\n"
     "example, DYNAMIC not), with a warning that the ONNX model's inputs do not keep the range.\n"
     "The ranges are the program's range constraints (`show exported program`). dynamic_shapes\n"
     "items are INPUT:AXIS=SPEC, SPEC a name, Dim('name', min=N, max=N), AUTO, DYNAMIC or STATIC,\n"
     "or a dimension derived from a named one (y:0=2*dx, x:0=dx+1: torch's 2 * dx, dx + 1).\n"
     "`verify exported optimized --shapes x:0=1,2,7` checks other sizes; rewrite NODE cond keeps\n"
     "both branches.\n"
     "--legacy script and --legacy trace print what torch.onnx.export(..., dynamo=False) prints:\n"
     "its DeprecationWarning, and none of the [torch.onnx] progress lines of the dynamo exporter.\n"
     "--legacy script replays the TorchScript-based exporter given torch.jit.script(model): every\n"
     "Python `if` becomes an ONNX If (through torch.cond, innermost first) and every loop an\n"
     "ONNX Loop(trip count, first test, carried...) as prim::Loop was translated (a for over a\n"
     "literal range is unrolled, as scripting did). --legacy trace replays what tracing\n"
     "(torch.onnx.export(model, args, dynamo=False) of an nn.Module) does: it runs the model on the\n"
     "example inputs, so every Python `if` on a tensor is decided by the tensor's value there and\n"
     "only the branch taken is kept, with torch's TracerWarning at each (an if on x.shape[k] warns\n"
     "too, as tracing records sizes as tensors; the source line follows when the model's file is\n"
     "readable, as Python prints it) and a note saying which branch. The\n"
     "conditions are evaluated with the reference evaluator on --inputs FILE (as `run --inputs`\n"
     "reads it; the example inputs, e.g. the corpus's io.json), or on random inputs seeded by\n"
     "--seed N. `verify` with an input that takes the other branch shows what the trace lost.\n"
     "\n"
     "Like torch.export, export needs example inputs: a program whose inputs have no dtype and\n"
     "shape (TorchScript, torch-level text loaded without --input) is refused with the --input\n"
     "each one needs (the size its first layer takes when the weights say it; when nothing says\n"
     "it, the hint says so and points at --weights and the model's io.json), and an example shape\n"
     "a node rejects (a Linear given the wrong number of features) fails the export at that node,\n"
     "before any Python control flow after it, as torch reports it. `set inputs` (or inputs=...\n"
     "here) declares them too, replacing those given at load (a program torch.export already\n"
     "traced, a .pt2, keeps its own: another is refused). Like torch.onnx.export, which\n"
     "exports a module with its weights, export refuses weights without values (load them with\n"
     "--weights, or export_params=False makes them model inputs) or without dtype and shape.\n"
     "dynamic_shapes applies to programs fxsh captures (TorchScript, torch-level text); on a\n"
     "program torch.export captured static (a .pt2) it is refused: re-export it with\n"
     "torch.export(..., dynamic_shapes=...). Ctrl-C cancels the run and keeps the stages of the\n"
     "run before.\n"
     "\n"
     "--report FILE.md writes what torch.onnx.export(..., report=True) writes, as Markdown: the\n"
     "program and the settings, each stage with the pass that made it, its node count and time,\n"
     "the op histogram of the model, every decision the run made (branches specialized, checks\n"
     "folded, loops unrolled, weights without values) and its warnings, and, when it fails, the error with its\n"
     "hint and torch's failure text. The report is written when the export fails too.\n"
     "--report FILE.html writes the same as one self-contained HTML page, with the graph of the\n"
     "last stage the run made as inline SVG when Graphviz's dot can be run (FXSH_DOT; otherwise\n"
     "the page says so and what to install), each stage's node count in all and in its main\n"
     "graph, and on failure the failing node's neighbourhood: the nodes it reads and that read it.\n"
     "--json prints the run as one JSON document instead of the progress lines: the stages with\n"
     "their node counts and times, the op histogram, the warnings and the errors (fxsh(1), JSON\n"
     "OUTPUT)."},
    {"find", 1, 3, cmd_find, COMPLETE_NODE, "find TEXT [--case-sensitive] [--json]",
     "list nodes whose name or target contains TEXT",
     "Searches the current graph (and its subgraphs) for nodes whose name or target (ONNX: name,\n"
     "op type or an output) contains TEXT, one line each, without regard to case (`find softmax`\n"
     "lists the Softmax nodes); --case-sensitive matches case exactly. Fails if nothing matches."},
    {"guards", 0, 1, cmd_guards, COMPLETE_NOTHING, "guards [--json]",
     "the guards the last capture decided on dynamic sizes",
     "Every Python `if` on a dynamic size that the last export decided, as torch.export's\n"
     "ShapeEnv decides it: the node, the condition, its truth for the example, what it did to\n"
     "the dimension's range (kept it, narrowed it to VR[lo, hi], pinned it to a constant, or\n"
     "failed: a named Dim would have been narrowed, torch's \"Constraints violated\"), the Python\n"
     "source line and the line of the loaded program. `explain DIM` follows one dimension."},
    {"help", 0, 1, cmd_help, COMPLETE_COMMAND, "help [COMMAND]",
     "list commands, or describe one",
     "Without an argument lists every command with its usage. `help CMD` describes CMD."},
    {"history", 0, 1, cmd_history, COMPLETE_NOTHING, "history [--json]",
     "list the edits applied (and undone) so far",
     "Lists every patch applied to the FX stages, oldest first, with the stage it changed;\n"
     "undone edits that `redo` can bring back are marked."},
    {"insert", 4, 5, cmd_insert, COMPLETE_NODE, "insert AFTER NAME TARGET [ARGS]",
     "insert a call_function node",
     "Inserts NAME = TARGET(ARGS) after node AFTER, e.g.\n"
     "  insert relu clone torch.ops.aten.clone.default (%relu,)\n"
     "ARGS is FX argument text; rewire users to the new node with `rewire`."},
    {"lint", 0, 1, cmd_lint, COMPLETE_NOTHING, "lint [--json]",
     "name the nodes tracing would get wrong, each with its fix",
     "Lists the nodes of the current FX program (TorchScript IR, FX text) that torch.jit.trace, and\n"
     "the exporter's tracer, would get wrong, since they run the model once on the example and\n"
     "record only its tensor ops: a Python `if` on a tensor (one branch recorded), a `while` or a\n"
     "`for` over a size (unrolled for the example), .item() / .tolist() / .numpy() (the example's\n"
     "value becomes a constant), an in-place update of an input, a shape used as a Python int.\n"
     "Each is a warning at the node's source line with the rewrite or change that fixes it (the\n"
     "`rewrite` that works, as export's hints give it). torch's own library code is not listed.\n"
     "Example (examples/lint.fxsh):\n"
     "  lint"},
    {"load", 1, -1, cmd_load, COMPLETE_FILE,
     "load FILE|- [--weights W] [--input NAME=DTYPE[DIMS]]... [--attr NAME=VALUE]...",
     "load an FX graph, torch.export program or ONNX model",
     "Loads FILE, recognising its format by content: FX graph text (print(gm.graph)), readable\n"
     "code (gm.print_readable()), GraphModule text (print(gm)), a printed ExportedProgram\n"
     "(print(ep)), a torch.export .pt2 archive or\n"
     "its JSON, a binary .onnx model or ONNX text; a file of another kind is named by what it\n"
     "looks like (a PNG image, a torch.save pickle, Python source). `load -` reads the text from\n"
     "the following input lines until the graph is complete (paste it at the prompt, or pipe it;\n"
     "`quit` before any graph text leaves). A file that\n"
     "fails to load leaves the current stages untouched. --weights W takes the parameter values\n"
     "of a program that has none (FX text, TorchScript) from W: a .pt2, an .onnx (initializers\n"
     "by state-dict name) or a .safetensors file; a program JSON (or a .pt2 saved without\n"
     "weights) gives their dtypes and shapes only. Graph text of an exported program binds each\n"
     "weight to the placeholder torch.export names after it (fc1.weight: p_fc1_weight; b_ for a\n"
     "buffer, c_ for a constant), which takes its dtype and shape. --input x=f32[3,4] (or x=f32[3, 4], as Python\n"
     "prints a shape) declares an example input\n"
     "of a program that records no shapes (TorchScript IR, torch-level FX text; a symbol for a\n"
     "dimension export keeps dynamic: x=f32[s77,3]): export then infers every value's dtype and\n"
     "shape from it, as torch.export's fake tensors do. --attr heads=4 gives a Python attribute\n"
     "the scripted code reads from its module (self.heads), whose value TorchScript's text does\n"
     "not hold (a bare name sets it in every module, an FQN like blocks.0.heads in one). A\n"
     "TorchScript program's calls take the argument form torch.export records.\n"
     "\n"
     "The load fails, and the stages stay as they were, when --input names an input the program\n"
     "does not have, or when a tensor of the --weights file names no parameter or buffer of the\n"
     "program (another model's weights), or a p_/b_/c_ placeholder has no weight or a weight\n"
     "of another shape; an .onnx file's other initializers (the exporter's\n"
     "constants) are ignored as long as some name parameters. Each error lists the valid names,\n"
     "both sides with the nearest as a did-you-mean."},
    {"node", 1, 2, cmd_node, COMPLETE_NODE, "node NAME [--json]",
     "show one node: args, kwargs, users, meta, source",
     "Shows everything known about node NAME (with or without the leading %; subgraph nodes as\n"
     "true_graph_0.mul): opcode, target, arguments, users, dtype and shape, and the source\n"
     "location it came from."},
    {"nodes", 0, 1, cmd_nodes, COMPLETE_NOTHING, "nodes [--json]",
     "list the nodes of the current graph",
     "One line per node: name, opcode, target and number of users."},
    {"ops", 0, 2, cmd_ops, COMPLETE_NOTHING, "ops [show TARGET | load FILE] | ops [--json]",
     "list, show or add ATen -> ONNX lowering rules",
     "Without arguments lists every ATen overload the translator covers, and the Python functions\n"
     "on symbolic sizes (operator.mul, torch.sym_float), with the opsets their rules start at.\n"
     "`ops show TARGET` prints the rule for one (e.g. ops show aten.linear.default). `ops load FILE`\n"
     "adds the rules of a YAML file in the format of share/fxsh/translate/*.yaml (later rules replace\n"
     "earlier ones)."},
    {"params", 0, 1, cmd_params, COMPLETE_NOTHING, "params [--json]",
     "list parameters, buffers and constants, or an ONNX model's initializers",
     "Lists the parameters, buffers and constant tensors of a torch.export program: name, kind,\n"
     "dtype, shape and bytes, with the total. On an ONNX stage lists its initializers, one per\n"
     "line (name, dtype, shape, bytes), as polygraphy inspect does."},
    {"quit", 0, 0, cmd_quit, COMPLETE_NOTHING, "quit", "leave fxsh", NULL},
    {"reduce", 0, 12, cmd_reduce, COMPLETE_STAGE_OR_FORM,
     "reduce [MODEL [REFERENCE]] [--inputs FILE] [--seed N] [--atol A] [--rtol R] [--save DIR] [--json]",
     "shrink a failing export, or a model that disagrees, to the fewest nodes that still fail",
     "Finds the smallest part of a program or model that still fails the same way, prints it as torch\n"
     "prints a graph (`show graph`) and as ONNX text, and with --save DIR writes it as a standalone\n"
     "reproducer, as Polygraphy's `debug reduce` does for ONNX models but on every stage.\n"
     "\n"
     "`reduce` alone replays the export of the loaded program. When a stage fails (decompose,\n"
     "translate, optimize), the program that stage reads (the exported or the decomposed one) is\n"
     "reduced around the node the error names (a node of a cond branch or loop body: around the\n"
     "call that runs it): a candidate fails the same way when its export fails at the same stage\n"
     "with the same first error.\n"
     "\n"
     "`reduce MODEL REFERENCE` (each a stage or an ONNX model file, as `compare` takes them) runs\n"
     "both on the same inputs (--inputs FILE, or random with --seed N), finds the first value of\n"
     "MODEL that differs from the REFERENCE's beyond the tolerance (as `compare` does; atol 1e-4,\n"
     "rtol 1e-3), and reduces MODEL's nodes around it: a candidate fails when it still computes that\n"
     "value wrong from the REFERENCE's values of what it reads, e.g.\n"
     "  reduce optimized exported\n"
     "\n"
     "`reduce MODEL` (or `reduce` with only an ONNX model loaded) reduces a model that `check`\n"
     "rejects around the node its first problem names: a candidate fails when the checker reports\n"
     "the same problem at that node (the values a kept node reads from the others become graph\n"
     "inputs of their declared types).\n"
     "\n"
     "The search: the candidate is the failing node and some of its ancestors; every value a kept\n"
     "node reads from a node left out becomes an input holding its recorded dtype and shape (a\n"
     "tuple or a weight's get_attr is never cut: its maker is kept). It grows first (the node\n"
     "alone, then its ancestors up to depth 1, 2, 4, ... until a candidate fails), then shrinks by\n"
     "delta debugging: it drops chunks of the kept nodes, splitting them finer until no single node\n"
     "can go (what no longer leads to the failing node goes with them). The steps are deterministic; each test is one export (or one evaluation) of a small\n"
     "program.\n"
     "\n"
     "--save DIR writes the reproducer into DIR (made whole, or not at all, when it does not exist):\n"
     "program.pt2 (torch.export.load reads it: ATen calls, higher-order ops with their subgraphs,\n"
     "dynamic dimensions; Python arithmetic on sizes is refused, naming the node, and a reproducer\n"
     "of a model is then saved without it, with a note), model.onnx (the reduced model; for an export, what\n"
     "the stages before the failing one make, when there is one), reference.onnx (the reference's\n"
     "nodes for the same value), inputs.npz (the inputs: the program's own from --inputs or random,\n"
     "each cut value computed by the evaluator from them), expected.npz (the reference's value),\n"
     "reproduce.fxsh (`fxsh -f reproduce.fxsh` in DIR fails the same way) and README.md."},
    {"redo", 0, 0, cmd_redo, COMPLETE_NOTHING, "redo", "re-apply the last undone edit", NULL},
    {"rename", 2, 2, cmd_rename, COMPLETE_NODE, "rename NODE NEW",
     "rename a node", "Renames NODE to NEW (a valid Python identifier not used in its graph)."},
    {"replace", 2, 2, cmd_replace, COMPLETE_NODE, "replace NODE TARGET",
     "swap the target of a call node",
     "Makes NODE call TARGET instead, keeping its arguments, e.g.\n"
     "  replace relu torch.ops.aten.gelu.default\n"
     "An ATen target is checked against torch's schemas (share/fxsh/aten/schemas.txt) and written\n"
     "as torch.fx prints it: aten.tanh or aten::tanh is torch.ops.aten.tanh.default; a name or\n"
     "overload torch does not have is an error with the nearest. `insert` checks its TARGET so."},
    {"rewire", 3, 3, cmd_rewire, COMPLETE_NODE, "rewire NODE ARG %OTHER",
     "make an argument of NODE refer to another node",
     "Sets argument ARG of NODE (a position like 0, or a keyword name) to node %OTHER, which must\n"
     "be defined before NODE."},
    {"rewrite", 2, 3, cmd_rewrite, COMPLETE_NODE, "rewrite NODE cond|scan|while_loop [--clone]",
     "turn Python control flow into torch.cond, scan or while_loop",
     "Rewrites Python control flow of the loaded program (the node `export` names when it fails)\n"
     "into the graph torch.export produces for the code written with torch's higher-order op; then\n"
     "`export` again, and `undo` takes the rewrite back. A rewrite that cannot apply says why (with\n"
     "torch's reason where torch has one). A subgraph that returns one of its inputs unchanged, or\n"
     "one value twice, is refused as torch refuses it; --clone applies torch's fix instead\n"
     "(`return x.clone()`). A refused rewrite's hint names another rewrite only when that one\n"
     "works; a `for` over a constant count (range(3)) needs none: export unrolls it, as\n"
     "torch.export does, and the unrolled model is right for every input.\n"
     "\n"
     "cond: a Python `if` on a tensor (fxsh.python_if) becomes torch.cond. The predicate comes from\n"
     "Python truthiness (ne(x, 0) for a non-bool tensor), the branches become true_graph_N and\n"
     "false_graph_N taking the values they use as operands, the results are read with getitem.\n"
     "Rewrite nested ifs from the inside out (rewrite true_graph_0.if_1 cond first). Example:\n"
     "  rewrite if_1 cond --clone\n"
     "\n"
     "scan: `for i in range(x.shape[0])` (fxsh.python_for) over rows becomes\n"
     "torch.ops.higher_order.scan. The loop's state is the carry; each tensor read as x[i] (or\n"
     "x[i:i+1]) is scanned; each tensor written as out[i] = v (or out[i, :] = v) is a stacked\n"
     "output that replaces out after the loop; other tensors are additional inputs. The combine\n"
     "function scan_combine_graph_N returns [new carries..., rows written...]. A loop without\n"
     "state carries a tensor it reads, unchanged (scan needs a carry). Refused when the trip count\n"
     "is not the first dimension of those tensors, when the body uses i otherwise, or reads a row\n"
     "of a tensor it writes. Example (PyTorch's cdist loop, examples/scan.fxsh):\n"
     "  rewrite for_1 scan\n"
     "\n"
     "while_loop: a Python `while` whose test is a tensor (fxsh.python_while) becomes\n"
     "torch.ops.higher_order.while_loop: the test becomes while_loop_cond_graph_N, the body\n"
     "while_loop_body_graph_N (the test TorchScript repeats at the end of the body must be the\n"
     "same). A `for` over a known range becomes a while_loop carrying a counter; a `for` with a\n"
     "`break` on a tensor carries a flag too. Example (examples/while_loop.fxsh):\n"
     "  rewrite while_1 while_loop"},
    {"run", 0, 16, cmd_run, COMPLETE_STAGE_OR_FORM,
     "run [STAGE|MODEL] [--inputs FILE] [--seed N] [--shapes NAME=SIZE] [--save FILE.npz] [--json]",
     "evaluate a stage and print its outputs",
     "Evaluates the current stage (or STAGE: onnx, optimized, a loaded model; exported and\n"
     "decomposed are first translated to ONNX with the `set` defaults, as `export` would, and that\n"
     "model runs; or MODEL, an ONNX model file) with fxsh's reference evaluator, which follows\n"
     "onnx.reference's numerics, and prints each output as NAME: DTYPE[DIMS] and numpy's repr\n"
     "(array([...], dtype=float32); arrays over 1000 elements are summarized as numpy does).\n"
     "--inputs FILE gives the inputs: an .npz (arrays named after the inputs, or input_0, input_1\n"
     "...), an .npy or an ONNX TensorProto .pb (one input), or JSON ({\"x\": [[1, 2], [3, 4]]}, or\n"
     "the corpus's io.json). Without it the inputs are random and deterministic, as Polygraphy\n"
     "makes them: floats uniform in [0, 1), integers in [0, 4), bools 50/50, a dynamic dimension\n"
     "2 (--shapes NAME=SIZE gives it another: NAME a symbol the inputs declare, batch or s77, or\n"
     "INPUT:AXIS; repeat it for several), seeded by --seed N (default 0).\n"
     "--save FILE.npz writes the outputs, uncompressed, named after the graph outputs. An op the\n"
     "evaluator does not implement fails with the node's name."},
    {"save", 1, 4, cmd_save, COMPLETE_FILE, "save FILE [--text] [--external-data] [--force]",
     "write the current ONNX model",
     "Writes the current ONNX model to FILE: binary protobuf by default, ONNX text when FILE\n"
     "ends in .txt or with --text. --external-data stores tensors of 1 KiB and more in\n"
     "FILE.data beside it; a model larger than a protobuf can hold (2 GB) is saved that way\n"
     "without asking, as torch.onnx does, and fxsh says so. Weights are never copied: they go\n"
     "from the file they were loaded from (a .pt2, an .onnx or its external data, mapped) to\n"
     "FILE. A model that `check` rejects is not written (the problems are listed); --force\n"
     "writes it anyway.\n"
     "\n"
     "FILE is written to a temporary name beside it, synced and renamed, so a failed or\n"
     "interrupted save leaves the old file as it was and no temporary behind; the rename decides\n"
     "the outcome: a Ctrl-C before it is \"interrupted\" (no file), one after it leaves the save\n"
     "done (\"saved\", never both). An existing file keeps its permissions. A symbolic link is followed (its target is written, the link stays).\n"
     "A character device is written directly (save /dev/stdout, /dev/null); a directory, FIFO\n"
     "or socket is refused. `dot FILE` and `save-patch FILE` write files the same way."},
    {"save-patch", 1, 1, cmd_save_patch, COMPLETE_FILE, "save-patch FILE",
     "write the edits as a script that replays them",
     "Writes the `load` that made the program (with its --weights, --input and --attr) and every\n"
     "applied edit after it, in order, as fxsh commands: `fxsh -f FILE` (or `source FILE`) replays\n"
     "them exactly."},
    {"set", 0, 2, cmd_set, COMPLETE_NOTHING, "set [NAME [VALUE]] | set NODE ARG=VALUE | set [--json]",
     "show or change the export settings, or set a node argument",
     "Without arguments lists the settings with their values: opset_version, input_names,\n"
     "output_names, dynamic_shapes, dynamic_axes, inputs, export_params,\n"
     "keep_initializers_as_inputs, do_constant_folding, optimize, external_data, verbose — with\n"
     "the meaning torch.onnx.export gives them. `set NAME` shows one; `set NAME VALUE` (or\n"
     "NAME=VALUE) changes one, and export, run, verify and step all use it; a\n"
     "value out of range is an error naming the valid ones (opset_version 18..23, a lower one\n"
     "being raised to 18 with torch's warning; True/False; dynamic_shapes as x:0=batch,\n"
     "x:0=Dim('batch', min=2, max=64), x:1=AUTO, DYNAMIC or STATIC, y:0=2*batch).\n"
     "`set NODE ARG=VALUE` instead edits the loaded FX program: argument ARG (a position or a\n"
     "keyword) of NODE becomes VALUE (FX text: 2.0, True, None, [0, 1], %other, torch.float32)."},
    {"show", 0, 3, cmd_show, COMPLETE_STAGE_OR_FORM, "show [STAGE] [FORM] [--values|--no-values]",
     "print a stage the way torch / onnx print it",
     "Prints the current stage, or STAGE (fx, exported, decomposed, onnx, optimized). Without FORM\n"
     "an FX program prints as graph text (print(gm.graph)) and an ONNX model as ONNX text\n"
     "(onnx.printer.to_text), whatever file they came from. FORM chooses another: graph, code\n"
     "(gm.print_readable()), module (print(gm)), tabular (graph.print_tabular()), program\n"
     "(print(ep)), text (ONNX text), or loaded: the form the loaded file was written in, byte for\n"
     "byte (load F; show loaded prints F back). Stage names are never forms: `show fx` is the fx\n"
     "stage, empty after loading a .pt2 (which is the exported stage).\n"
     "\n"
     "On a terminal an ONNX model's tensors of more than 16 elements print as {... N values};\n"
     "--values prints every value (what to_text prints; the default when the output is piped or\n"
     "redirected), --no-values only types and shapes, as polygraphy inspect shows them."},
    {"signature", 0, 1, cmd_signature, COMPLETE_NOTHING, "signature [--json]",
     "show the graph signature of a torch.export program",
     "Lists the inputs (user inputs, parameters, buffers, constants) and outputs (user outputs,\n"
     "mutations) of a torch.export program by kind."},
    {"source", 1, 1, cmd_source, COMPLETE_FILE, "source FILE",
     "run the commands in FILE",
     "Reads FILE as a script of fxsh commands; errors are reported as FILE:LINE:. Ctrl-C stops\n"
     "the script."},
    {"stages", 0, 1, cmd_stages, COMPLETE_NOTHING, "stages [--json]",
     "list the pipeline stages and what each holds",
     "Lists fx, exported, decomposed, onnx and optimized with what each currently holds; the\n"
     "current stage is marked with *."},
    {"stats", 0, 1, cmd_stats, COMPLETE_NOTHING, "stats [--json]",
     "node counts and op histogram",
     "Prints the node count, the histogram of opcodes and targets (or ONNX op types), and the\n"
     "subgraphs with their sizes."},
    {"step", 0, 0, cmd_step, COMPLETE_NOTHING, "step",
     "run only the next stage of the pipeline",
     "Runs the stage after the last one that holds something (export, decompose, translate or\n"
     "optimize) with the `set` defaults, printing its progress line."},
    {"summary", 0, 1, cmd_summary, COMPLETE_NOTHING, "summary [--json]",
     "overview of the current ONNX model",
     "ir_version, opsets, inputs and outputs with types, node count, op histogram, initializer\n"
     "count and bytes, functions and subgraphs."},
    {"undo", 0, 0, cmd_undo, COMPLETE_NOTHING, "undo", "take back the last edit",
     "Restores the FX stage as it was before the last edit (later stages are dropped: re-run\n"
     "`export` or `step`)."},
    {"verify", 0, 21, cmd_verify, COMPLETE_STAGE_OR_FORM,
     "verify [STAGE] [B | --expected FILE] [--inputs F] [--shapes NAME=SIZES | --decode N [--prefill L] [--save F]] "
     "[--atol A] [--rtol R] [--json]",
     "compare a stage's outputs with expected values or another stage's",
     "Runs the stage as `run` does and compares each output with the expected one: one line per\n"
     "output, PASS or FAIL with the largest absolute and relative difference; the command fails if\n"
     "any output differs. An element passes when |actual - expected| <= atol + rtol * |expected|\n"
     "(NaN equals NaN; defaults atol 1e-4, rtol 1e-3, the tolerances the corpus's ONNX Runtime check\n"
     "used); shapes must match. --expected FILE holds the expected outputs (named after the graph\n"
     "outputs, or output_0, output_1 ... as in the corpus's io.npz, or the corpus's io.json); its\n"
     "inputs, when it has them, are the inputs unless --inputs is given. `verify STAGE B` instead\n"
     "runs both on the same inputs (given, or random with --seed N) and compares the first with the\n"
     "second; B is another stage or an ONNX model file (binary or text), e.g.\n"
     "  verify exported optimized\n"
     "  verify optimized onnx_legacy_script.onnx --inputs other.json\n"
     "--shapes NAME=SIZES sweeps a dynamic dimension (NAME a symbol of A's inputs, batch or s77, or\n"
     "INPUT:AXIS; SIZES comma-separated, 0 and 1 allowed; repeat it for several dimensions, every\n"
     "combination runs, at most 256): both stages on random inputs of each size, one block per size,\n"
     "and the first size where they part named. A model whose inputs say dynamic but whose graph\n"
     "keeps the example's sizes fails at the others:\n"
     "  verify exported optimized --shapes batch=0,1,2,7,64\n"
     "--decode N checks a decoder step with a key/value cache over a prefill (L tokens, default 4,\n"
     "from an empty cache, or the --inputs file's tokens and past) and N decoding steps of one token:\n"
     "each model feeds its own present keys/values back as its past, both get the same tokens (the\n"
     "argmax of B's logits at the last position), and every output of every step is compared, the\n"
     "first step where they part named; --save F keeps that step's inputs for `compare --inputs F`.\n"
     "A cache that is written wrong passes the prefill and fails at step 1. The caches are the inputs\n"
     "named past* / *cache*, fed by the outputs named present* or else the last outputs in order;\n"
     "the tokens the integer input named *ids*; attention_mask, position_ids and cache_position are\n"
     "made from the lengths. An exported program's range stops the step that leaves it:\n"
     "  verify optimized exported --decode 8\n"
     "`compare A B` finds the first node where two models part."},
    {"weights", 1, 2, cmd_weights, COMPLETE_NOTHING, "weights NAME [--json]",
     "summarise one parameter's values",
     "Shows shape, dtype, min, max, mean and the first elements of the parameter, buffer or\n"
     "initializer NAME (its state-dict name, e.g. fc1.weight)."},
    {NULL, 0, 0, NULL, COMPLETE_NOTHING, NULL, NULL, NULL},
};

const command *command_find(const char *name, int *ambiguous)
{
    const command *hit = NULL;
    int hits = 0;
    size_t n = strlen(name);
    *ambiguous = 0;
    if (!n) return NULL;
    for (const command *c = command_table; c->name; c++) {
        if (strcmp(c->name, name) == 0) return c;
        if (strncmp(c->name, name, n) == 0) {
            hit = c;
            hits++;
        }
    }
    if (hits > 1) *ambiguous = 1;
    return hits == 1 ? hit : NULL;
}

/* Reports why `name` names no command: the candidates of an ambiguous prefix, or the command
 * a typo is nearest to. `what` prefixes the message ("help: " or ""). */
static void report_no_command(session *s, const char *what, const char *name, int ambiguous)
{
    diagnostic *dg;
    if (ambiguous) {
        strbuf list;
        sb_init(&list);
        for (const command *c = command_table; c->name; c++)
            if (!strncmp(c->name, name, strlen(name))) sb_printf(&list, "%s%s", list.len ? ", " : "", c->name);
        dg = diag_error(&s->diag, (diag_loc){0}, "%sambiguous command '%s': %s", what, name, list.s);
        diag_set_hint(dg, "type more of the name; `help` lists the commands");
        sb_free(&list);
        return;
    }
    const char *names[64];
    size_t n = 0;
    for (const command *c = command_table; c->name && n < 64; c++) names[n++] = c->name;
    const char *near = suggest_closest(name, names, n);
    if (near) dg = diag_error(&s->diag, (diag_loc){0}, "%sunknown command '%s'; did you mean '%s'?", what, name, near);
    else dg = diag_error(&s->diag, (diag_loc){0}, "%sunknown command '%s'", what, name);
    diag_set_hint(dg, "type `help` for the list of commands");
}

const command *command_lookup(session *s, const char *name, const char *what)
{
    int ambiguous;
    const command *c = command_find(name, &ambiguous);
    if (!c) report_no_command(s, what, name, ambiguous);
    return c;
}

/* Whether the command's usage offers --json (the table is where a command says so), and this
 * command line asks for it. */
static bool wants_json(const command *c, int argc, char **argv)
{
    if (!strstr(c->usage, "[--json]")) return false;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--json")) return true;
    return false;
}

int command_dispatch(session *s, int argc, char **argv)
{
    const command *c = command_lookup(s, argv[0], "");
    if (!c) return 1;
    /* A --json command that fails before writing its document still writes one: a script reading
     * JSON Lines gets a line per command, the error in it ({"ok": false, "errors": [...]}), as
     * well as the diagnostics on stderr and the status. */
    s->json = wants_json(c, argc, argv);
    s->json_written = false;
    s->committed = false;
    size_t mark = s->diag.len;
    int nargs = argc - 1, rc;
    if (nargs < c->min_args || (c->max_args >= 0 && nargs > c->max_args)) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "%s: wrong number of arguments", c->name);
        diag_set_hint(dg, "usage: %s", c->usage);
        rc = 1;
    } else {
        rc = c->run(s, argc, argv) ? 1 : 0;
    }
    if (s->json && rc && !s->json_written) {
        strbuf sb;
        sb_init(&sb);
        cmd_json_error(s, c->name, mark, &sb);
        session_write(s, sb.s, sb.len);
        sb_free(&sb);
    }
    s->json = false;
    return rc;
}

/* Prints text as paragraphs filled to `width` columns after `indent` spaces: lines of a
 * paragraph are joined, a blank line separates paragraphs, and a line that starts with two
 * spaces (an example) is kept as it is. */
static void wrap_text(strbuf *out, const char *text, int indent, int width)
{
    int avail = width - indent > 20 ? width - indent : 20;
    const char *p = text;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        if (len == 0) {                      /* paragraph break */
            sb_putc(out, '\n');
            p += eol ? 1 : 0;
            continue;
        }
        if (len >= 2 && p[0] == ' ' && p[1] == ' ') {   /* verbatim */
            sb_spaces(out, (size_t)indent);
            sb_printf(out, "%.*s\n", (int)len, p);
            p += len + (eol ? 1 : 0);
            continue;
        }
        /* a paragraph: up to a blank or verbatim line */
        strbuf para;
        sb_init(&para);
        while (*p) {
            eol = strchr(p, '\n');
            len = eol ? (size_t)(eol - p) : strlen(p);
            if (len == 0 || (len >= 2 && p[0] == ' ' && p[1] == ' ')) break;
            if (para.len) sb_putc(&para, ' ');
            sb_putn(&para, p, len);
            p += len + (eol ? 1 : 0);
        }
        const char *w = para.s;
        while (*w) {
            size_t take = strlen(w);
            if ((int)take > avail) {
                take = (size_t)avail;
                while (take > 0 && w[take] != ' ') take--;
                if (!take) {   /* a word longer than the line */
                    take = (size_t)avail;
                    while (w[take] && w[take] != ' ') take++;
                }
            }
            sb_spaces(out, (size_t)indent);
            sb_printf(out, "%.*s\n", (int)take, w);
            w += take;
            while (*w == ' ') w++;
        }
        sb_free(&para);
    }
}

void command_print_help(FILE *out, const char *name, int width)
{
    strbuf sb;
    sb_init(&sb);
    if (name) {
        int ambiguous;
        const command *c = command_find(name, &ambiguous);
        if (!c) {
            sb_free(&sb);
            return;
        }
        sb_printf(&sb, "usage: %s\n\n", c->usage);
        wrap_text(&sb, c->summary, 0, width);
        if (c->help) {
            sb_putc(&sb, '\n');
            wrap_text(&sb, c->help, 0, width);
        }
    } else {
        /* usage in a column of its own; a longer usage takes its own line, its summary the next */
        enum { COL = 26 };
        sb_puts(&sb, "Commands (any unambiguous prefix works; `help CMD` for details):\n");
        strbuf sum;
        sb_init(&sum);
        for (const command *c = command_table; c->name; c++) {
            if ((int)strlen(c->usage) <= COL) sb_printf(&sb, "  %-*s  ", COL, c->usage);
            else sb_printf(&sb, "  %s\n%*s", c->usage, COL + 4, "");
            sb_reset(&sum);
            wrap_text(&sum, c->summary, COL + 4, width);
            sb_puts(&sb, sum.s + COL + 4);   /* its first line continues the usage column */
        }
        sb_free(&sum);
    }
    fwrite(sb.s, 1, sb.len, out);
    sb_free(&sb);
}

static void roff_escape(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\') fputs("\\e", out);
        else if (*s == '-') fputs("\\-", out);
        else if (*s == '\n') fputs("\n", out);
        else fputc(*s, out);
    }
}

void command_print_man(FILE *out)
{
    for (const command *c = command_table; c->name; c++) {
        fputs(".TP\n.B ", out);
        roff_escape(out, c->usage);
        fputc('\n', out);
        roff_escape(out, c->help ? c->help : c->summary);
        fputc('\n', out);
    }
}

/*==== completion ====*/

typedef VEC(char *) strvec;

static void add_if_prefix(strvec *v, const char *cand, const char *word)
{
    if (strncmp(cand, word, strlen(word)) == 0) vec_push(v, xstrdup(cand));
}

static void complete_files(strvec *v, const char *word)
{
    const char *slash = strrchr(word, '/');
    char *dir = slash ? xstrndup(word, (size_t)(slash - word) + 1) : xstrdup("");
    const char *base = slash ? slash + 1 : word;
    DIR *d = opendir(dir[0] ? dir : ".");
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.' && base[0] != '.') continue;
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            if (strncmp(e->d_name, base, strlen(base)) != 0) continue;
            strbuf sb;
            sb_init(&sb);
            sb_printf(&sb, "%s%s", dir, e->d_name);
            if (e->d_type == DT_DIR) sb_putc(&sb, '/');
            vec_push(v, sb_detach(&sb));
        }
        closedir(d);
    }
    free(dir);
}

struct node_ctx {
    strvec *v;
    const char *word;
};

static void node_cb(const char *name, void *ctx)
{
    struct node_ctx *nc = ctx;
    add_if_prefix(nc->v, name, nc->word);
}

static void add_words(strvec *v, const char *const *words, const char *word)
{
    for (size_t i = 0; words && words[i]; i++) add_if_prefix(v, words[i], word);
}

static const char *const stage_words[] = {"fx", "exported", "decomposed", "onnx", "optimized", NULL};
static const char *const form_words[] = {"graph", "code", "module", "tabular", "program", "text", "loaded", NULL};

/* Setting names, with "=" when they are typed as NAME=VALUE (export). */
static void add_settings(strvec *v, const char *word, bool with_eq)
{
    for (size_t i = 0; settings_name(i); i++) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s%s", settings_name(i), with_eq ? "=" : "");
        add_if_prefix(v, buf, word);
    }
}

static void add_nodes(session *s, strvec *v, const char *word)
{
    struct node_ctx nc = {v, word[0] == '%' ? word + 1 : word};
    size_t before = v->len;
    session_each_node_name(s, node_cb, &nc);
    if (word[0] == '%')   /* keep the % the user typed */
        for (size_t i = before; i < v->len; i++) {
            char *w = xmalloc(strlen(v->items[i]) + 2);
            w[0] = '%';
            strcpy(w + 1, v->items[i]);
            free(v->items[i]);
            v->items[i] = w;
        }
}

/* The words of line before `start`: the command and the arguments already typed. */
typedef struct comp_ctx {
    char words[8][128];
    int n;                 /* words before the one being completed (words[0] is the command) */
    char eq_name[64];      /* NAME when the word being completed follows "NAME=" */
} comp_ctx;

static void split_before(const char *line, int start, comp_ctx *c)
{
    memset(c, 0, sizeof *c);
    int i = 0;
    while (i < start) {
        while (i < start && (line[i] == ' ' || line[i] == '\t')) i++;
        int b = i;
        while (i < start && line[i] != ' ' && line[i] != '\t') i++;
        if (i == start && b < start && line[start - 1] != ' ' && line[start - 1] != '\t') {
            /* the word being completed started earlier: NAME=VALUE (readline splits at =) */
            const char *eq = memchr(line + b, '=', (size_t)(start - b));
            if (eq) snprintf(c->eq_name, sizeof c->eq_name, "%.*s", (int)(eq - line - b), line + b);
            break;
        }
        if (i > b && c->n < 8) snprintf(c->words[c->n++], sizeof c->words[0], "%.*s", i - b, line + b);
    }
}

/* The --options a command's usage names (the table is their one source): "--json", "--seed". */
static void add_usage_options(strvec *v, const char *usage, const char *word)
{
    for (const char *p = strstr(usage, "--"); p; p = strstr(p + 2, "--")) {
        size_t n = 2;
        while ((p[n] >= 'a' && p[n] <= 'z') || p[n] == '-') n++;
        char opt[64];
        snprintf(opt, sizeof opt, "%.*s", (int)n, p);
        bool dup = false;
        for (size_t i = 0; i < v->len && !dup; i++) dup = !strcmp(v->items[i], opt);
        if (!dup) add_if_prefix(v, opt, word);
    }
}

static void complete_args(session *s, const command *c, const comp_ctx *x, const char *word, strvec *v)
{
    int k = x->n - 1;   /* index of the argument being completed */
    const char *prev = x->n > 1 ? x->words[x->n - 1] : "";
    const char *name = c->name;
    if (x->eq_name[0]) {   /* NAME=VALUE */
        add_words(v, settings_value_words(x->eq_name), word);
        return;
    }
    if (!strcmp(name, "help")) {
        for (const command *k2 = command_table; k2->name; k2++) add_if_prefix(v, k2->name, word);
    } else if (!strcmp(name, "load")) {
        static const char *const opts[] = {"--weights", "--input", "--attr", NULL};
        if (!strcmp(prev, "--input") || !strcmp(prev, "--attr")) return;
        if (word[0] == '-' && strcmp(word, "-") != 0) add_words(v, opts, word);
        else complete_files(v, word);
    } else if (!strcmp(name, "set")) {
        if (k == 0) {
            add_settings(v, word, false);
            stage *st = session_current(s);
            if (st && st->kind == PL_FX) add_nodes(s, v, word);
        } else if (k == 1) {
            add_words(v, settings_value_words(x->words[1]), word);
        }
    } else if (!strcmp(name, "export")) {
        static const char *const legacy[] = {"script", "trace", NULL};
        if (!strcmp(prev, "--legacy")) add_words(v, legacy, word);
        else if (!strcmp(prev, "--report") || !strcmp(prev, "--inputs")) complete_files(v, word);
        else if (word[0] == '-') add_usage_options(v, c->usage, word);
        else add_settings(v, word, true);
    } else if (!strcmp(name, "rewrite")) {
        static const char *const kinds[] = {"cond", "scan", "while_loop", NULL};
        if (k == 0) add_nodes(s, v, word);
        else if (k == 1) add_words(v, kinds, word);
        else if (k == 2) add_if_prefix(v, "--clone", word);
    } else if (!strcmp(name, "show")) {
        static const char *const opts[] = {"--no-values", "--values", "--json", NULL};
        if (word[0] == '-') add_words(v, opts, word);
        else {
            if (k == 0) add_words(v, stage_words, word);
            add_words(v, form_words, word);
        }
    } else if (!strcmp(name, "ops")) {
        static const char *const subs[] = {"show", "load", NULL};
        if (k == 0) add_words(v, subs, word);
        else if (!strcmp(x->words[1], "load")) complete_files(v, word);
    } else if (c->completes == COMPLETE_STAGE_OR_FORM) {   /* diff, run, verify, compare */
        if (word[0] == '-' || !strcmp(prev, "--inputs") || !strcmp(prev, "--expected") || !strcmp(prev, "--save")) {
            if (word[0] != '-') complete_files(v, word);
            else add_usage_options(v, c->usage, word);
        } else {
            add_words(v, stage_words, word);
        }
    } else if (c->completes == COMPLETE_NODE && word[0] == '-' && word[1] == '-') {   /* find --case-sensitive */
        add_usage_options(v, c->usage, word);
    } else if (c->completes == COMPLETE_NODE) {
        if (k == 0 || (!strcmp(name, "delete") && k == 1) || (!strcmp(name, "rewire") && k == 2) ||
            (!strcmp(name, "insert") && k == 0))
            add_nodes(s, v, word);
    } else if (c->completes == COMPLETE_FILE) {
        complete_files(v, word);
    } else if (c->completes == COMPLETE_COMMAND) {
        for (const command *k2 = command_table; k2->name; k2++) add_if_prefix(v, k2->name, word);
    } else if (word[0] == '-' && word[1] == '-') {   /* nodes --json, stats --json, lint --json ... */
        add_usage_options(v, c->usage, word);
    }
}

char **command_complete(session *s, const char *line, int start, const char *word)
{
    strvec v = {0};
    comp_ctx x;
    split_before(line, start, &x);
    if (x.n == 0) {
        for (const command *c = command_table; c->name; c++) add_if_prefix(&v, c->name, word);
    } else {
        int ambiguous;
        const command *c = command_find(x.words[0], &ambiguous);
        if (c) complete_args(s, c, &x, word, &v);
        else complete_files(&v, word);
    }
    if (!v.len) {
        vec_free(&v);
        return NULL;
    }
    vec_push(&v, (char *)NULL);
    return v.items;
}
