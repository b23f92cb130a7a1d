/* convert/convert.h: riot's bridges to other tools' formats, one table.
 *
 *   riot import KIND ...    another tool's trace -> .riot  (strace)
 *   riot export KIND ...    .riot -> another tool's input  (fio)
 *
 * A converter is one file with its command (convert/cmd_import_KIND.c or
 * cmd_export_KIND.c), which defines its descriptor riot_import_KIND or
 * riot_export_KIND, and one line in the tables of convert/converters.c;
 * `riot import` and `riot export` find it there, and their help lists
 * the table. Converters sit above the model (they resolve through it) and
 * below nothing: formats/ (the log codec) never calls them.
 */
#ifndef RIOT_CONVERT_CONVERT_H
#define RIOT_CONVERT_CONVERT_H

#include <stdio.h>

struct riot_converter {
	const char *kind;		/* "strace", "fio" */
	int (*run)(int argc, char **argv);	/* argv[0] is the kind */
	const char *summary;		/* one line for the lists */
	const char *help;		/* the kind's full help */
};

/* The commands: `riot import KIND ARGS` runs the importer KIND. */
int cmd_import(int argc, char **argv);
extern const char cmd_import_help[];
void cmd_import_help_more(FILE *out);
int cmd_export(int argc, char **argv);
extern const char cmd_export_help[];
void cmd_export_help_more(FILE *out);

#endif
