/* formats/syms.c: the symbolic constants of the arguments of the syscalls
 * riot records, as strace and the man pages name them, with their x86_64
 * kernel values (formats/log.h): the strace importer reads them, `riot
 * dump` names open flags and file types with them.
 *
 * Names are unique across families (O_*, AT_*, CLONE_*, ...), so one table
 * serves every flag argument. Values are written out rather than taken from
 * libc headers: the importer must read a trace the same way on any build
 * host, and some of these (O_LARGEFILE) differ between libc and kernel.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/log.h"

struct sym {
	const char *name;
	uint64_t value;
};

static const struct sym syms[] = {
	/* open(2) flags; O_RDONLY is 0 */
	{ "O_RDONLY", 0 }, { "O_WRONLY", 01 }, { "O_RDWR", 02 },
	{ "O_CREAT", 0100 }, { "O_EXCL", 0200 }, { "O_NOCTTY", 0400 },
	{ "O_TRUNC", 01000 }, { "O_APPEND", 02000 }, { "O_NONBLOCK", 04000 },
	{ "O_NDELAY", 04000 }, { "O_DSYNC", 010000 }, { "O_ASYNC", 020000 },
	{ "FASYNC", 020000 }, { "O_DIRECT", 040000 }, { "O_LARGEFILE", 0100000 },
	{ "O_DIRECTORY", 0200000 }, { "O_NOFOLLOW", 0400000 },
	{ "O_NOATIME", 01000000 }, { "O_CLOEXEC", 02000000 },
	{ "O_SYNC", 04010000 }, { "O_PATH", 010000000 },
	{ "O_TMPFILE", 020200000 },
	/* *at flags */
	{ "AT_SYMLINK_NOFOLLOW", 0x100 }, { "AT_EACCESS", 0x200 },
	{ "AT_REMOVEDIR", 0x200 }, { "AT_SYMLINK_FOLLOW", 0x400 },
	{ "AT_NO_AUTOMOUNT", 0x800 }, { "AT_EMPTY_PATH", 0x1000 },
	{ "AT_STATX_SYNC_AS_STAT", 0 }, { "AT_STATX_FORCE_SYNC", 0x2000 },
	{ "AT_STATX_DONT_SYNC", 0x4000 }, { "AT_RECURSIVE", 0x8000 },
	/* openat2 resolve */
	{ "RESOLVE_NO_XDEV", 0x01 }, { "RESOLVE_NO_MAGICLINKS", 0x02 },
	{ "RESOLVE_NO_SYMLINKS", 0x04 }, { "RESOLVE_BENEATH", 0x08 },
	{ "RESOLVE_IN_ROOT", 0x10 }, { "RESOLVE_CACHED", 0x20 },
	/* access(2) modes */
	{ "F_OK", 0 }, { "X_OK", 1 }, { "W_OK", 2 }, { "R_OK", 4 },
	/* file types and permission bits */
	{ "S_IFIFO", 0010000 }, { "S_IFCHR", 0020000 }, { "S_IFDIR", 0040000 },
	{ "S_IFBLK", 0060000 }, { "S_IFREG", 0100000 }, { "S_IFLNK", 0120000 },
	{ "S_IFSOCK", 0140000 }, { "S_ISUID", 04000 }, { "S_ISGID", 02000 },
	{ "S_ISVTX", 01000 },
	/* lseek whence */
	{ "SEEK_SET", 0 }, { "SEEK_CUR", 1 }, { "SEEK_END", 2 },
	{ "SEEK_DATA", 3 }, { "SEEK_HOLE", 4 },
	/* fcntl commands and arguments */
	{ "F_DUPFD", 0 }, { "F_GETFD", 1 }, { "F_SETFD", 2 }, { "F_GETFL", 3 },
	{ "F_SETFL", 4 }, { "F_GETLK", 5 }, { "F_SETLK", 6 }, { "F_SETLKW", 7 },
	{ "F_SETOWN", 8 }, { "F_GETOWN", 9 }, { "F_SETSIG", 10 },
	{ "F_GETSIG", 11 }, { "F_OFD_GETLK", 36 }, { "F_OFD_SETLK", 37 },
	{ "F_OFD_SETLKW", 38 }, { "F_SETLEASE", 1024 }, { "F_GETLEASE", 1025 },
	{ "F_NOTIFY", 1026 }, { "F_DUPFD_CLOEXEC", 1030 },
	{ "F_SETPIPE_SZ", 1031 }, { "F_GETPIPE_SZ", 1032 },
	{ "F_ADD_SEALS", 1033 }, { "F_GET_SEALS", 1034 }, { "FD_CLOEXEC", 1 },
	/* fadvise */
	{ "POSIX_FADV_NORMAL", 0 }, { "POSIX_FADV_RANDOM", 1 },
	{ "POSIX_FADV_SEQUENTIAL", 2 }, { "POSIX_FADV_WILLNEED", 3 },
	{ "POSIX_FADV_DONTNEED", 4 }, { "POSIX_FADV_NOREUSE", 5 },
	/* fallocate */
	{ "FALLOC_FL_KEEP_SIZE", 0x01 }, { "FALLOC_FL_PUNCH_HOLE", 0x02 },
	{ "FALLOC_FL_NO_HIDE_STALE", 0x04 }, { "FALLOC_FL_COLLAPSE_RANGE", 0x08 },
	{ "FALLOC_FL_ZERO_RANGE", 0x10 }, { "FALLOC_FL_INSERT_RANGE", 0x20 },
	{ "FALLOC_FL_UNSHARE_RANGE", 0x40 },
	/* sync_file_range */
	{ "SYNC_FILE_RANGE_WAIT_BEFORE", 1 }, { "SYNC_FILE_RANGE_WRITE", 2 },
	{ "SYNC_FILE_RANGE_WAIT_AFTER", 4 },
	/* renameat2 */
	{ "RENAME_NOREPLACE", 1 }, { "RENAME_EXCHANGE", 2 },
	{ "RENAME_WHITEOUT", 4 },
	/* preadv2/pwritev2 */
	{ "RWF_HIPRI", 1 }, { "RWF_DSYNC", 2 }, { "RWF_SYNC", 4 },
	{ "RWF_NOWAIT", 8 }, { "RWF_APPEND", 16 },
	/* close_range */
	{ "CLOSE_RANGE_UNSHARE", 2 }, { "CLOSE_RANGE_CLOEXEC", 4 },
	/* xattr */
	{ "XATTR_CREATE", 1 }, { "XATTR_REPLACE", 2 },
	/* mmap, msync */
	{ "PROT_NONE", 0 }, { "PROT_READ", 1 }, { "PROT_WRITE", 2 },
	{ "PROT_EXEC", 4 }, { "MAP_SHARED", 0x01 }, { "MAP_PRIVATE", 0x02 },
	{ "MAP_SHARED_VALIDATE", 0x03 }, { "MAP_FIXED", 0x10 },
	{ "MAP_ANONYMOUS", 0x20 }, { "MAP_32BIT", 0x40 },
	{ "MAP_GROWSDOWN", 0x100 }, { "MAP_DENYWRITE", 0x800 },
	{ "MAP_EXECUTABLE", 0x1000 }, { "MAP_LOCKED", 0x2000 },
	{ "MAP_NORESERVE", 0x4000 }, { "MAP_POPULATE", 0x8000 },
	{ "MAP_NONBLOCK", 0x10000 }, { "MAP_STACK", 0x20000 },
	{ "MAP_HUGETLB", 0x40000 }, { "MAP_SYNC", 0x80000 },
	{ "MAP_FIXED_NOREPLACE", 0x100000 }, { "MS_ASYNC", 1 },
	{ "MS_INVALIDATE", 2 }, { "MS_SYNC", 4 },
	/* statx mask */
	{ "STATX_TYPE", 0x1 }, { "STATX_MODE", 0x2 }, { "STATX_NLINK", 0x4 },
	{ "STATX_UID", 0x8 }, { "STATX_GID", 0x10 }, { "STATX_ATIME", 0x20 },
	{ "STATX_MTIME", 0x40 }, { "STATX_CTIME", 0x80 }, { "STATX_INO", 0x100 },
	{ "STATX_SIZE", 0x200 }, { "STATX_BLOCKS", 0x400 },
	{ "STATX_BASIC_STATS", 0x7ff }, { "STATX_BTIME", 0x800 },
	{ "STATX_ALL", 0xfff }, { "STATX_MNT_ID", 0x1000 },
	{ "STATX_DIOALIGN", 0x2000 },
	/* clone flags */
	{ "CLONE_VM", 0x100 }, { "CLONE_FS", 0x200 }, { "CLONE_FILES", 0x400 },
	{ "CLONE_SIGHAND", 0x800 }, { "CLONE_PIDFD", 0x1000 },
	{ "CLONE_PTRACE", 0x2000 }, { "CLONE_VFORK", 0x4000 },
	{ "CLONE_PARENT", 0x8000 }, { "CLONE_THREAD", 0x10000 },
	{ "CLONE_NEWNS", 0x20000 }, { "CLONE_SYSVSEM", 0x40000 },
	{ "CLONE_SETTLS", 0x80000 }, { "CLONE_PARENT_SETTID", 0x100000 },
	{ "CLONE_CHILD_CLEARTID", 0x200000 }, { "CLONE_DETACHED", 0x400000 },
	{ "CLONE_UNTRACED", 0x800000 }, { "CLONE_CHILD_SETTID", 0x1000000 },
	{ "CLONE_NEWCGROUP", 0x2000000 }, { "CLONE_NEWUTS", 0x4000000 },
	{ "CLONE_NEWIPC", 0x8000000 }, { "CLONE_NEWUSER", 0x10000000 },
	{ "CLONE_NEWPID", 0x20000000 }, { "CLONE_NEWNET", 0x40000000 },
	{ "CLONE_IO", 0x80000000ull }, { "CLONE_CLEAR_SIGHAND", 0x100000000ull },
	{ "CLONE_INTO_CGROUP", 0x200000000ull },
	/* signals: clone's exit signal, "+++ killed by" */
	{ "SIGHUP", 1 }, { "SIGINT", 2 }, { "SIGQUIT", 3 }, { "SIGILL", 4 },
	{ "SIGTRAP", 5 }, { "SIGABRT", 6 }, { "SIGBUS", 7 }, { "SIGFPE", 8 },
	{ "SIGKILL", 9 }, { "SIGUSR1", 10 }, { "SIGSEGV", 11 },
	{ "SIGUSR2", 12 }, { "SIGPIPE", 13 }, { "SIGALRM", 14 },
	{ "SIGTERM", 15 }, { "SIGSTKFLT", 16 }, { "SIGCHLD", 17 },
	{ "SIGCONT", 18 }, { "SIGSTOP", 19 }, { "SIGTSTP", 20 },
	{ "SIGTTIN", 21 }, { "SIGTTOU", 22 }, { "SIGURG", 23 },
	{ "SIGXCPU", 24 }, { "SIGXFSZ", 25 }, { "SIGVTALRM", 26 },
	{ "SIGPROF", 27 }, { "SIGWINCH", 28 }, { "SIGIO", 29 },
	{ "SIGPWR", 30 }, { "SIGSYS", 31 },
	/* io_uring_enter */
	{ "IORING_ENTER_GETEVENTS", 1 }, { "IORING_ENTER_SQ_WAKEUP", 2 },
	{ "IORING_ENTER_SQ_WAIT", 4 }, { "IORING_ENTER_EXT_ARG", 8 },
	{ "IORING_ENTER_REGISTERED_RING", 16 },
};

#define N_SYMS (sizeof(syms) / sizeof(syms[0]))

static const struct sym *sorted[N_SYMS];

static int sym_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct sym *const *)a)->name,
		      (*(const struct sym *const *)b)->name);
}

static void syms_init(void)
{
	for (size_t i = 0; i < N_SYMS; i++)
		sorted[i] = &syms[i];
	qsort(sorted, N_SYMS, sizeof(sorted[0]), sym_cmp);
}

int riot_sym_value(const char *name, size_t n, uint64_t *v)
{
	size_t lo = 0, hi = N_SYMS;

	if (!sorted[0])
		syms_init();
	if (n == 0 || n > 64)
		return -ENOENT;
	for (size_t i = 0; i < n; i++)	/* strncmp below stops at a NUL */
		if (!name[i])
			return -ENOENT;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const char *s = sorted[mid]->name;
		int c = strncmp(s, name, n);

		if (c == 0 && s[n] != 0)
			c = 1;	/* s is longer: it sorts after name */
		if (c == 0) {
			*v = sorted[mid]->value;
			return 0;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENOENT;
}

/* Names, from the entries whose name starts with prefix, the bits of v:
 * an entry is named when all its bits are set and no larger named entry
 * holds them (O_SYNC, not O_DSYNC too; S_IFLNK, not S_IFREG), and an
 * alias (O_NDELAY) gives way to the first name of its value. Returns the
 * bits no entry named. */
static uint64_t name_bits(uint64_t v, uint64_t ignore, const char *prefix, char *buf,
			  size_t len, size_t *n)
{
	size_t plen = strlen(prefix);
	uint64_t named = 0;

	for (size_t i = 0; i < N_SYMS; i++) {
		uint64_t b = syms[i].value;
		bool skip = strncmp(syms[i].name, prefix, plen) != 0 || !(b & ~ignore) ||
			    (b & v) != b;

		for (size_t j = 0; j < N_SYMS && !skip; j++) {
			uint64_t c = syms[j].value;

			if (j == i || strncmp(syms[j].name, prefix, plen) != 0 || (c & v) != c)
				continue;
			skip = (c == b && j < i) || (c != b && (c & b) == b);
		}
		if (skip)
			continue;
		*n += (size_t)snprintf(buf + (*n < len ? *n : len), *n < len ? len - *n : 0,
				       "%s%s", *n ? "|" : "", syms[i].name);
		named |= b;
	}
	return v & ~named & ~ignore;
}

const char *riot_open_flags_str(uint64_t flags, char *buf, size_t len)
{
	static const char *const acc[] = { "O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE" };
	size_t n = (size_t)snprintf(buf, len, "%s", acc[flags & 3]);
	uint64_t rest = name_bits(flags, 3, "O_", buf, len, &n);

	if (rest && n < len)
		snprintf(buf + n, len - n, "|%#llo", (unsigned long long)rest);
	return buf;
}

const char *riot_ftype_str(uint32_t ftype)
{
	for (size_t i = 0; i < N_SYMS; i++)
		if (strncmp(syms[i].name, "S_IF", 4) == 0 && syms[i].value == (ftype & 0170000))
			return syms[i].name;
	return NULL;
}
