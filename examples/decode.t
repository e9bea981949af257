## decode.t — expected transcript of examples/decode.fxsh: a decoder step with its key/value cache
## checked over a prefill and 8 decoding steps, a cache that forgets its past caught at step 1 (and
## the rewired output named by compare), and an exported program's range ending a long decode.
## (exit status 1: the failures are the lesson)
$ fxsh -echo -f examples/decode.fxsh
load tests/fixtures/models/llama_decode_step/program.pt2
export verbose=False
save /tmp/fxsh_decode_step.onnx --force
verify optimized exported --decode 8
decode: a prefill of 4 tokens, then 8 steps of 1 (batch 2); tokens input_ids, greedy from linear_14; caches past_key_0 <- cat_7, past_value_0 <- cat_8, past_key_1 <- cat_11, past_value_1 <- cat_12
step 0 (prefill, past 0, 4 tokens):
  PASS linear_14: max abs diff 0, max rel diff 0
  PASS cat_7: max abs diff 0, max rel diff 0
  PASS cat_8: max abs diff 0, max rel diff 0
  PASS cat_11: max abs diff 0, max rel diff 0
  PASS cat_12: max abs diff 0, max rel diff 0
step 1 (past 4, 1 token):
  PASS linear_14: max abs diff 0, max rel diff 0
  PASS cat_7: max abs diff 0, max rel diff 0
  PASS cat_8: max abs diff 0, max rel diff 0
  PASS cat_11: max abs diff 0, max rel diff 0
  PASS cat_12: max abs diff 0, max rel diff 0
step 2 (past 5, 1 token):
  PASS linear_14: max abs diff 0, max rel diff 0
  PASS cat_7: max abs diff 0, max rel diff 0
  PASS cat_8: max abs diff 0, max rel diff 0
  PASS cat_11: max abs diff 0, max rel diff 0
  PASS cat_12: max abs diff 0, max rel diff 0
step 3 (past 6, 1 token):
  PASS linear_14: max abs diff 0, max rel diff 0
  PASS cat_7: max abs diff 0, max rel diff 0
  PASS cat_8: max abs diff 0, max rel diff 0
  PASS cat_11: max abs diff 0, max rel diff 0
  PASS cat_12: max abs diff 0, max rel diff 0
step 4 (past 7, 1 token):
  PASS linear_14: max abs diff 0, max rel diff 0
  PASS cat_7: max abs diff 0, max rel diff 0
  PASS cat_8: max abs diff 0, max rel diff 0
  PASS cat_11: max abs diff 0, max rel diff 0
  PASS cat_12: max abs diff 0, max rel diff 0
step 5 (past 8, 1 token):
  PASS linear_14: max abs diff 0, max rel diff 0
  PASS cat_7: max abs diff 0, max rel diff 0
  PASS cat_8: max abs diff 0, max rel diff 0
  PASS cat_11: max abs diff 0, max rel diff 0
  PASS cat_12: max abs diff 0, max rel diff 0
step 6 (past 9, 1 token):
  PASS linear_14: max abs diff 0, max rel diff 0
  PASS cat_7: max abs diff 0, max rel diff 0
  PASS cat_8: max abs diff 0, max rel diff 0
  PASS cat_11: max abs diff 0, max rel diff 0
  PASS cat_12: max abs diff 0, max rel diff 0
step 7 (past 10, 1 token):
  PASS linear_14: max abs diff 0, max rel diff 0
  PASS cat_7: max abs diff 0, max rel diff 0
  PASS cat_8: max abs diff 0, max rel diff 0
  PASS cat_11: max abs diff 0, max rel diff 0
  PASS cat_12: max abs diff 0, max rel diff 0
step 8 (past 11, 1 token):
  PASS linear_14: max abs diff 0, max rel diff 0
  PASS cat_7: max abs diff 0, max rel diff 0
  PASS cat_8: max abs diff 0, max rel diff 0
  PASS cat_11: max abs diff 0, max rel diff 0
  PASS cat_12: max abs diff 0, max rel diff 0
verify: optimized and exported agree over the prefill and 8 decoding steps (atol 0.0001, rtol 0.001)
set output 0=(%linear_14,%add_6,%cat_8,%cat_11,%cat_12)
export verbose=False
verify optimized /tmp/fxsh_decode_step.onnx --decode 8 --save /tmp/fxsh_decode_step1.npz
decode: a prefill of 4 tokens, then 8 steps of 1 (batch 2); tokens input_ids, greedy from linear_14; caches past_key_0 <- add_6, past_value_0 <- cat_8, past_key_1 <- cat_11, past_value_1 <- cat_12
step 0 (prefill, past 0, 4 tokens):
  PASS linear_14: max abs diff 0, max rel diff 0
  PASS add_6: max abs diff 0, max rel diff 0
  PASS cat_8: max abs diff 0, max rel diff 0
  PASS cat_11: max abs diff 0, max rel diff 0
  PASS cat_12: max abs diff 0, max rel diff 0
step 1 (past 4, 1 token):
  PASS linear_14: max abs diff 0, max rel diff 0
  FAIL add_6: shape [2, 1, 1, 8], expected [2, 1, 5, 8]
  PASS cat_8: max abs diff 0, max rel diff 0
  PASS cat_11: max abs diff 0, max rel diff 0
  PASS cat_12: max abs diff 0, max rel diff 0
examples/decode.fxsh:14: error: verify: optimized and /tmp/fxsh_decode_step.onnx part at decoding step 1: add_6 differs
  hint: the step's inputs are in /tmp/fxsh_decode_step1.npz: `compare optimized /tmp/fxsh_decode_step.onnx --inputs /tmp/fxsh_decode_step1.npz` finds the first node where they part
compare optimized /tmp/fxsh_decode_step.onnx --inputs /tmp/fxsh_decode_step1.npz
compare: optimized vs /tmp/fxsh_decode_step.onnx on the inputs of /tmp/fxsh_decode_step1.npz: 140 values in both, 140 computed by both
no divergence in values: all 140 within atol 0.0001, rtol 0.001
examples/decode.fxsh:15: error: compare: optimized and /tmp/fxsh_decode_step.onnx return different values: output 1 is add_6 in optimized and cat_7 in /tmp/fxsh_decode_step.onnx, and both models compute both
  hint: `node add_6` and `node cat_7` show the two nodes; the model's outputs were rewired
undo
export verbose=False
verify optimized exported --decode 6 --prefill 30
decode: a prefill of 30 tokens, then 6 steps of 1 (batch 2); tokens input_ids, greedy from linear_14; caches past_key_0 <- cat_7, past_value_0 <- cat_8, past_key_1 <- cat_11, past_value_1 <- cat_12
step 0 (prefill, past 0, 30 tokens):
  PASS linear_14: max abs diff 0, max rel diff 0
  PASS cat_7: max abs diff 0, max rel diff 0
  PASS cat_8: max abs diff 0, max rel diff 0
  PASS cat_11: max abs diff 0, max rel diff 0
  PASS cat_12: max abs diff 0, max rel diff 0
step 1 (past 30, 1 token):
  PASS linear_14: max abs diff 0, max rel diff 0
  PASS cat_7: max abs diff 0, max rel diff 0
  PASS cat_8: max abs diff 0, max rel diff 0
  PASS cat_11: max abs diff 0, max rel diff 0
  PASS cat_12: max abs diff 0, max rel diff 0
step 2 (past 31, 1 token):
  PASS linear_14: max abs diff 0, max rel diff 0
  PASS cat_7: max abs diff 0, max rel diff 0
  PASS cat_8: max abs diff 0, max rel diff 0
  PASS cat_11: max abs diff 0, max rel diff 0
  PASS cat_12: max abs diff 0, max rel diff 0
step 3 (past 32, 1 token):
  PASS linear_14: max abs diff 0, max rel diff 0
  PASS cat_7: max abs diff 0, max rel diff 0
  PASS cat_8: max abs diff 0, max rel diff 0
  PASS cat_11: max abs diff 0, max rel diff 0
  PASS cat_12: max abs diff 0, max rel diff 0
step 4 (past 33, 1 token): FAIL: exported: Guard failed: past_key_0.size()[2] <= 32 (the input's size is 33; s15 is in VR[0, 32])
examples/decode.fxsh:19: error: verify: optimized and exported part at decoding step 4: exported does not run
  hint: its line above says why (a size outside an exported program's range: `guards`)
? 1
