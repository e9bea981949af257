/* limits.h — size caps against hostile or runaway input (replayed Python steps, inflated zip
 * members), each with an environment variable that raises or lowers it.
 *
 * Ownership: nothing is allocated. */
#ifndef FXSH_LIMITS_H
#define FXSH_LIMITS_H

#include <stdint.h>

/* Python-level nodes py_eval may execute while replaying a TorchScript program (unrolled loop
 * iterations count each time). */
#define FXSH_MAX_REPLAY_STEPS_ENV "FXSH_MAX_REPLAY_STEPS"
#define FXSH_MAX_REPLAY_STEPS_DEFAULT 100000
/* Nodes decompose may emit for one source node: torch._decomp unrolls some ops over their sizes
 * (adaptive pooling windows), which a huge declared size turns into billions of nodes. */
#define FXSH_MAX_DECOMP_NODES_ENV "FXSH_MAX_DECOMP_NODES"
#define FXSH_MAX_DECOMP_NODES_DEFAULT 200000
/* Bytes a zip archive's members (.pt2, .npz) may inflate to, in all: the larger of a floor and
 * a multiple of the archive's own size (JSON compresses about 10:1; a zip bomb 1000:1). */
#define FXSH_MAX_INFLATE_ENV "FXSH_MAX_INFLATE"
#define FXSH_MAX_INFLATE_FLOOR ((uint64_t)64 << 20)
#define FXSH_MAX_INFLATE_RATIO 100

/* Bytes a saved ONNX protobuf may have: a larger model is saved with its weights as external
 * data (protobuf cannot hold 2 GB; torch.onnx switches the same way). Lowered by tests. */
#define FXSH_MAX_PROTOBUF_ENV "FXSH_MAX_PROTOBUF"
#define FXSH_MAX_PROTOBUF_DEFAULT (((uint64_t)2 << 30) - 1)

/* The value of environment variable name: a decimal number with an optional K, M or G suffix
 * (powers of 1024); dflt when it is unset, empty or not such a number. */
uint64_t limit_from_env(const char *name, uint64_t dflt);

/* Bytes the members of a zip archive (.pt2, .npz) of archive_len bytes may inflate to, in all:
 * FXSH_MAX_INFLATE if set, else the larger of the floor and the ratio times archive_len. */
uint64_t limit_max_inflate(uint64_t archive_len);

#endif
