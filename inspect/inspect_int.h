/* inspect/inspect_int.h: what the inspect folder's commands share; not an
 * API. */
#ifndef RIOT_INSPECT_INSPECT_INT_H
#define RIOT_INSPECT_INSPECT_INT_H

#include "formats/log.h"

/* Opens the log a command's operands name, argv[optind..argc): a file or
 * the segments of one, in order (*logs points into argv). NULL after
 * printing why, with the command's exit status in *status: a usage error
 * when no FILE is named, a failure when the log cannot be opened. */
struct riot_reader *inspect_open_logs(int argc, char **argv, struct riot_logs *logs, int *status);

#endif
