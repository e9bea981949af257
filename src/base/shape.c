/* shape.c — checked element counts and byte sizes of tensor shapes (see shape.h). */
#include "base/shape.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

bool shape_numel(const int64_t *dims, size_t rank, int64_t *numel, size_t *bad)
{
    int64_t n = 1;
    bool zero = false;
    /* a zero dimension makes the count 0, but a negative dimension anywhere is still wrong
     * and so is a product of the other dimensions that overflows (torch refuses both) */
    for (size_t k = 0; k < rank; k++) {
        int64_t d = dims[k];
        if (d < 0) {
            if (bad) *bad = k;
            return false;
        }
        if (d == 0) {
            zero = true;
            continue;
        }
        if (n > INT64_MAX / d) {
            if (bad) *bad = k;
            return false;
        }
        n *= d;
    }
    if (numel) *numel = zero ? 0 : n;
    return true;
}

bool shape_bytes(int64_t numel, size_t elem_size, uint64_t *bytes)
{
    if (numel < 0) return false;
    uint64_t b;
    if (elem_size == 0) b = (uint64_t)numel / 2 + (uint64_t)(numel & 1);
    else if ((uint64_t)numel > SHAPE_MAX_BYTES / elem_size) return false;
    else b = (uint64_t)numel * elem_size;
    if (b > SHAPE_MAX_BYTES) return false;
    if (bytes) *bytes = b;
    return true;
}

const char *shape_problem(const int64_t *dims, size_t rank, size_t elem_size, int64_t *numel, uint64_t *bytes,
                          char *buf, size_t cap)
{
    int64_t n;
    size_t bad = 0;
    if (!shape_numel(dims, rank, &n, &bad)) {
        if (dims[bad] < 0)
            snprintf(buf, cap, "dimension %zu is %" PRId64 " (sizes must not be negative)", bad, dims[bad]);
        else
            snprintf(buf, cap, "its element count overflows 64 bits at dimension %zu (%" PRId64 ")", bad, dims[bad]);
        return buf;
    }
    uint64_t b;
    if (!shape_bytes(n, elem_size, &b)) {
        snprintf(buf, cap, "%" PRId64 " elements of %zu bytes exceed the largest tensor size (2^63-1 bytes)", n,
                 elem_size);
        return buf;
    }
    if (numel) *numel = n;
    if (bytes) *bytes = b;
    return NULL;
}

int shape_parse_dim(const char *s, int64_t *out)
{
    const char *p = s;
    if (*p == '-' || *p == '+') p++;
    if (*p < '0' || *p > '9') return 0;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9') return 0;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (errno == ERANGE || v < 0) return -1;
    *out = (int64_t)v;
    return 1;
}

const char *shape_text_problem(const char *const *dims, size_t rank, size_t elem_size, char *buf, size_t cap)
{
    int64_t numel = 1;
    for (size_t k = 0; k < rank; k++) {
        int64_t d;
        int r = shape_parse_dim(dims[k], &d);
        if (r < 0) {
            snprintf(buf, cap, "size %zu (%.40s) is %s", k, dims[k],
                     dims[k][0] == '-' ? "negative" : "too large for 64 bits");
            return buf;
        }
        if (r == 0 || d == 0) continue;
        if (numel > INT64_MAX / d) {
            snprintf(buf, cap, "its element count overflows 64 bits at size %zu (%.40s)", k, dims[k]);
            return buf;
        }
        numel *= d;
    }
    if (!shape_bytes(numel, elem_size, NULL)) {
        snprintf(buf, cap, "it describes more than 2^63 bytes");
        return buf;
    }
    return NULL;
}
