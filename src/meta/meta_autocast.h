/* meta_autocast.h — torch.autocast regions of an exported program (the subgraphs of
 * torch.ops.higher_order.wrap_with_autocast) and what autocast does to each op in them, as ATen's
 * CPU autocast kernels do: lower_precision_fp ops (linear, matmul, conv, ...) run in the region's
 * dtype, fp32 ops (losses, linalg, fft, ...) in float32, promote ops (cat, stack) in the widest
 * of their inputs. Meta verification reads the result dtypes through it; decomposition inserts the
 * casts torch's run_decompositions() inserts.
 *
 * Ownership: the map's keys live in its own arena (autocast_regions_free). */
#ifndef FXSH_META_META_AUTOCAST_H
#define FXSH_META_META_AUTOCAST_H

#include <stdbool.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "fx/fx_ir.h"

typedef enum { AC_NONE, AC_LOWER, AC_FP32, AC_PROMOTE } autocast_policy;

/* The CPU autocast policy of an ATen overload ("torch.ops.aten.linear.default"). */
autocast_policy autocast_policy_cpu(const char *target);

/* The graphs of p that are bodies of an autocast region, each with what it does: an enabled CPU
 * region its dtype, a disabled one FX_DT_UNKNOWN; another device's enabled region is flagged. */
typedef struct autocast_regions {
    hashmap by_graph;   /* "%p" of the graph -> region (in a) */
    arena a;
    size_t n;
    const fx_node *other_device;   /* an enabled region on a device other than the CPU (or NULL) */
} autocast_regions;

typedef struct autocast_region {
    fx_dtype dtype;     /* FX_DT_UNKNOWN: autocast disabled in this region */
} autocast_region;

void autocast_regions_find(const fx_program *p, autocast_regions *out);
/* The region whose body is g, or NULL. */
const autocast_region *autocast_region_of(const autocast_regions *r, const fx_graph *g);
void autocast_regions_free(autocast_regions *r);

#endif
