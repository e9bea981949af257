## weights.t — weights are mapped, never copied, and a model over protobuf's 2 GB limit is saved
## with external data (torch.onnx does the same), which `load` maps back. FXSH_MAX_PROTOBUF lowers
## the limit so that a small model takes that path; bench/run.sh (make bench) does it for real
## with a generated 3 GB model.

## A model with a 2 KiB weight over a limit of 1 KiB (ONNX text written with awk; `step` optimizes
## it, folding w * 2 into a raw_data initializer, which is what external data holds): the weight
## goes to opt.onnx.data, and fxsh says so. Loaded back, the external data gives the same model:
## saved inline again it is byte for byte the model saved directly, and it prints the same.
$ cd $FXSH_SCRATCH && awk 'BEGIN { q = sprintf("%c", 34); print "<ir_version: 10, opset_import: [" q q " : 20]>"; print "g (float[512] x) => (float[512] y)"; for (i = 0; i < 512; i++) s = s (i ? ", " : "") (i * 0.25 - 7); print "<float[512] w = {" s "}, float[1] two = {2}>"; print "{"; print "  w2 = Mul (w, two)"; print "  y = Add (x, w2)"; print "}" }' > m.txt && FXSH_MAX_PROTOBUF=1K fxsh -c 'load m.txt' -c 'step' -c 'save ext.onnx' && ls && wc -c < ext.onnx.data && fxsh -c 'load ext.onnx' -c 'save inline.onnx' -c 'show' > ext.show && fxsh -c 'load m.txt' -c 'step' -c 'save direct.onnx' >/dev/null && fxsh -c 'load direct.onnx' -c 'show' > direct.show && cmp inline.onnx direct.onnx && cmp ext.show direct.show && echo identical
[torch.onnx] Optimize the ONNX graph...
[torch.onnx] Optimize the ONNX graph... ✅
-c:3: ext.onnx: note: the model is 2151 bytes, more than a protobuf can hold (1024): its 1 tensor of 1024 bytes or more is saved as external data in 'ext.onnx.data' beside it, as torch.onnx does
ext.onnx
ext.onnx.data
m.txt
2048
identical

## Under the limit nothing changes: one file, no note.
$ cd $FXSH_SCRATCH && awk 'BEGIN { q = sprintf("%c", 34); print "<ir_version: 10, opset_import: [" q q " : 20]>"; print "g (float[512] x) => (float[512] y)"; for (i = 0; i < 512; i++) s = s (i ? ", " : "") i; print "<float[512] w = {" s "}>"; print "{"; print "  y = Add (x, w)"; print "}" }' > m.txt && FXSH_MAX_PROTOBUF=1M fxsh -c 'load m.txt' -c 'save one.onnx' && ls
m.txt
one.onnx

## Saving over the file the weights are mapped from is safe: a new file replaces it, the mapping
## keeps the old one's bytes, and the model saved twice is the same.
$ fxsh -c 'load tests/fixtures/repl/mlp_cond.onnx' -c "save $FXSH_SCRATCH/a.onnx" && fxsh -c "load $FXSH_SCRATCH/a.onnx" -c "save $FXSH_SCRATCH/a.onnx" -c "save $FXSH_SCRATCH/b.onnx" && cmp $FXSH_SCRATCH/a.onnx $FXSH_SCRATCH/b.onnx && cmp $FXSH_SCRATCH/a.onnx tests/fixtures/repl/mlp_cond.onnx && echo same
same
