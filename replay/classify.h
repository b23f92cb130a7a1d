/* replay/classify.h: what replay makes of a syscall, private to replay/.
 *
 * What a call is to replay, from its record alone and its row of
 * formats/semantics.def, whatever came before it: the act of its row,
 * whether its captured failure is issued again, whether it follows a final
 * symlink, the syscall an asynchronous request replays as and whether its
 * flags are its SQE's, the positional and vectored data calls, the files
 * replay never opens. The plan (plan.h) decides the rest against what the
 * log showed before the call (file positions and sizes, mappings, the
 * model's files), and the acts and skip reasons an op carries are named
 * here.
 */
#ifndef RIOT_REPLAY_CLASSIFY_H
#define RIOT_REPLAY_CLASSIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/log.h"

/* What replay does for an op. */
enum replay_act {
	ACT_STATE,	/* changes only the plan's state (lseek, dup, fcntl,
			 * chdir, clone, an fd close that leaves the file
			 * open): nothing to issue */
	ACT_SKIP,	/* cannot be replayed faithfully: op->skip says why */
	ACT_UNREPLAYABLE,	/* I/O riot cannot replay: mmap'ed file I/O,
				 * io_uring or AIO submitted by the workload */
	ACT_FAILED,	/* a captured failure accounted without being issued
			 * (formats/semantics.def): it did no I/O */
	ACT_OPEN, ACT_CLOSE,
	ACT_READ, ACT_WRITE,	/* positional: off, count */
	ACT_FSYNC, ACT_FDATASYNC, ACT_SYNC_RANGE, ACT_FALLOCATE,
	ACT_FTRUNCATE, ACT_FADVISE,
	ACT_STAT,	/* path; OPF_NOFOLLOW for lstat and friends */
	ACT_FSTAT,
	ACT_MKDIR, ACT_UNLINK, ACT_RMDIR, ACT_RENAME, ACT_LINK, ACT_SYMLINK,
	ACT_MKNOD,
	/* below: no io_uring opcode, always the synchronous pool */
	ACT_GETDENTS, ACT_ACCESS, ACT_READLINK, ACT_TRUNCATE,
	ACT_CHMOD, ACT_CHOWN, ACT_UTIMENS,	/* path, or fd when file != 0 */
	ACT_XATTR_GET, ACT_XATTR_SET, ACT_XATTR_LIST, ACT_XATTR_REMOVE,
	ACT_SYNCFS, ACT_SYNC, ACT_COPY,
	ACT_FLOCK,	/* fd; arg: the operation */
	ACT_READAHEAD,	/* fd; off, count */
	ACT_STATFS,	/* path, or fd when file != 0 */
	ACT_CLONE,	/* ioctl FICLONE (flags) of file2 onto file, or
			 * FICLONERANGE: off, count from file2 to arg */
	ACT_COUNT
};

/* Whether an op of act is issued against the root: the acts above
 * ACT_FAILED are. */
static inline bool replay_act_issues(unsigned act)
{
	return act > ACT_FAILED;
}

/* Why an op is skipped (ACT_SKIP), or was skipped at issue. */
enum replay_skip {
	SKIP_NONE,
	SKIP_UNRESOLVED,	/* unknown fd, dirfd or cwd */
	SKIP_TRUNCATED,		/* the capture or the model cut the path */
	SKIP_NOT_A_PATH,	/* pipe, socket, anon inode, memfd */
	SKIP_PSEUDO,		/* under /proc, /sys, /dev */
	SKIP_HOSTILE,		/* a path the root refuses (., .., marker) */
	SKIP_DEVICE,		/* mknod of a device node; an open of a fifo,
				 * socket or device, and ops on it (opening
				 * one can block for ever) */
	SKIP_NO_VALUE,		/* a setxattr of a name whose values have a
				 * syntax (system., security.) without its
				 * whole value in the log: never invented */
	SKIP_BADF,		/* the fd was not open: the capture got EBADF */
	SKIP_NO_MAPPING,	/* an mmap page recorded without its mapping
				 * (mapped in by a syscall, or its mm was
				 * locked at the fault) */
	SKIP_COUNT
};

/* Name of an act / a skip reason, for summaries. */
const char *replay_act_name(unsigned act);
const char *replay_skip_name(unsigned skip);

/* Whether a call of sys whose captured result is ret is issued (its
 * failure reproduced by issuing it), or accounted as captured without
 * being issued: the failed column of formats/semantics.def. */
bool replay_failure_issued(unsigned sys, int64_t ret);

/* The act of sys's row in formats/semantics.def (a PATH, FD or CALL
 * row), or -1. */
int replay_sys_act(unsigned sys);

/* Whether sc acts on a final symlink itself (the nofollow column). */
bool replay_sys_nofollow(const struct riot_syscall *sc);

/* A path op's act for sc, whose row's act is act: an unlinkat with
 * AT_REMOVEDIR removes a directory. */
int replay_path_act(const struct riot_syscall *sc, int act);
/* The act of a path op's fd form when sc's path is empty (fstatat(fd, "",
 * AT_EMPTY_PATH), utimensat(fd, NULL)): it acts on its fd's file; -1 when
 * the path is not empty or act has no fd form. */
int replay_path_fd_act(const struct riot_syscall *sc, int act);
/* Whether sc's flags are passed on: rename, renameat and link take none
 * (their captured flags column holds another call's). */
bool replay_path_flags_kept(unsigned sys);
/* Whether a mknod of mode makes what replay makes: a fifo, a regular
 * file or a socket, never a device node. */
bool replay_mknod_replayable(uint32_t mode);

/* Whether sys reads or writes at an offset of its own (pread64 and its
 * kin), or moves its count over buffers (readv and its kin). */
bool replay_sys_positional(unsigned sys);
bool replay_sys_vectored(unsigned sys);

/* Fifos, sockets and device nodes (has: RIOT_HAS_FTYPE when ftype is
 * known): opening one can block the replay for ever (a fifo waits for its
 * other end), so replay never opens them. */
bool replay_ftype_special(uint32_t has, uint32_t ftype);

/* io_uring's SQE flags (linux/io_uring.h), as the log holds them. */
#define SQE_FIXED_FILE 0x01
#define SQE_IO_DRAIN 0x02
#define SQE_IO_LINK 0x04
#define SQE_IO_HARDLINK 0x08

/* The syscall an asynchronous request replays as (its twin in
 * formats/semantics.def), or -1 (a STATE or UNREPLAYABLE row): a vectored
 * request moves its count of bytes as one, its buffers being riot's. */
int replay_async_twin(const struct riot_syscall *sc);
/* Whether the flags of an asynchronous request of si are its SQE's: those
 * of the io_uring requests on an fd (data, sync, fadvise, close); a
 * namespace request's flags are its call's (O_*, AT_*, RENAME_*). */
bool replay_uring_sqe_flags(const struct riot_sys_info *si, unsigned sys);

#endif
