/* replay/classify.c: what replay makes of a syscall (classify.h), from
 * its row of formats/semantics.def. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/semantics.h"
#include "replay/classify.h"

static const char *const act_names[ACT_COUNT] = {
	[ACT_STATE] = "state", [ACT_SKIP] = "skip", [ACT_UNREPLAYABLE] = "unreplayable",
	[ACT_FAILED] = "failed",
	[ACT_FLOCK] = "flock", [ACT_READAHEAD] = "readahead", [ACT_STATFS] = "statfs",
	[ACT_OPEN] = "open", [ACT_CLOSE] = "close", [ACT_READ] = "read",
	[ACT_WRITE] = "write", [ACT_FSYNC] = "fsync", [ACT_FDATASYNC] = "fdatasync",
	[ACT_SYNC_RANGE] = "sync_file_range", [ACT_FALLOCATE] = "fallocate",
	[ACT_FTRUNCATE] = "ftruncate", [ACT_FADVISE] = "fadvise", [ACT_STAT] = "stat",
	[ACT_FSTAT] = "fstat", [ACT_MKDIR] = "mkdir", [ACT_UNLINK] = "unlink",
	[ACT_RMDIR] = "rmdir", [ACT_RENAME] = "rename", [ACT_LINK] = "link",
	[ACT_SYMLINK] = "symlink", [ACT_MKNOD] = "mknod", [ACT_GETDENTS] = "getdents",
	[ACT_ACCESS] = "access", [ACT_READLINK] = "readlink", [ACT_TRUNCATE] = "truncate",
	[ACT_CHMOD] = "chmod", [ACT_CHOWN] = "chown", [ACT_UTIMENS] = "utimens",
	[ACT_XATTR_GET] = "getxattr", [ACT_XATTR_SET] = "setxattr",
	[ACT_XATTR_LIST] = "listxattr", [ACT_XATTR_REMOVE] = "removexattr",
	[ACT_SYNCFS] = "syncfs", [ACT_SYNC] = "sync", [ACT_COPY] = "copy",
	[ACT_CLONE] = "clone",
};

static const char *const skip_names[SKIP_COUNT] = {
	[SKIP_NONE] = "none", [SKIP_UNRESOLVED] = "unresolved fd or cwd",
	[SKIP_TRUNCATED] = "truncated path", [SKIP_NOT_A_PATH] = "pipe or socket",
	[SKIP_PSEUDO] = "under /proc, /sys or /dev", [SKIP_HOSTILE] = "refused path",
	[SKIP_DEVICE] = "device, fifo or socket", [SKIP_NO_VALUE] = "xattr value not in the log",
	[SKIP_BADF] = "fd not open (EBADF)", [SKIP_NO_MAPPING] = "mmap page of an unknown mapping",
};

const char *replay_act_name(unsigned act)
{
	return act < ACT_COUNT ? act_names[act] : "unknown";
}

const char *replay_skip_name(unsigned skip)
{
	return skip < SKIP_COUNT ? skip_names[skip] : "unknown";
}


/* The errors a replayed tree gives back as the captured one did: what the
 * names and their types are, not who asks or on what storage. */
static bool tree_error(int64_t ret)
{
	switch (-ret) {
	case ENOENT: case EEXIST: case ENOTDIR: case EISDIR: case ENOTEMPTY:
	case ELOOP: case ENAMETOOLONG: case ENODATA: case ERANGE: case EINVAL:
	case EMLINK: case E2BIG:
		return true;
	default:
		return false;
	}
}

bool replay_failure_issued(unsigned sys, int64_t ret)
{
	const struct riot_sys_sem *sem = riot_sys_sem(sys);

	if (ret >= 0)
		return true;
	if (!sem)
		return false;
	switch (sem->failed) {
	case RIOT_FAILED_ALWAYS: return true;
	case RIOT_FAILED_LOOKUP: return tree_error(ret);
	default: return false;
	}
}

/* The act of a PATH, FD or CALL row of formats/semantics.def; ACT_NONE
 * in the others. */
enum { ACT_NONE = ACT_COUNT };

static const uint8_t sys_act[RIOT_SYS_COUNT] = {
#define RIOT_SEM(name, failed, plan, act, nofollow, twin, init, fio, model) \
	[RIOT_SYS_##name] = ACT_##act,
#include "formats/semantics.def"
#undef RIOT_SEM
};

int replay_sys_act(unsigned sys)
{
	return sys < RIOT_SYS_COUNT && sys_act[sys] != ACT_NONE ? sys_act[sys] : -1;
}

bool replay_sys_nofollow(const struct riot_syscall *sc)
{
	const struct riot_sys_sem *sem = riot_sys_sem(sc->sys);

	if (!sem)
		return false;
	return sem->nofollow == RIOT_NOFOLLOW_YES ||
	       (sem->nofollow == RIOT_NOFOLLOW_FLAG && (sc->flags & AT_SYMLINK_NOFOLLOW));
}

int replay_path_act(const struct riot_syscall *sc, int act)
{
	if (sc->sys == RIOT_SYS_unlinkat && (sc->flags & AT_REMOVEDIR))
		return ACT_RMDIR;
	return act;
}

int replay_path_fd_act(const struct riot_syscall *sc, int act)
{
	if (sc->path.s && sc->path.s[0])
		return -1;
	if (act == ACT_STAT)
		return ACT_FSTAT;
	return act == ACT_UTIMENS || act == ACT_CHOWN || act == ACT_CHMOD ? act : -1;
}

bool replay_path_flags_kept(unsigned sys)
{
	return sys != RIOT_SYS_rename && sys != RIOT_SYS_renameat && sys != RIOT_SYS_link;
}

bool replay_mknod_replayable(uint32_t mode)
{
	unsigned t = mode & S_IFMT;

	return t == S_IFIFO || t == S_IFREG || t == S_IFSOCK || t == 0;
}

bool replay_sys_positional(unsigned sys)
{
	return sys == RIOT_SYS_pread64 || sys == RIOT_SYS_preadv || sys == RIOT_SYS_preadv2 ||
	       sys == RIOT_SYS_pwrite64 || sys == RIOT_SYS_pwritev || sys == RIOT_SYS_pwritev2;
}

bool replay_sys_vectored(unsigned sys)
{
	return sys == RIOT_SYS_readv || sys == RIOT_SYS_writev || sys == RIOT_SYS_preadv ||
	       sys == RIOT_SYS_pwritev || sys == RIOT_SYS_preadv2 || sys == RIOT_SYS_pwritev2;
}

bool replay_ftype_special(uint32_t has, uint32_t ftype)
{
	unsigned t = ftype & S_IFMT;

	return (has & RIOT_HAS_FTYPE) &&
	       (t == S_IFIFO || t == S_IFSOCK || t == S_IFCHR || t == S_IFBLK);
}

/* IORING_FSYNC_DATASYNC */
#define URING_FSYNC_DATASYNC 0x01

int replay_async_twin(const struct riot_syscall *sc)
{
	const struct riot_sys_sem *sem = riot_sys_sem(sc->sys);

	if (!sem)
		return -1;
	if (sem->plan != RIOT_PLAN_TWIN)
		return -1;
	if (sc->sys == RIOT_SYS_uring_fsync && (sc->cmd & URING_FSYNC_DATASYNC))
		return RIOT_SYS_fdatasync;
	return sem->twin;
}

bool replay_uring_sqe_flags(const struct riot_sys_info *si, unsigned sys)
{
	if (strncmp(si->name, "io_uring:", 9) != 0)
		return false;
	return si->cls == RIOT_CLASS_DATA_READ || si->cls == RIOT_CLASS_DATA_WRITE ||
	       si->cls == RIOT_CLASS_SYNC || sys == RIOT_SYS_uring_fadvise ||
	       sys == RIOT_SYS_uring_close;
}
