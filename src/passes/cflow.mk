# src/passes/cflow.mk — control-flow export check and rewrites (task CFLOW).
