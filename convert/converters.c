/* convert/converters.c: the tables of importers and exporters, and the
 * `riot import` and `riot export` commands that dispatch through them
 * (convert/convert.h). A new converter is its command file, defining its
 * descriptor riot_import_KIND or riot_export_KIND, plus one line here. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "convert/convert.h"
#include "lib/cli.h"

#define IMPORTERS \
	CONVERTER(import, strace)
#define EXPORTERS \
	CONVERTER(export, fio)

#define CONVERTER(dir, kind) extern const struct riot_converter riot_##dir##_##kind;
IMPORTERS
EXPORTERS
#undef CONVERTER

#define CONVERTER(dir, kind) &riot_##dir##_##kind,
static const struct riot_converter *const importers[] = { IMPORTERS };
static const struct riot_converter *const exporters[] = { EXPORTERS };
#undef CONVERTER

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

const char cmd_import_help[] =
	"Usage: riot import KIND ARGS...\n"
	"\n"
	"Turns another tool's trace into a .riot log that info, dump, init,\n"
	"replay and report read like a captured one.\n";

const char cmd_export_help[] =
	"Usage: riot export KIND ARGS...\n"
	"\n"
	"Writes a .riot log for another tool.\n";

static void list_kinds(FILE *out, const struct riot_converter *const *t, size_t n)
{
	fputs("\nKinds:\n", out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "  %-10s %s\n", t[i]->kind, t[i]->summary);
	for (size_t i = 0; i < n; i++) {
		fputs("\n", out);
		fputs(t[i]->help, out);
	}
}

void cmd_import_help_more(FILE *out)
{
	list_kinds(out, importers, N_OF(importers));
}

void cmd_export_help_more(FILE *out)
{
	list_kinds(out, exporters, N_OF(exporters));
}

/* "strace, fio" */
static void kinds(const struct riot_converter *const *t, size_t n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", t[i]->kind);
}

static int dispatch(const struct riot_converter *const *t, size_t n, int argc, char **argv)
{
	char known[256];

	kinds(t, n, known, sizeof(known));
	if (argc < 2)
		return riot_usage("give a format: %s", known);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(argv[1], t[i]->kind) == 0) {
			optind = 1;
			return t[i]->run(argc - 1, argv + 1);
		}
	}
	return riot_usage("unknown format '%s' (known: %s)", argv[1], known);
}

int cmd_import(int argc, char **argv)
{
	return dispatch(importers, N_OF(importers), argc, argv);
}

int cmd_export(int argc, char **argv)
{
	return dispatch(exporters, N_OF(exporters), argc, argv);
}
