/* formats/convert.h: riot's bridges to other tools' formats.
 *
 *   riot import strace LOG -o FILE   strace -f -ttt -T [-y|-yy] text -> .riot
 *   riot export fio FILE -o DIR      .riot -> fio iolog v3 files + job file
 *
 * The commands are thin; the work is in the functions below, which tests
 * and the fuzz target call directly. Functions return 0 or -errno; where
 * they take err, a one-line reason is written there and nothing is printed.
 */
#ifndef RIOT_FORMATS_CONVERT_H
#define RIOT_FORMATS_CONVERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "log.h"

int cmd_import(int argc, char **argv);
extern const char cmd_import_help[];
int cmd_export(int argc, char **argv);
extern const char cmd_export_help[];

/* ---- strace import ---- */

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

/* ---- fio export ---- */

enum fio_engine { FIO_ENGINE_IO_URING, FIO_ENGINE_PSYNC };

/* Why an operation of the log is not in the iologs. */
enum fio_skip {
	FIO_SKIP_FAILED,	/* the call failed or moved no bytes */
	FIO_SKIP_UNRESOLVED,	/* the model could not tell the file */
	FIO_SKIP_NOT_FILE,	/* pipe, socket, /proc, /sys, /dev */
	FIO_SKIP_NAME,		/* path fio cannot name: whitespace, or
				 * longer than fio's 256 bytes */
	FIO_SKIP_UNSUPPORTED,	/* data ops fio has no verb for: mmap,
				 * io_uring, truncate, fallocate, ... */
	FIO_SKIP_SYMLINK,	/* a path through a symlink the log shows
				 * (readlink, symlink, lstat): fio would
				 * follow it with nothing to keep it in the
				 * root */
	FIO_SKIP_COUNT
};

const char *fio_skip_name(enum fio_skip s);

/* Receives, in log order, each data operation fio would be given: the
 * captured thread, the file's name (root + captured path), the verb
 * ("read", "write", "sync", "datasync"), its offset and length (0 for
 * syncs). The name is valid during the call only. 0, or -errno to stop. */
typedef int (*fio_io_fn)(void *arg, uint32_t tid, const char *name, const char *verb,
			 uint64_t off, uint64_t len);

struct fio_export_opts {
	const char *root;	/* absolute directory the captured tree is
				 * under (riot init LOG --root ROOT) */
	enum fio_engine engine;
	unsigned iodepth;	/* io_uring only; 0: 1 (a thread blocks in
				 * each call, as captured) */
	bool no_stall;		/* replay_no_stall=1: as fast as possible */
	fio_io_fn on_io;	/* set: no files are written (dir unused),
				 * every data operation goes here instead */
	void *on_io_arg;
};

struct fio_export_stats {
	uint64_t records;	/* log records read */
	uint64_t jobs;		/* one per captured thread with data ops */
	uint64_t reads, writes, syncs, opens, closes;
	uint64_t bytes_read, bytes_written;
	uint64_t skipped[FIO_SKIP_COUNT];
	uint64_t duration_us;	/* last timestamp in the iologs */
};

/* Writes DIR/riot.fio and DIR/riot-TID.iolog per captured thread; with
 * o->on_io, writes nothing and hands it every data operation instead. */
int fio_export(const char *log_path, const char *dir, const struct fio_export_opts *o,
	       struct fio_export_stats *st, char *err, size_t errlen);

#endif
