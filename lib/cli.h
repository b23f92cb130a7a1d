/* lib/cli.h: the one way riot's commands report errors and exit.
 *
 * Exit codes: 0 success, 1 runtime error, 2 usage error. A runtime error is
 * one line on stderr, "riot: <command>: <what went wrong>", printed once, by
 * the code that decides to give up (usually the command's handler).
 */
#ifndef RIOT_LIB_CLI_H
#define RIOT_LIB_CLI_H

#include <stdint.h>

enum { RIOT_EXIT_OK = 0, RIOT_EXIT_FAIL = 1, RIOT_EXIT_USAGE = 2 };

/* Name of the running command ("info"); set by main() before dispatch. */
extern const char *riot_cmd;

/* "riot: <cmd>: <message>\n" on stderr. */
void riot_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* riot_err() plus a hint at --help; returns RIOT_EXIT_USAGE. */
int riot_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Strict number parsing: the whole string, in range. 0 or -EINVAL/-ERANGE. */
int riot_parse_u64(const char *s, uint64_t *out);
int riot_parse_double(const char *s, double *out);
/* A byte count: decimal digits with an optional K, M or G (KiB, MiB,
 * GiB; either case). 0 or -EINVAL/-ERANGE. */
int riot_parse_size(const char *s, uint64_t *out);

/* Whether path can be written as a command's output, checked before any
 * work so a run is not lost at its end: an existing file is opened for
 * writing (not truncated), a missing one is created and removed again.
 * 0 or -errno (EISDIR, ENOENT for a missing directory, EROFS, EACCES). */
int riot_check_output(const char *path);

/* "12.3 MiB" into buf; returns buf. */
const char *riot_fmt_bytes(uint64_t bytes, char *buf, unsigned len);
/* A time in the one style every human output uses: "812 ns", "12.3 us",
 * "4.56 ms", "1.23 s" (a space before the unit, as for bytes); returns
 * buf. */
const char *riot_fmt_ns(uint64_t ns, char *buf, unsigned len);

#endif
