/* convert/strace.h: the strace importer (`riot import strace`).
 *
 * Reads the text of `strace -f -ttt -T [-y|-yy]` and makes the records a
 * capture would have made. The command is thin (cmd_import_strace.c); the
 * work is in the functions below, which tests and the fuzz target call
 * directly. Functions return 0 or -errno; where they take err, a one-line
 * reason is written there and nothing is printed.
 */
#ifndef RIOT_CONVERT_STRACE_H
#define RIOT_CONVERT_STRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/log.h"

/* Why a line of strace output was not imported. */
enum strace_skip {
	STRACE_SKIP_OTHER_SYSCALL,	/* a syscall riot does not record */
	STRACE_SKIP_SIGNAL,		/* "--- SIGCHLD {...} ---" */
	STRACE_SKIP_NO_RESULT,		/* "= ?": exit_group, a task killed
					 * inside the call */
	STRACE_SKIP_RESTARTED,		/* ERESTART*: the kernel restarts it */
	STRACE_SKIP_ORPHAN_RESUME,	/* "<... x resumed>" with no matching
					 * "<unfinished ...>" */
	STRACE_SKIP_UNFINISHED,		/* "<unfinished ...>" never resumed */
	STRACE_SKIP_NO_TIMESTAMP,	/* not run with -ttt */
	STRACE_SKIP_BAD_ARGS,		/* arguments or result that do not
					 * parse for that syscall */
	STRACE_SKIP_TOO_LONG,		/* a line over STRACE_LINE_MAX bytes */
	STRACE_SKIP_MESSAGE,		/* strace's own notes ("strace: ...",
					 * "+++ superseded ...") */
	STRACE_SKIP_UNPARSED,		/* anything else (a program's output
					 * mixed into strace's stderr) */
	STRACE_SKIP_COUNT
};

/* Longest line imported; longer ones (huge -s buffers) are skipped. */
#define STRACE_LINE_MAX (1u << 20)

/* "other_syscall", "signal", ...: summary and JSON names. */
const char *strace_skip_name(enum strace_skip s);

struct strace_stats {
	uint64_t lines;
	uint64_t syscalls;		/* SYSCALL records written */
	uint64_t procs;			/* PROC records (fork, exec, exit) */
	uint64_t snap_fds;		/* fds first seen through a -y
					 * annotation, written as SNAP_FD */
	uint64_t snap_procs;		/* cwds from AT_FDCWD</dir> or --cwd */
	uint64_t forks_guessed;		/* a child seen before its parent's
					 * clone returned while several clones
					 * were pending: tied to the oldest */
	uint64_t unknown_flags;		/* flag names riot does not know
					 * (their bits are left out) */
	uint64_t skipped[STRACE_SKIP_COUNT];
	uint64_t skipped_total;
	uint64_t t_first, t_last;	/* ns, wall clock */
};

struct strace_import_opts {
	uint32_t pid;		/* pid of lines without a pid prefix; 0: the
				 * single live task, else one learned from
				 * the trace (see cmd_import_help) */
	const char *cwd;	/* cwd of processes the trace does not show
				 * being forked, when no AT_FDCWD</dir>
				 * annotation says it; NULL: unknown */
};

/* Receives every record the importer makes, in log order (its strings are
 * valid during the call only); 0, or -errno to stop the import with it. */
typedef int (*strace_emit_fn)(const struct riot_rec *r, void *arg);

struct strace_importer;

/* NULL + errno. */
struct strace_importer *strace_importer_new(const struct strace_import_opts *o,
					    strace_emit_fn emit, void *arg);
/* One line without its newline (it may hold any bytes, NUL included).
 * 0, or what emit returned, or -ENOMEM. */
int strace_importer_line(struct strace_importer *im, const char *line, size_t len);
/* Counts calls left unfinished. Call once, after the last line. */
int strace_importer_finish(struct strace_importer *im);
const struct strace_stats *strace_importer_stats(const struct strace_importer *im);
void strace_importer_free(struct strace_importer *im);

/* Streams in (lines of any length, in bounded memory) into a new log at
 * out_path. The header's clock is the wall clock: boot_to_wall_ns is 0 and
 * start_t is the first timestamp, so times line up with the trace. Input
 * that gives no record at all (no strace lines, lines without -ttt
 * timestamps) writes no log: -ENODATA, with what was expected in err. */
int strace_import_file(FILE *in, const char *in_name, const char *out_path,
		       const struct strace_import_opts *o, const char *cmdline,
		       struct strace_stats *st, char *err, size_t errlen);

#endif
