/* settings.c — export defaults shown and changed by `set`, overridden per run by `export K=V`. */
#include "pipeline/settings.h"
#include "pipeline/dyn_spec.h"

#include <errno.h>
#include "base/json_write.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/suggest.h"

void settings_init(export_settings *s)
{
    memset(s, 0, sizeof *s);
    s->opset_version = 20;   /* torch.onnx's ONNX_DEFAULT_OPSET since 2.9 */
    s->export_params = true;
    s->do_constant_folding = true;
    s->optimize = true;
    s->verbose = true;
}

void settings_free(export_settings *s)
{
    free(s->input_names);
    free(s->output_names);
    free(s->dynamic_shapes);
    free(s->dynamic_axes);
    free(s->inputs);
    memset(s, 0, sizeof *s);
}

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

void settings_copy(export_settings *dst, const export_settings *src)
{
    *dst = *src;
    dst->input_names = dup_or_null(src->input_names);
    dst->output_names = dup_or_null(src->output_names);
    dst->dynamic_shapes = dup_or_null(src->dynamic_shapes);
    dst->dynamic_axes = dup_or_null(src->dynamic_axes);
    dst->inputs = dup_or_null(src->inputs);
}

typedef enum { S_INT, S_BOOL, S_TEXT } setting_type;

typedef struct setting {
    const char *name;
    setting_type type;
    size_t offset;
    const char *help;
} setting;

#define FIELD(f) offsetof(export_settings, f)
static const setting table[] = {
    {"opset_version", S_INT, FIELD(opset_version), "default-domain opset of the ONNX model (18..23)"},
    {"input_names", S_TEXT, FIELD(input_names), "names of the graph inputs, comma-separated"},
    {"output_names", S_TEXT, FIELD(output_names), "names of the graph outputs, comma-separated"},
    {"dynamic_shapes", S_TEXT, FIELD(dynamic_shapes), "symbolic dims, e.g. x:0=batch"},
    {"dynamic_axes", S_TEXT, FIELD(dynamic_axes), "legacy form of dynamic_shapes (converted)"},
    {"inputs", S_TEXT, FIELD(inputs), "example inputs of a torch-level graph, e.g. x=f32[4,3]"},
    {"export_params", S_BOOL, FIELD(export_params), "store the weights in the model"},
    {"keep_initializers_as_inputs", S_BOOL, FIELD(keep_initializers_as_inputs), "also list initializers as graph inputs"},
    {"do_constant_folding", S_BOOL, FIELD(do_constant_folding), "fold constants while optimizing"},
    {"optimize", S_BOOL, FIELD(optimize), "run the optimize stage"},
    {"external_data", S_BOOL, FIELD(external_data), "save weights of 1 KiB and more to FILE.data"},
    {"verbose", S_BOOL, FIELD(verbose), "print the [torch.onnx] progress lines"},
};

static bool parse_bool(const char *v, bool *out)
{
    static const char *const yes[] = {"true", "True", "1", "on", "yes"};
    static const char *const no[] = {"false", "False", "0", "off", "no"};
    for (size_t i = 0; i < 5; i++) {
        if (!strcmp(v, yes[i])) return *out = true, true;
        if (!strcmp(v, no[i])) return *out = false, true;
    }
    return false;
}

/* dynamic_shapes / dynamic_axes: INPUT:AXIS=SPEC items (pipeline/dyn_spec.h). */
static bool valid_dims(const char *name, const char *value, diag_sink *d)
{
    dyn_spec spec;
    char why[300];
    if (dyn_spec_parse(value, &spec, why, sizeof why)) {
        dyn_spec_free(&spec);
        return true;
    }
    diagnostic *dg = diag_error(d, (diag_loc){0}, "set: %s: %s", name, why);
    diag_set_hint(dg, "write INPUT:AXIS=SPEC items, e.g. x:0=batch,y:1=seq, x:0=Dim('batch', min=2, max=64), x:1=AUTO");
    return false;
}

static void unknown_setting(const char *name, diag_sink *d);

bool settings_set(export_settings *s, const char *name, const char *value, diag_sink *d)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const setting *st = &table[i];
        if (strcmp(st->name, name) != 0) continue;
        char *field = (char *)s + st->offset;
        switch (st->type) {
        case S_INT: {
            char *end;
            errno = 0;
            long v = strtol(value, &end, 10);
            if (!*value || *end) {
                diagnostic *dg = diag_error(d, (diag_loc){0}, "set: %s takes a number, not '%s'", name, value);
                diag_set_hint(dg, "fxsh exports opsets 18..%d", SETTINGS_MAX_OPSET);
                return false;
            }
            if (errno == ERANGE || v < 1 || v > SETTINGS_MAX_OPSET) {
                diagnostic *dg = diag_error(d, (diag_loc){0}, "set: %s %s is out of range: fxsh exports opsets 18..%d", name,
                                            value, SETTINGS_MAX_OPSET);
                diag_set_hint(dg, "a lower opset (1..17) is raised to 18 with torch's warning, as torch.onnx.export does");
                return false;
            }
            *(int *)field = (int)v;
            return true;
        }
        case S_BOOL:
            if (!parse_bool(value, (bool *)field)) {
                diag_error(d, (diag_loc){0}, "set: %s takes True or False (or 1/0, on/off, yes/no), not '%s'", name, value);
                return false;
            }
            return true;
        case S_TEXT: {
            if (*value && strcmp(value, "None") && (st->offset == FIELD(dynamic_shapes) || st->offset == FIELD(dynamic_axes)) &&
                !valid_dims(name, value, d))
                return false;
            char **p = (char **)field;
            free(*p);
            *p = !*value || !strcmp(value, "None") ? NULL : xstrdup(value);
            return true;
        }
        }
    }
    unknown_setting(name, d);
    return false;
}

/* "no setting named NAME", with the nearest name and the list of them. */
static void unknown_setting(const char *name, diag_sink *d)
{
    strbuf names;
    sb_init(&names);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) sb_printf(&names, "%s%s", i ? ", " : "", table[i].name);
    const char *cands[sizeof table / sizeof table[0]];
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) cands[i] = table[i].name;
    const char *near = suggest_closest(name, cands, sizeof table / sizeof table[0]);
    diagnostic *dg = near ? diag_error(d, (diag_loc){0}, "set: no setting named '%s'; did you mean '%s'?", name, near)
                          : diag_error(d, (diag_loc){0}, "set: no setting named '%s'", name);
    diag_set_hint(dg, "settings: %s (`set` shows their values)", names.s);
    sb_free(&names);
}

static void print_row(const export_settings *s, const setting *st, strbuf *out)
{
    const char *field = (const char *)s + st->offset;
    sb_printf(out, "%-28s ", st->name);
    switch (st->type) {
    case S_INT: sb_printf(out, "%-10d", *(const int *)field); break;
    case S_BOOL: sb_printf(out, "%-10s", *(const bool *)field ? "True" : "False"); break;
    case S_TEXT: {
        const char *v = *(char *const *)field;
        sb_printf(out, "%-10s", v ? v : "None");
        break;
    }
    }
    sb_printf(out, "  # %s\n", st->help);
}

void settings_print(const export_settings *s, strbuf *out)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) print_row(s, &table[i], out);
}

bool settings_print_one(const export_settings *s, const char *name, strbuf *out, diag_sink *d)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(table[i].name, name)) {
            print_row(s, &table[i], out);
            return true;
        }
    unknown_setting(name, d);
    return false;
}

void settings_json(const export_settings *s, json_writer *w)
{
    jw_object(w);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const setting *st = &table[i];
        const char *field = (const char *)s + st->offset;
        jw_key(w, st->name);
        switch (st->type) {
        case S_INT: jw_int(w, *(const int *)field); break;
        case S_BOOL: jw_bool(w, *(const bool *)field); break;
        case S_TEXT: jw_string(w, *(char *const *)field); break;   /* None: null */
        }
    }
    jw_object_end(w);
}

const char *settings_name(size_t i)
{
    return i < sizeof table / sizeof table[0] ? table[i].name : NULL;
}

const char *const *settings_value_words(const char *name)
{
    static const char *const bools[] = {"True", "False", NULL};
    static const char *const opsets[] = {"18", "19", "20", "21", "22", "23", NULL};
    static const char *const text[] = {"None", NULL};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(table[i].name, name))
            return table[i].type == S_BOOL ? bools : table[i].type == S_INT ? opsets : text;
    return NULL;
}
