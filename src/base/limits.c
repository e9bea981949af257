/* limits.c — size caps against hostile or runaway input and their overrides (see limits.h). */
#include "base/limits.h"

#include <errno.h>
#include <stdlib.h>

uint64_t limit_from_env(const char *name, uint64_t dflt)
{
    const char *s = getenv(name);
    if (!s || *s < '0' || *s > '9') return dflt;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno) return dflt;
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (*end) return dflt;
    if (shift && v > (UINT64_MAX >> shift)) return UINT64_MAX;
    return (uint64_t)v << shift;
}

uint64_t limit_max_inflate(uint64_t archive_len)
{
    uint64_t by_size = archive_len > UINT64_MAX / FXSH_MAX_INFLATE_RATIO ? UINT64_MAX
                                                                       : archive_len * FXSH_MAX_INFLATE_RATIO;
    return limit_from_env(FXSH_MAX_INFLATE_ENV, by_size > FXSH_MAX_INFLATE_FLOOR ? by_size : FXSH_MAX_INFLATE_FLOOR);
}
