/* cmd_core.c — commands about the shell itself: help, quit, stages, source. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"
#include "fx/fx_ir.h"
#include "onnx/onnx_ir.h"
#include "repl/cmd_handlers.h"
#include "repl/commands.h"

int cmd_help(session *s, int argc, char **argv)
{
    if (argc > 1 && !command_lookup(s, argv[1], "help: ")) return 1;
    command_print_help(s->out, argc > 1 ? argv[1] : NULL, session_width(s));
    return 0;
}

int cmd_quit(session *s, int argc, char **argv)
{
    s->quit = true;
    return 0;
}

int cmd_stages(session *s, int argc, char **argv)
{
    bool json;
    if (!cmd_json_option(s, &argc, argv, 0, &json)) return 1;
    if (json) {
        strbuf sb;
        sb_init(&sb);
        cmd_json_stages(s, &sb);
        session_write(s, sb.s, sb.len);
        sb_free(&sb);
        return 0;
    }
    for (int i = 0; i < SESSION_MAX_STAGES; i++) {
        const stage *st = &s->stages[i];
        fprintf(s->out, "%c %-10s  ", i == s->current ? '*' : ' ', st->name);
        switch (st->kind) {
        case PL_EMPTY: fputs("-", s->out); break;
        case PL_FX: fputs("FX program", s->out); break;
        case PL_ONNX: fputs("ONNX model", s->out); break;
        }
        if (st->source) fprintf(s->out, "  (%s)", st->source);
        fputc('\n', s->out);
    }
    return 0;
}

int cmd_source(session *s, int argc, char **argv)
{
    static int depth;
    if (depth >= 16) {
        session_error(s, "source: scripts nested too deeply (16 levels)");
        return 1;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        session_error(s, "source: cannot open %s: %s", argv[1], strerror(errno));
        return 1;
    }
    depth++;
    bool was_interactive = s->interactive;
    s->interactive = false;   /* a script reports FILE:LINE: like any non-interactive input */
    int rc = repl_run_stream(s, f, argv[1]);
    s->interactive = was_interactive;
    depth--;
    fclose(f);
    return rc;
}
