# src/capture/local.mk — the torch.export replay: torch-level program → ATen program (modules
# inlined, weights lifted), TorchScript argument forms and the replay of its Python code.
libfxsh_a_SOURCES += \
	src/capture/export.h src/capture/export.c src/capture/export_internal.h src/capture/export_emit.c src/capture/export_tables.c \
	src/capture/export_module.c src/capture/export_call.c src/capture/export_mha.c \
	src/capture/ts_normalize.h src/capture/ts_normalize.c \
	src/capture/py_eval.h src/capture/py_eval.c src/capture/py_eval_internal.h src/capture/py_eval_control.c src/capture/py_values.h src/capture/py_values.c \
	src/capture/py_guard.h src/capture/py_guard.c

capturedir = $(pkgdatadir)/capture
dist_capture_DATA = share/fxsh/capture/nn.yaml share/fxsh/capture/functions.yaml
