/* settings.h — the session's export defaults, with the meaning torch.onnx.export gives them.
 *
 * Ownership: string values are malloc'd and owned by the settings; settings_free releases them. */
#ifndef FXSH_SETTINGS_H
#define FXSH_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/strbuf.h"

/* The newest default-domain opset the op tables (share/fxsh/ops) have rules for. */
enum { SETTINGS_MAX_OPSET = 23 };

typedef struct export_settings {
    int opset_version;               /* default 20; below 18 is raised to 18 with torch's warning */
    char *input_names;               /* comma-separated, NULL = keep the FX names */
    char *output_names;
    char *dynamic_shapes;            /* "x:0=batch,y:1=seq" — dims that become symbolic */
    char *dynamic_axes;              /* the same syntax, converted with torch's warning */
    char *inputs;                    /* example inputs for torch-level graphs: "x=f32[4,3],y=i64[2]" */
    bool export_params;
    bool keep_initializers_as_inputs;
    bool do_constant_folding;
    bool optimize;
    bool external_data;
    bool verbose;
} export_settings;

void settings_init(export_settings *s);
void settings_free(export_settings *s);
void settings_copy(export_settings *dst, const export_settings *src);
/* Sets NAME=VALUE (or NAME VALUE); reports a clear error and returns false on a bad name/value. */
bool settings_set(export_settings *s, const char *name, const char *value, diag_sink *d);
void settings_print(const export_settings *s, strbuf *out);
/* The line of `set` for one setting; an error with a did-you-mean when none has that name. */
bool settings_print_one(const export_settings *s, const char *name, strbuf *out, diag_sink *d);
/* The settings as a JSON object: {name: value}, numbers and bools as such, None as null. */
struct json_writer;
void settings_json(const export_settings *s, struct json_writer *w);
/* The setting names in `set`'s order (NULL past the end), for completion and suggestions. */
const char *settings_name(size_t i);
/* The words a value of setting `name` may be (NULL-terminated: True/False, the opsets, None
 * for text); NULL for an unknown name. */
const char *const *settings_value_words(const char *name);

#endif
