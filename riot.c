/* riot.c: main(). Parses the command name and dispatches; nothing else.
 * Each command lives in its folder and brings its own handler and help. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "anon/anon.h"
#include "capture/capture.h"
#include "convert/convert.h"
#include "inspect/inspect.h"
#include "lib/cli.h"
#include "replay/replay.h"
#include "report/report.h"
#include "top/top.h"

struct riot_command {
	const char *name;
	int (*run)(int argc, char **argv);	/* argv[0] is the command name */
	const char *summary;
	const char *help;			/* full text for --help */
	void (*help_more)(FILE *out);		/* what follows it, made from a
						 * table (NULL: nothing) */
};

static int cmd_help(int argc, char **argv);

static const char help_help[] =
	"Usage: riot help [COMMAND]\n"
	"\n"
	"Lists riot's commands, or prints the help of one.\n";

/* `riot version` says whether capture loads here: capture/ knows how,
 * inspect/ prints it. */
static void probe_capture(struct version_capture *vc)
{
	struct capture_load cl;
	int err = capture_check_load(&cl, vc->why, sizeof(vc->why));

	vc->works = !err ? 1 : err == -EPERM ? -EPERM : 0;
	vc->loaded = cl.loaded;
	vc->total = cl.total;
	snprintf(vc->fallbacks, sizeof(vc->fallbacks), "%s", cl.fallbacks);
}

static int cmd_version_main(int argc, char **argv)
{
	return cmd_version(argc, argv, probe_capture);
}

static const struct riot_command commands[] = {
	{ "capture", cmd_capture, "record the file I/O of a command, processes, a cgroup or the host", cmd_capture_help, NULL },
	{ "top", cmd_top, "watch file I/O live on the terminal, or browse a log", cmd_top_help, NULL },
	{ "init", cmd_init, "create the file tree a log expects, under a root", cmd_init_help, NULL },
	{ "replay", cmd_replay, "replay a log's I/O under a root, and measure it", cmd_replay_help,
	  cmd_replay_help_more },
	{ "report", cmd_report, "summarise captures and replays into SQLite; show them", cmd_report_help, NULL },
	{ "compare", cmd_compare, "put runs side by side", cmd_compare_help, NULL },
	{ "info", cmd_info, "summarise a .riot log", cmd_info_help, NULL },
	{ "dump", cmd_dump, "print every record of a .riot log", cmd_dump_help, NULL },
	{ "import", cmd_import, "turn another tool's trace (strace) into a .riot log", cmd_import_help,
	  cmd_import_help_more },
	{ "export", cmd_export, "write a log for another tool (fio iolog)", cmd_export_help,
	  cmd_export_help_more },
	{ "anonymize", cmd_anonymize, "copy a log with its names replaced by keyed hashes",
	  cmd_anonymize_help, NULL },
	{ "version", cmd_version_main, "riot, library and kernel feature versions", cmd_version_help, NULL },
	{ "help", cmd_help, "list commands or show one's help", help_help, NULL },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void list_commands(FILE *out)
{
	fputs("Usage: riot <command> [options]\n\n"
	      "riot records the file I/O of programs and replays it on other storage.\n\n"
	      "Commands:\n", out);
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fputs("\nRun 'riot <command> --help' for a command's options.\n", out);
}

/* Exact name, or a unique prefix of one ("inf" -> info). */
static const struct riot_command *find_command(const char *name)
{
	const struct riot_command *found = NULL;
	size_t len = strlen(name);

	for (size_t i = 0; i < N_COMMANDS; i++) {
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
		if (len && strncmp(commands[i].name, name, len) == 0) {
			if (found)
				return NULL;
			found = &commands[i];
		}
	}
	return found;
}

/* An unknown name, or a prefix of several: say which. */
static void report_no_command(const char *name)
{
	size_t len = strlen(name), n = 0;

	for (size_t i = 0; i < N_COMMANDS; i++)
		if (len && strncmp(commands[i].name, name, len) == 0)
			n++;
	if (n < 2) {
		fprintf(stderr, "riot: unknown command '%s'\nTry 'riot help'.\n", name);
		return;
	}
	fprintf(stderr, "riot: '%s' is ambiguous:", name);
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (strncmp(commands[i].name, name, len) == 0)
			fprintf(stderr, " %s", commands[i].name);
	fputs("\nTry 'riot help'.\n", stderr);
}

static void print_help(const struct riot_command *c)
{
	fputs(c->help, stdout);
	if (c->help_more)
		c->help_more(stdout);
}

static int cmd_help(int argc, char **argv)
{
	const struct riot_command *c;

	if (argc < 2) {
		list_commands(stdout);
		return RIOT_EXIT_OK;
	}
	if (argc > 2)
		return riot_usage("takes at most one command name");
	c = find_command(argv[1]);
	if (!c) {
		report_no_command(argv[1]);
		return RIOT_EXIT_USAGE;
	}
	print_help(c);
	return RIOT_EXIT_OK;
}

static int wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return 0;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const struct riot_command *c;

	if (argc < 2) {
		list_commands(stderr);
		return RIOT_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		list_commands(stdout);
		return RIOT_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0)
		argv[1] = "version";
	c = find_command(argv[1]);
	if (!c) {
		report_no_command(argv[1]);
		return RIOT_EXIT_USAGE;
	}
	riot_cmd = c->name;
	if (wants_help(argc - 1, argv + 1)) {
		print_help(c);
		return RIOT_EXIT_OK;
	}
	argv[1] = (char *)c->name;
	return c->run(argc - 1, argv + 1);
}
