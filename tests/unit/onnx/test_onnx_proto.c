/* test_onnx_proto.c — every field of Debian's onnx.proto has the same number and type in ours.
 *
 * Parses the field lines of /usr/include/onnx/onnx.proto (libonnx-dev, IR 8; or $ONNX_PROTO)
 * and checks each against the protobuf-c descriptors compiled from proto/onnx.proto, so the
 * check covers what is actually on the wire. Exits 77 (skip) when the reference is absent. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/onnx.pb-c.h"

static const ProtobufCMessageDescriptor *top[] = {
    &onnx__attribute_proto__descriptor, &onnx__value_info_proto__descriptor,
    &onnx__node_proto__descriptor, &onnx__training_info_proto__descriptor,
    &onnx__model_proto__descriptor, &onnx__string_string_entry_proto__descriptor,
    &onnx__tensor_annotation__descriptor, &onnx__graph_proto__descriptor,
    &onnx__tensor_proto__descriptor, &onnx__sparse_tensor_proto__descriptor,
    &onnx__tensor_shape_proto__descriptor, &onnx__type_proto__descriptor,
    &onnx__operator_set_id_proto__descriptor, &onnx__function_proto__descriptor,
    &onnx__int_int_list_entry_proto__descriptor, &onnx__node_device_configuration_proto__descriptor,
    &onnx__sharding_spec_proto__descriptor, &onnx__sharded_dim_proto__descriptor,
    &onnx__simple_sharded_dim_proto__descriptor, &onnx__device_configuration_proto__descriptor,
};

/* Finds a message by its dotted name inside package onnx ("TypeProto.Tensor"), searching the
 * top-level list and then message-typed fields (nested messages are reachable that way). */
static const ProtobufCMessageDescriptor *find_msg(const char *name)
{
    char full[512];
    snprintf(full, sizeof full, "onnx.%s", name);
    for (size_t i = 0; i < sizeof top / sizeof top[0]; i++) {
        if (strcmp(top[i]->name, full) == 0) return top[i];
        for (unsigned f = 0; f < top[i]->n_fields; f++) {
            const ProtobufCFieldDescriptor *fd = &top[i]->fields[f];
            if (fd->type == PROTOBUF_C_TYPE_MESSAGE &&
                strcmp(((const ProtobufCMessageDescriptor *)fd->descriptor)->name, full) == 0)
                return fd->descriptor;
        }
    }
    return NULL;
}

static const char *scalar_name(ProtobufCType t)
{
    switch (t) {
    case PROTOBUF_C_TYPE_INT32: return "int32";
    case PROTOBUF_C_TYPE_SINT32: return "sint32";
    case PROTOBUF_C_TYPE_SFIXED32: return "sfixed32";
    case PROTOBUF_C_TYPE_INT64: return "int64";
    case PROTOBUF_C_TYPE_SINT64: return "sint64";
    case PROTOBUF_C_TYPE_SFIXED64: return "sfixed64";
    case PROTOBUF_C_TYPE_UINT32: return "uint32";
    case PROTOBUF_C_TYPE_FIXED32: return "fixed32";
    case PROTOBUF_C_TYPE_UINT64: return "uint64";
    case PROTOBUF_C_TYPE_FIXED64: return "fixed64";
    case PROTOBUF_C_TYPE_FLOAT: return "float";
    case PROTOBUF_C_TYPE_DOUBLE: return "double";
    case PROTOBUF_C_TYPE_BOOL: return "bool";
    case PROTOBUF_C_TYPE_STRING: return "string";
    case PROTOBUF_C_TYPE_BYTES: return "bytes";
    default: return NULL;
    }
}

/* Does our field's type match the type spelled in the reference ("int64", "TensorProto",
 * "AttributeType", "TypeProto")? Message / enum names compare by their last component. */
static int type_matches(const ProtobufCFieldDescriptor *fd, const char *type)
{
    const char *s = scalar_name(fd->type);
    if (s) return strcmp(s, type) == 0;
    const char *last = strrchr(type, '.');
    last = last ? last + 1 : type;
    const char *ours = fd->type == PROTOBUF_C_TYPE_MESSAGE
                           ? ((const ProtobufCMessageDescriptor *)fd->descriptor)->short_name
                           : ((const ProtobufCEnumDescriptor *)fd->descriptor)->short_name;
    return strcmp(ours, last) == 0;
}

int main(void)
{
    const char *path = getenv("ONNX_PROTO");
    if (!path || !*path) path = "/usr/include/onnx/onnx.proto";
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s not found (apt-get install libonnx-dev): skipping\n", path);
        return 77;
    }
    /* scope stack: message names, or "" for enum / oneof scopes */
    char scope[16][128];
    int kind[16];   /* 0 message, 1 enum, 2 oneof */
    int depth = 0, checked = 0, bad = 0;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        char *c = strstr(line, "//");
        if (c) *c = '\0';
        char *p = line;
        while (isspace((unsigned char)*p)) p++;
        char w1[128] = "", w2[128] = "", w3[128] = "";
        int num = -1, n;
        if (sscanf(p, "message %127s {", w1) == 1 || sscanf(p, "enum %127s {", w2) == 1 ||
            sscanf(p, "oneof %127s {", w3) == 1) {
            if (depth >= 16) return 99;
            int k = *w1 ? 0 : *w2 ? 1 : 2;
            snprintf(scope[depth], sizeof scope[depth], "%s", *w1 ? w1 : *w2 ? w2 : w3);
            kind[depth++] = k;
            continue;
        }
        if (*p == '}') {
            if (depth > 0) depth--;
            continue;
        }
        if (depth == 0 || kind[depth - 1] == 1) continue;
        if (strncmp(p, "reserved", 8) == 0 || strncmp(p, "option ", 7) == 0) continue;
        /* field line: [label] type name = number ...; */
        char label[32] = "", type[128], name[128];
        if (sscanf(p, "%31s %127s %127s = %d%n", label, type, name, &num, &n) == 4 &&
            (strcmp(label, "optional") == 0 || strcmp(label, "repeated") == 0 ||
             strcmp(label, "required") == 0)) {
        } else if (sscanf(p, "%127s %127s = %d%n", type, name, &num, &n) == 3) {
            label[0] = '\0';
        } else {
            continue;
        }
        /* message path: the enclosing message scopes joined by '.' */
        char msg[512] = "";
        for (int i = 0; i < depth; i++) {
            if (kind[i] != 0) continue;
            if (*msg) strcat(msg, ".");
            strcat(msg, scope[i]);
        }
        const ProtobufCMessageDescriptor *md = find_msg(msg);
        checked++;
        if (getenv("PROTO_DEBUG")) printf("%s.%s\n", msg, name);
        if (!md) {
            printf("MISSING message %s (field %s)\n", msg, name);
            bad++;
            continue;
        }
        const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field_by_name(md, name);
        if (!fd) {
            printf("MISSING field %s.%s = %d\n", msg, name, num);
            bad++;
        } else if ((int)fd->id != num) {
            printf("NUMBER %s.%s: reference %d, ours %u\n", msg, name, num, fd->id);
            bad++;
        } else if (!type_matches(fd, type)) {
            printf("TYPE %s.%s: reference %s\n", msg, name, type);
            bad++;
        } else if (strcmp(label, "repeated") == 0 && fd->label != PROTOBUF_C_LABEL_REPEATED) {
            printf("LABEL %s.%s: reference is repeated\n", msg, name);
            bad++;
        }
    }
    fclose(f);
    printf("%d fields checked against %s, %d mismatches\n", checked, path, bad);
    return bad || checked < 100 ? 1 : 0;
}
