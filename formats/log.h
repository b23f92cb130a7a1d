/* formats/log.h: the .riot log: its records, a writer and a streaming reader.
 *
 * The on-disk layout is specified in formats/FORMAT.md; this header is the
 * in-memory view. Every reader of a log (model/, info, dump, report) goes
 * through riot_reader; every producer (capture/, importers, tests) through
 * riot_writer. Functions return 0 or -errno unless they say otherwise.
 */
#ifndef RIOT_FORMATS_LOG_H
#define RIOT_FORMATS_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/syscalls.h"

#define RIOT_FMT_MAJOR 2	/* 2: time fields stored as byte planes */
#define RIOT_FMT_MINOR 0
/* Minor versions of major 1: 1: permission bits, xattr values; 2: block
 * sequence records; 3: end sections; 4: ioctl clone sources and ranges,
 * mremap and madvise of files; 5: asynchronous requests and their ctx
 * field; 6: segments of a rotated capture; 7: the probe time of a
 * duration; 8: the capture's fallbacks. Format 2.0 has all of 1.8. */
#define RIOT_FMT_MAJOR_OLDEST 1	/* the oldest major a reader reads */

#define RIOT_VALUE_LEN_MAX 65535	/* bytes of a value a log may hold */
#define RIOT_STR_LEN_MAX 65535	/* bytes of a string (path, comm) a log may
				 * hold: a writer cuts longer ones, flagged */

/* ---- syscall table (from bpf/syscalls.def) ---- */

struct riot_sys_info {
	const char *name;	/* kernel name: "openat", "pread64"; for an
				 * asynchronous request "io_uring:read" */
	int nr;			/* x86_64 syscall number; -1 for an
				 * asynchronous request (RIOT_SF_ASYNC) */
	enum riot_class cls;
	unsigned flags;		/* RIOT_SF_* */
	enum riot_arg args[6];
};

/* NULL when sys >= RIOT_SYS_COUNT (a newer log's syscall). */
const struct riot_sys_info *riot_sys_info(unsigned sys);
/* RIOT_SYS_* for a kernel name, or -ENOENT. */
int riot_sys_by_name(const char *name);
/* The value of a symbolic constant as strace and the man pages print it
 * (O_CREAT, AT_REMOVEDIR, CLONE_VM, SIGCHLD, SEEK_END, F_DUPFD, ...), name
 * being n bytes without a NUL: 0 or -ENOENT. */
int riot_sym_value(const char *name, size_t n, uint64_t *v);
/* open(2) flags by name, "O_RDWR|O_CREAT|O_CLOEXEC" (bits without a name
 * follow in octal); returns buf. */
const char *riot_open_flags_str(uint64_t flags, char *buf, size_t len);
/* The errno name of a failed call's result: "ENOENT" for -2; NULL for a
 * success or a number with no name. */
const char *riot_errno_str(int64_t ret);
/* The name of the S_IFMT bits of ftype ("S_IFREG"), or NULL. */
const char *riot_ftype_str(uint32_t ftype);
struct riot_syscall;
/* The open(2) flags of a record of class open: creat's are implied
 * (O_CREAT|O_WRONLY|O_TRUNC), the others' recorded. */
uint64_t riot_open_flags(const struct riot_syscall *sc);
/* Puts val, the argument of role role, in its field of sc and sets the
 * field's RIOT_HAS_* bit: fds (as int32), counts, offsets, flags, modes,
 * commands, plain arguments and addresses, iovec counts, uid, gid and the
 * asynchronous context. false, sc untouched, for the other roles (paths,
 * buffers, and the pointers whose contents the caller reads itself). */
bool riot_put_arg(struct riot_syscall *sc, enum riot_arg role, uint64_t val);
/* "data_read", "open", ...; "unknown" out of range. */
const char *riot_class_name(unsigned cls);

/* ---- records ---- */

enum riot_rec_type {
	RIOT_REC_STRING = 1,	/* an interned string (path, comm) */
	RIOT_REC_SYSCALL = 2,	/* one completed syscall */
	RIOT_REC_PROC = 3,	/* fork/clone, exec, exit */
	RIOT_REC_SNAP_PROC = 4,	/* start state: a process and its cwd */
	RIOT_REC_SNAP_FD = 5,	/* start state: an fd open at the start */
	RIOT_REC_DROP = 6,	/* events lost in the ring buffer */
	RIOT_REC_TYPE_MAX	/* one past the last type this riot knows */
};

/* A string is always passed as pointer + truncated flag. Writers copy it;
 * readers hand out pointers valid until the next riot_reader_next(). */
struct riot_str {
	const char *s;		/* NUL-terminated, NULL when absent */
	bool truncated;		/* capture cut it (PATH_MAX, comm length) */
};

/* Presence bits of struct riot_syscall's optional fields. */
enum {
	RIOT_HAS_FD = 1u << 0,
	RIOT_HAS_FD2 = 1u << 1,
	RIOT_HAS_DIRFD = 1u << 2,
	RIOT_HAS_DIRFD2 = 1u << 3,
	RIOT_HAS_PATH = 1u << 4,
	RIOT_HAS_PATH2 = 1u << 5,
	RIOT_HAS_OFF = 1u << 6,
	RIOT_HAS_OFF2 = 1u << 7,
	RIOT_HAS_COUNT = 1u << 8,
	RIOT_HAS_FLAGS = 1u << 9,
	RIOT_HAS_MODE = 1u << 10,
	RIOT_HAS_CMD = 1u << 11,
	RIOT_HAS_ARG = 1u << 12,
	RIOT_HAS_IOVCNT = 1u << 13,
	RIOT_HAS_UID = 1u << 14,
	RIOT_HAS_GID = 1u << 15,
	RIOT_HAS_SIZE = 1u << 16,	/* file size at open / from stat */
	RIOT_HAS_FTYPE = 1u << 17,	/* S_IFMT bits at open / from stat */
	RIOT_HAS_INO = 1u << 18,
	RIOT_HAS_DEV = 1u << 19,
	RIOT_HAS_CREATED = 1u << 20,	/* open created the file (FMODE_CREATED) */
	RIOT_HAS_PERM = 1u << 21,	/* permission bits at open / from stat */
	RIOT_HAS_VALUE = 1u << 22,	/* setxattr: the value's first bytes */
	RIOT_HAS_CTX = 1u << 23,	/* asynchronous request: its context */
};

/* One completed syscall. sys, pid, tid, t, dur and ret are always set; the
 * rest only where `has` says so (absent fields read as 0). */
struct riot_syscall {
	uint16_t sys;		/* RIOT_SYS_* */
	uint32_t pid, tid;	/* tgid and thread id */
	uint64_t t;		/* entry, ns of CLOCK_BOOTTIME */
	uint64_t dur;		/* exit - entry, ns */
	int64_t ret;		/* return value; -errno on failure */
	uint32_t has;		/* RIOT_HAS_* */
	int32_t fd, fd2, dirfd, dirfd2;
	struct riot_str path, path2;	/* as passed, not resolved */
	uint64_t off, off2, count;
	uint64_t flags;
	uint32_t mode, cmd;
	uint64_t arg;
	uint32_t iovcnt, uid, gid;
	uint64_t size, ino, dev;
	uint32_t ftype;
	uint8_t created;
	uint32_t perm;		/* permission bits (07777) of the file's mode */
	const uint8_t *value;	/* setxattr: the first value_len bytes of the
				 * value (count is its size), at most
				 * RIOT_VALUE_MAX from capture; the reader's
				 * pointer lives until the next record */
	uint32_t value_len;
	uint64_t ctx;		/* RIOT_SF_ASYNC records: the io_uring ring or
				 * AIO context the request went through (an
				 * id stable within the capture), or the
				 * mapping's start address (mmap:*) */
};

enum riot_proc_kind {
	RIOT_PROC_FORK = 1,	/* a new task: process or thread */
	RIOT_PROC_EXEC = 2,
	RIOT_PROC_EXIT = 3,	/* a task exited */
};

struct riot_proc {
	uint8_t kind;		/* RIOT_PROC_* */
	uint32_t pid, tid;	/* the task the event happened to (for
				 * FORK: the parent) */
	uint64_t t;
	uint32_t child_pid, child_tid;	/* FORK */
	uint64_t clone_flags;		/* FORK: CLONE_* as passed */
	struct riot_str comm;		/* EXEC: new comm */
	struct riot_str path;		/* EXEC: file executed */
	int32_t exit_code;		/* EXIT: as wait(2) reports it */
};

/* Start state: a process found when capture began. */
struct riot_snap_proc {
	uint32_t pid, ppid;
	uint64_t t;		/* when it was read */
	struct riot_str cwd;
	struct riot_str comm;
};

/* Start state: an fd found open when capture began. */
struct riot_snap_fd {
	uint32_t pid;
	int32_t fd;
	uint64_t t;
	struct riot_str path;	/* /proc/PID/fd/N target */
	uint32_t flags;		/* O_* from fdinfo */
	uint64_t pos;		/* file position from fdinfo */
	uint64_t size, ino, dev;
	uint32_t ftype;		/* S_IFMT bits */
	uint32_t perm;		/* permission bits (07777), when has_perm */
	bool has_perm;		/* false in logs of format 1.0 */
};

struct riot_drop {
	uint32_t cpu;
	uint64_t count;		/* events lost */
	uint64_t t_first, t_last;	/* when the loss was noticed */
};

struct riot_string {
	uint32_t id;
	struct riot_str str;
};

struct riot_rec {
	uint8_t type;		/* RIOT_REC_*; a reader may also return a
				 * type it does not know (>= RIOT_REC_TYPE_MAX)
				 * with no fields decoded */
	union {
		struct riot_syscall sc;
		struct riot_proc proc;
		struct riot_snap_proc sproc;
		struct riot_snap_fd sfd;
		struct riot_drop drop;
		struct riot_string string;
	};
};

/* ---- header ---- */

/* A reader gives "" for a string the log does not carry; a writer omits
 * NULL strings. */
struct riot_log_header {
	uint16_t major, minor;
	const char *host;
	const char *kernel;	/* uname -r */
	const char *arch;	/* uname -m */
	const char *riot_version;
	const char *cmdline;	/* the riot command that wrote the log */
	const char *options;	/* capture options, free text */
	const char *target;	/* what was traced, free text */
	int64_t boot_to_wall_ns;	/* wall ns = boot ns + this */
	uint64_t start_t;	/* CLOCK_BOOTTIME ns at capture start */
	/* A segment of a rotated capture (format 1.6); segment 0: a whole
	 * log. Segments of one capture share capture_id and count up from 1;
	 * the first `restated` SNAP_PROC and SNAP_FD records of a segment
	 * after the first restate the state the segments before it left. */
	const char *capture_id;
	uint64_t segment;
	uint64_t restated;
	/* The time capture's probes add to each recorded duration (format
	 * 1.7), measured when the capture started: probe_calls newfstatat
	 * calls timed untraced from user space (median probe_untraced_ns)
	 * and through the probes (median recorded duration
	 * probe_recorded_ns); probe_ns is the difference (0 when the second
	 * is not longer). probe_calls 0: not measured. */
	uint64_t probe_ns, probe_calls, probe_untraced_ns, probe_recorded_ns;
	/* What the capture did without where the kernel lacked a tracepoint
	 * or helper its programs use (format 1.8): comma-separated names
	 * (`riot capture --check` says what each means), "" none. NULL when
	 * writing: not stated (a log not written by a capture). */
	const char *fallbacks;
	bool fallbacks_known;	/* read: the log states them ("" too) */
};

/* True when the log's format has what format 1.minor1 added (every 2.x
 * log has all of 1.8). */
static inline bool riot_fmt_has(const struct riot_log_header *h, unsigned minor1)
{
	return h->major > 1 || h->minor >= minor1;
}

/* ---- writer ---- */

struct riot_writer;

struct riot_writer_opts {
	int zstd_level;		/* 0: default (3) */
	size_t block_bytes;	/* raw bytes per block; 0: default */
	bool sync;		/* fdatasync after every block */
};

/* Creates (truncating) path and writes the header. NULL + errno on error. */
struct riot_writer *riot_writer_open(const char *path,
				     const struct riot_log_header *h,
				     const struct riot_writer_opts *o);
/* Appends one record; flushes a block when it is full. The record's strings
 * are copied. A STRING record may not be written (the writer interns). */
int riot_writer_add(struct riot_writer *w, const struct riot_rec *r);
/* Ends the current block now (capture calls it on a timer, so a killed
 * capture loses at most that interval). */
int riot_writer_flush(struct riot_writer *w);
/* Flushes, writes the end record, closes. Frees w even on error. */
int riot_writer_close(struct riot_writer *w);
/* End sections (format 1.3): summaries known only when the capture ends,
 * stored after the end record's totals, so a log cut short has none. */
enum riot_end_section_key {
	RIOT_END_DEVICES = 1,	/* what reached the block devices
				 * (formats/devices.h encodes it) */
	RIOT_END_SECTIONS_MAX = 8	/* sections a writer or reader keeps */
};
#define RIOT_END_SECTION_BYTES_MAX (512u << 10)
/* Sets end section key (copied; set again, it replaces), written by
 * riot_writer_close(). 0, -EINVAL (key or size out of range), -ENOMEM. */
int riot_writer_end_section(struct riot_writer *w, unsigned key, const void *p, size_t len);
/* Writes the open block, then closes without an end record: the log reads
 * as incomplete, with every record added. */
void riot_writer_abort(struct riot_writer *w);
/* Bytes written so far (header + complete blocks). */
uint64_t riot_writer_bytes(const struct riot_writer *w);
/* Records added so far, by type. */
uint64_t riot_writer_count(const struct riot_writer *w, unsigned type);
/* The latest time a record added so far reached (a syscall's exit). */
uint64_t riot_writer_t_last(const struct riot_writer *w);

/* ---- reader ---- */

struct riot_reader;

/* Totals from the end record (valid when riot_reader_complete()). */
struct riot_log_totals {
	uint64_t records[RIOT_REC_TYPE_MAX];
	uint64_t syscalls[RIOT_SYS_COUNT];
	uint64_t drops;		/* events lost, summed over drop records */
	uint64_t blocks;
	uint64_t t_last;	/* latest entry + duration seen */
};

/* Opens a log and reads its header. On failure returns NULL, sets errno,
 * and writes a one-line reason into err (at least 256 bytes). */
struct riot_reader *riot_reader_open(const char *path, char *err, size_t errlen);
const struct riot_log_header *riot_reader_header(const struct riot_reader *r);
/* Next record: 1 with *out filled, 0 at the end of the readable log,
 * -errno on corruption (riot_reader_error() says what and where).
 * A log that ends without its end record (a killed writer) returns every
 * complete block, then 0, and riot_reader_complete() is false. */
int riot_reader_next(struct riot_reader *r, struct riot_rec *out);
bool riot_reader_complete(const struct riot_reader *r);
/* End section key's bytes once the end record is read (the log is
 * complete), else NULL; valid until riot_reader_close(). */
const void *riot_reader_end_section(const struct riot_reader *r, unsigned key, size_t *len);
/* Why the log is incomplete ("ends inside block 7 at byte 123"), or NULL. */
const char *riot_reader_incomplete_reason(const struct riot_reader *r);
const char *riot_reader_error(const struct riot_reader *r);
/* End-record totals; NULL unless the log is complete and read to its end. */
const struct riot_log_totals *riot_reader_totals(const struct riot_reader *r);
uint64_t riot_reader_file_bytes(const struct riot_reader *r);
uint64_t riot_reader_blocks(const struct riot_reader *r);
void riot_reader_close(struct riot_reader *r);

/* A log as a command names it: one file, or the segments of a rotated
 * capture in order (formats/FORMAT.md, "Segments"). */
struct riot_logs {
	const char *const *paths;	/* in order; must outlive the reader */
	unsigned n;
};
/* One file as a log (a compound literal: lives in the enclosing block). */
#define RIOT_LOGS_ONE(path) (&(struct riot_logs){ (const char *const[]){ (path) }, 1 })

/* Opens l as one log (n == 1: riot_reader_open()). Every header is
 * checked first: the segments must share a capture id and follow each
 * other (segment k, k+1, ...; the first may be any). The header is the
 * first segment's; the start-state records a later segment restates are
 * skipped, so the records are those of the capture unrotated; totals add
 * up over the segments (the skipped records left out); end sections are
 * only those of a single file. Only the last segment may be cut short.
 * NULL + errno with a one-line reason in err. */
struct riot_reader *riot_reader_open_logs(const struct riot_logs *l, char *err, size_t errlen);

/* The files of l separated by spaces, as a command line names them (a
 * new string to free); NULL + ENOMEM. */
char *riot_logs_join(const struct riot_logs *l);

/* Reads the whole log (riot_reader_open_logs()) and checks every block,
 * as a command does before it changes anything on the log's behalf. 0,
 * or -errno with a one-line reason naming the file in err. A log cut
 * short (a killed writer) passes: its complete blocks are readable. */
int riot_log_check(const struct riot_logs *l, char *err, size_t errlen);

/* Reads from a memory buffer instead of a file (the fuzz target). The
 * buffer must outlive the reader. */
struct riot_reader *riot_reader_open_mem(const void *buf, size_t len,
					 char *err, size_t errlen);

#endif
