# src/rewrite/local.mk — the control-flow check and the user's patches: if → cond, loops → scan /
# while_loop, node surgery.
libfxsh_a_SOURCES += \
	src/rewrite/control_flow.h src/rewrite/control_flow.c \
	src/rewrite/rewrite.h src/rewrite/rewrite_internal.h src/rewrite/rewrite_util.c \
	src/rewrite/rewrite_cond.c src/rewrite/rewrite_scan.c src/rewrite/rewrite_while.c src/rewrite/rewrite_plan.c \
	src/rewrite/lint.c src/rewrite/lint.h \
	src/rewrite/surgery.c src/rewrite/surgery.h
