/* Enums derived from syscalls.def, shared by the BPF programs and userspace.
 * Plain C with no includes, so both clang -target bpf and the host compiler
 * take it. */
#ifndef RIOT_BPF_SYSCALLS_H
#define RIOT_BPF_SYSCALLS_H

/* RIOT_SYS_<name>: the riot syscall id stored in logs. */
enum riot_sys {
#define RIOT_SYSCALL(name, nr, cls, fl, a0, a1, a2, a3, a4, a5) RIOT_SYS_##name,
#include "syscalls.def"
#undef RIOT_SYSCALL
	RIOT_SYS_COUNT
};

/* The BPF side's per-syscall tables have RIOT_SYS_SLOTS entries, a power
 * of two, so that a mask bounds their index for every verifier (see
 * SYS_SLOT() in bpf/riot.bpf.c). */
#define RIOT_SYS_SLOTS 256
_Static_assert(RIOT_SYS_COUNT <= RIOT_SYS_SLOTS, "RIOT_SYS_SLOTS: too few");

/* What a syscall does; reports group by it, replay plans by it. */
enum riot_class {
	RIOT_CLASS_DATA_READ = 1,
	RIOT_CLASS_DATA_WRITE,	/* write family, truncate, fallocate */
	RIOT_CLASS_DATA_COPY,	/* copy_file_range, sendfile, splice */
	RIOT_CLASS_OPEN,
	RIOT_CLASS_FD,		/* close, dup family, fcntl, lseek, fadvise */
	RIOT_CLASS_STAT,
	RIOT_CLASS_DIR,		/* getdents */
	RIOT_CLASS_NAMESPACE,	/* mkdir, unlink, rename, link, symlink, ... */
	RIOT_CLASS_SYNC,
	RIOT_CLASS_CWD,
	RIOT_CLASS_ATTR,	/* chmod, chown, utimensat */
	RIOT_CLASS_XATTR,
	RIOT_CLASS_MMAP,	/* recorded, not replayable */
	RIOT_CLASS_ASYNC,	/* io_uring_enter, io_submit, io_uring:other:
				 * not replayable */
	RIOT_CLASS_PROC,	/* clone, fork, exec */
	RIOT_CLASS_COUNT
};

/* What an argument means. Capture copies every argument raw at entry; these
 * say which ones it must also dereference, and where userspace stores them
 * in a struct riot_syscall (formats/log.h). */
enum riot_arg {
	RIOT_ARG_NONE = 0,
	RIOT_ARG_FD,		/* -> fd */
	RIOT_ARG_FD2,		/* -> fd2: dup2/dup3 new fd, copy/sendfile/splice
				 * output fd, close_range last fd */
	RIOT_ARG_DFD,		/* -> dirfd (for path) */
	RIOT_ARG_DFD2,		/* -> dirfd2 (for path2) */
	RIOT_ARG_PATH,		/* user string -> path */
	RIOT_ARG_PATH2,		/* user string -> path2 */
	RIOT_ARG_TARGET,	/* symlink target: user string -> path2 */
	RIOT_ARG_LINKBUF,	/* readlink result: ret bytes at exit -> path2 */
	RIOT_ARG_XNAME,		/* xattr name: user string -> path2 */
	RIOT_ARG_CNT,		/* -> count */
	RIOT_ARG_OFF,		/* -> off (lseek offset, truncate length,
				 * mremap new length too) */
	RIOT_ARG_OFFP,		/* loff_t __user *, read at entry -> off
				 * (NULL: field absent) */
	RIOT_ARG_OFF2P,		/* loff_t __user *, read at entry -> off2 */
	RIOT_ARG_FLAGS,		/* -> flags */
	RIOT_ARG_MODE,		/* -> mode */
	RIOT_ARG_CMD,		/* -> cmd: fcntl cmd, lseek whence, fadvise
				 * and madvise advice, mmap prot */
	RIOT_ARG_ARG,		/* -> arg: fcntl argument, io_uring_enter
				 * min_complete, mknod dev */
	RIOT_ARG_IOVCNT,	/* -> iovcnt */
	RIOT_ARG_UID,		/* -> uid */
	RIOT_ARG_GID,		/* -> gid */
	RIOT_ARG_HOW,		/* struct open_how __user *: flags, mode,
				 * resolve read at entry -> flags, mode, arg */
	RIOT_ARG_CLONEARGS,	/* struct clone_args __user *: flags -> flags */
	RIOT_ARG_STATBUF,	/* struct stat(x) __user *: read at exit */
	RIOT_ARG_BUF,		/* data buffer: not recorded */
	RIOT_ARG_IOV,		/* iovec array: not recorded */
	RIOT_ARG_ADDR,		/* memory address: -> arg */
	RIOT_ARG_FDPAIR,	/* int[2] the call fills (pipe, socketpair):
				 * read at exit -> fd, fd2 */
	RIOT_ARG_CTX,		/* asynchronous requests: the io_uring ring
				 * or AIO context, or the mapping -> ctx */
};

/* RIOT_SF_*: what capture collects at exit besides the arguments. */
#define RIOT_SF_RET_FD	0x01	/* ret is a new fd: record size, type,
				 * inode, device and O_CREAT-created of it */
#define RIOT_SF_STAT	0x02	/* struct stat at the STATBUF argument:
				 * record st_size, st_mode & S_IFMT, st_ino,
				 * st_dev */
#define RIOT_SF_STATX	0x04	/* struct statx at the STATBUF argument */
#define RIOT_SF_LINK	0x08	/* readlink: LINKBUF holds ret bytes */
#define RIOT_SF_IOV	0x10	/* vectored: ret is the byte count */
#define RIOT_SF_CLONE3	0x20	/* clone3: flags from struct clone_args */
#define RIOT_SF_VALUE	0x40	/* setxattr: BUF holds CNT bytes of value,
				 * the first RIOT_VALUE_MAX recorded */
#define RIOT_SF_VMA	0x80	/* acts on the mapping at ADDR (mremap: at ret
				 * once moved): recorded only when it maps a
				 * file, with that file's size, type, inode,
				 * device and the file offset ADDR maps */
#define RIOT_SF_ASYNC	0x100	/* an asynchronous request, not a syscall
				 * (the RIOT_ASYNC_OP rows of syscalls.def) */
/* A syscall of class FD with RIOT_SF_RET_FD or an FDPAIR argument makes
 * fds that name no file (pipes, sockets, eventfds, ...). */

#endif
