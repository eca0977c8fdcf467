/*  completion.c: iofleet completion bash: a bash completion script printed
    from the command table (commands.h), so that it knows every command,
    subcommand and option the help does. */
#include "cli.h"
#include "commands.h"
#include "util.h"

#include <string.h>

/* Words go into the script between single quotes. */
static void
quoted (FILE *f, const char *s)
{
    IOF_ASSERT (!strchr (s, '\''));
    fprintf (f, "'%s'", s);
}

/* An option's value is a path when its placeholder names one. */
static bool
value_is_path (const command_opt_t *o)
{
    return strstr (o->arg, "FILE") || strstr (o->arg, "DIR");
}

/* The case branch of one (sub)command: values after its options, then
   which options it has and what its arguments are. */
static void
command_case (FILE *f, const command_t *c)
{
    fprintf (f, "        '%s%s%s')\n", c->name, c->sub ? " " : "", c->sub ? c->sub : "");
    bool any = false;
    for (const command_opt_t *o = c->opts; o && o->name; o++)
        any |= o->arg != NULL;
    if (any) {
        fprintf (f, "            case $prev in\n");
        for (const command_opt_t *o = c->opts; o && o->name; o++) {
            if (!o->arg)
                continue;
            fprintf (f, "                %s%s%s)", o->name, o->alias ? "|" : "",
                     o->alias ? o->alias : "");
            if (o->values) {
                fprintf (f, " _iofleet_reply -W ");
                quoted (f, o->values);
                fprintf (f, "; return ;;\n");
            } else if (value_is_path (o))
                fprintf (f, " _iofleet_files; return ;;\n");
            else
                fprintf (f, " return ;;\n");
        }
        fprintf (f, "            esac\n");
    }
    fprintf (f, "            opts='");
    for (const command_opt_t *o = c->opts; o && o->name; o++)
        if (o->help)
            fprintf (f, "%s%s%s ", o->name, o->alias ? " " : "", o->alias ? o->alias : "");
    fprintf (f, "--help'");
    if (c->flags & COMMAND_FILES)
        fprintf (f, "; args=files");
    else if (c->flags & COMMAND_NAMES)
        fprintf (f, "; args=names");
    fprintf (f, " ;;\n");
}

static void
bash_script (FILE *f)
{
    fprintf (f,
"# bash completion for iofleet, printed by 'iofleet completion bash' from the\n"
"# command table of iofleet %s.\n"
"_iofleet_reply ()\n"
"{\n"
"    mapfile -t COMPREPLY < <(compgen \"$@\" -- \"$cur\")\n"
"}\n"
"\n"
"_iofleet_files ()\n"
"{\n"
"    compopt -o filenames 2>/dev/null\n"
"    _iofleet_reply -f\n"
"}\n"
"\n"
"# The subcommands of a group, none for a plain command.\n"
"_iofleet_subs ()\n"
"{\n"
"    case $1 in\n", IOF_VERSION);
    for (const command_t *g = commands; g->name; g++) {
        if (g->sub || !commands_is_group (g->name))
            continue;
        fprintf (f, "        %s) echo '", g->name);
        const char *sep = "";
        for (const command_t *s = commands; s->name; s++)
            if (s->sub && strcmp (s->name, g->name) == 0) {
                fprintf (f, "%s%s", sep, s->sub);
                sep = " ";
            }
        fprintf (f, "' ;;\n");
    }
    fprintf (f,
"    esac\n"
"}\n"
"\n"
"_iofleet ()\n"
"{\n"
"    local cur=${COMP_WORDS[COMP_CWORD]} prev='' i=1\n"
"    [ \"$COMP_CWORD\" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}\n"
"    COMPREPLY=()\n"
"    # iofleet's own options, then the command.\n"
"    while [ \"$i\" -lt \"$COMP_CWORD\" ]; do\n"
"        case ${COMP_WORDS[i]} in\n");
    /* The global options that take a value skip it. */
    const char *sep = "            ";
    for (const command_opt_t *o = commands_global_opts; o->name; o++)
        if (o->arg) {
            fprintf (f, "%s%s", sep, o->name);
            sep = "|";
        }
    fprintf (f, ") i=$((i + 2)) ;;\n"
"            -*) i=$((i + 1)) ;;\n"
"            *) break ;;\n"
"        esac\n"
"    done\n"
"    if [ \"$i\" -ge \"$COMP_CWORD\" ]; then\n"
"        case $prev in\n");
    for (const command_opt_t *o = commands_global_opts; o->name; o++)
        if (o->arg)
            fprintf (f, "            %s)%s return ;;\n", o->name,
                     value_is_path (o) ? " _iofleet_files;" : "");
    fprintf (f, "        esac\n"
"        case $cur in\n"
"            -*) _iofleet_reply -W '");
    sep = "";
    for (const command_opt_t *o = commands_global_opts; o->name; o++) {
        fprintf (f, "%s%s%s%s", sep, o->name, o->alias ? " " : "", o->alias ? o->alias : "");
        sep = " ";
    }
    fprintf (f, "' ;;\n"
"            *) _iofleet_reply -W \"$_iofleet_commands\" ;;\n"
"        esac\n"
"        return\n"
"    fi\n"
"    local cmd=${COMP_WORDS[i]} n=$((COMP_CWORD - i)) subs opts='' args=''\n"
"    subs=$(_iofleet_subs \"$cmd\")\n"
"    if [ -n \"$subs\" ]; then\n"
"        if [ \"$n\" -eq 1 ]; then\n"
"            _iofleet_reply -W \"$subs\"\n"
"            return\n"
"        fi\n"
"        cmd=\"$cmd ${COMP_WORDS[i+1]}\"\n"
"        n=$((n - 1))\n"
"    fi\n"
"    case $cmd in\n");
    for (const command_t *c = commands; c->name; c++)
        if (c->sub || !commands_is_group (c->name))
            command_case (f, c);
    fprintf (f,
"        *) return ;;\n"
"    esac\n"
"    case $cur in\n"
"        -*) _iofleet_reply -W \"$opts\" ;;\n"
"        *)\n"
"            case $args in\n"
"                files) _iofleet_files ;;\n"
"                names)\n"
"                    if [ \"$n\" -eq 1 ]; then\n"
"                        _iofleet_reply -W \"$_iofleet_commands\"\n"
"                    elif [ \"$n\" -eq 2 ]; then\n"
"                        _iofleet_reply -W \"$(_iofleet_subs \"$prev\")\"\n"
"                    fi ;;\n"
"            esac ;;\n"
"    esac\n"
"}\n"
"\n"
"_iofleet_commands='");
    sep = "";
    for (const command_t *c = commands; c->name; c++)
        if (!c->sub) {
            fprintf (f, "%s%s", sep, c->name);
            sep = " ";
        }
    fprintf (f, "'\n"
"complete -F _iofleet iofleet\n");
}

int
cmd_completion (int argc, char **argv)
{
    /* commands_check has made sure argv[1] is a shell this knows. */
    if (argc != 2) {
        fprintf (stderr, "iofleet completion %s: unexpected argument '%s' (see iofleet help "
                 "completion)\n", argv[1], argv[2]);
        return 2;
    }
    if (strcmp (argv[1], "bash") == 0)
        bash_script (stdout);
    return 0;
}
