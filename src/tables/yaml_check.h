/* yaml_check.h — a bound on YAML alias expansion for fxsh's tables: a loaded document whose
 * aliases make it much larger than its own nodes (a "billion laughs" file) is refused before
 * anything walks it.
 *
 * Ownership: nothing is allocated beyond the call. */
#ifndef FXSH_OPS_YAML_CHECK_H
#define FXSH_OPS_YAML_CHECK_H

#include <stdbool.h>
#include <yaml.h>

#include "base/diag.h"

/* A document may expand (every alias counted as a copy of what it names) to at most
 * YAML_EXPAND_FACTOR × its nodes + YAML_EXPAND_SLACK nodes. */
#define YAML_EXPAND_FACTOR 4
#define YAML_EXPAND_SLACK 10000

/* False, after an error naming file, when doc's aliases expand past the bound or refer to a
 * node that contains them (a recursive alias). */
bool yaml_check_expansion(yaml_document_t *doc, const char *file, diag_sink *d);

#endif
