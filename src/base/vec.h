/* vec.h — typed growable arrays as macros: VEC(T) declares {T *items; size_t len, cap;}.
 *
 * Ownership: the vector owns items[]; vec_free releases the array (not what the elements point to). */
#ifndef FXSH_VEC_H
#define FXSH_VEC_H

#include <stdlib.h>

#include "base/alloc.h"

#define VEC(T) struct { T *items; size_t len, cap; }

#define vec_push(v, x)                                                                   \
    do {                                                                                 \
        xgrow((void **)&(v)->items, &(v)->cap, (v)->len + 1, sizeof *(v)->items);        \
        (v)->items[(v)->len++] = (x);                                                    \
    } while (0)

#define vec_free(v)                                                                      \
    do {                                                                                 \
        free((v)->items);                                                                \
        (v)->items = NULL;                                                               \
        (v)->len = (v)->cap = 0;                                                         \
    } while (0)

#endif
