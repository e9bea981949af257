/* dyn_spec.h — the `dynamic_shapes` setting read as torch.export reads its argument: INPUT:AXIS=SPEC
 * items (commas or spaces between them), SPEC one of
 *   batch                         a named dimension (torch.export.Dim("batch"))
 *   Dim('batch', min=3, max=64)   a named dimension with a range (either bound may be left out)
 *   Dim.AUTO / AUTO               dynamic unless the code pins it (then static, silently)
 *   Dim.DYNAMIC / DYNAMIC         dynamic; the code pinning it is an error
 *   Dim.STATIC / STATIC           static (the example's size)
 * AUTO and DYNAMIC dimensions are named s0, s1, ... in order (torch names them s77, s27, ...).
 *
 * Ownership: a dyn_spec owns its strings (dyn_spec_free). */
#ifndef FXSH_PIPELINE_DYN_SPEC_H
#define FXSH_PIPELINE_DYN_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { DYN_NAMED, DYN_AUTO, DYN_DYNAMIC, DYN_STATIC } dyn_kind;

typedef struct dyn_spec_item {
    char *input;
    int axis;
    char *name;          /* the symbol: the Dim's name, or s0, s1, ... */
    dyn_kind kind;
    int64_t min, max;    /* the Dim's range as given; -1: not given */
} dyn_spec_item;

enum { DYN_SPEC_MAX = 32 };

typedef struct dyn_spec {
    dyn_spec_item items[DYN_SPEC_MAX];
    size_t n;
} dyn_spec;

/* Reads text into s; false with the item that cannot be read (and why) in why. */
bool dyn_spec_parse(const char *text, dyn_spec *s, char *why, size_t cap);
void dyn_spec_free(dyn_spec *s);

#endif
