/* utf8.c — UTF-8 validation (see utf8.h). */
#include "base/utf8.h"

size_t utf8_seq_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    if (c < 0x80) return 1;
    if (c < 0xC2) return 0;   /* a continuation byte, or the lead of an overlong 2-byte form */
    if (c < 0xE0) return n >= 2 && (s[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c < 0xF0) {
        if (n < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80) return 0;
        if (c == 0xE0 && s[1] < 0xA0) return 0;    /* overlong */
        if (c == 0xED && s[1] >= 0xA0) return 0;   /* UTF-16 surrogate */
        return 3;
    }
    if (c < 0xF5) {
        if (n < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80) return 0;
        if (c == 0xF0 && s[1] < 0x90) return 0;    /* overlong */
        if (c == 0xF4 && s[1] >= 0x90) return 0;   /* past U+10FFFF */
        return 4;
    }
    return 0;
}

bool utf8_valid(const char *s, size_t n, size_t *bad)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t k = utf8_seq_len(p + i, n - i);
        if (!k) {
            if (bad) *bad = i;
            return false;
        }
        i += k;
    }
    return true;
}
