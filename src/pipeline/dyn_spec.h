/* dyn_spec.h — the `dynamic_shapes` setting read as torch.export reads its argument: INPUT:AXIS=SPEC
 * items (commas or spaces between them), SPEC one of
 *   batch                         a named dimension (torch.export.Dim("batch"))
 *   Dim('batch', min=3, max=64)   a named dimension with a range (either bound may be left out)
 *   Dim.AUTO / AUTO               dynamic unless the code pins it (then static, silently)
 *   Dim.DYNAMIC / DYNAMIC         dynamic; the code pinning it is an error
 *   Dim.STATIC / STATIC           static (the example's size)
 *   2*dx, dx+1, 2*dx-1, dx*3      a derived dimension (torch's 2 * dx + 1): a positive multiple of
 *                                 another named dimension plus a constant, written without spaces
 * AUTO and DYNAMIC dimensions are named s0, s1, ... in order (torch names them s77, s27, ...);
 * a derived one is named as sympy prints it ("2*dx + 1"), its range its root's mapped.
 *
 * Ownership: a dyn_spec owns its strings (dyn_spec_free). */
#ifndef FXSH_PIPELINE_DYN_SPEC_H
#define FXSH_PIPELINE_DYN_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { DYN_NAMED, DYN_AUTO, DYN_DYNAMIC, DYN_STATIC, DYN_DERIVED } dyn_kind;

typedef struct dyn_spec_item {
    char *input;
    int axis;
    char *name;          /* the symbol: the Dim's name, or s0, s1, ...; a derived one's expression */
    dyn_kind kind;
    int64_t min, max;    /* the Dim's range as given; -1: not given (a derived one's: its root's
                            mapped, once dyn_spec_parse has resolved it) */
    char *root;          /* DYN_DERIVED: root's name, and name = coeff*root + offset */
    int64_t coeff, offset;
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
