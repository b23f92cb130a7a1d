/* inspect/open_logs.c: the log named by a command's operands. */
#include <getopt.h>

#include "inspect/inspect_int.h"
#include "lib/cli.h"

struct riot_reader *inspect_open_logs(int argc, char **argv, struct riot_logs *logs, int *status)
{
	struct riot_reader *rd;
	char err[512];

	if (argc - optind < 1) {
		*status = riot_usage("needs a FILE (or the segments of one, in order)");
		return NULL;
	}
	*logs = (struct riot_logs){ (const char *const *)argv + optind, (unsigned)(argc - optind) };
	rd = riot_reader_open_logs(logs, err, sizeof(err));
	if (!rd) {
		riot_err("%s", err);
		*status = RIOT_EXIT_FAIL;
	}
	return rd;
}
