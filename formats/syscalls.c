/* formats/syscalls.c: names, classes and argument roles of the syscalls
 * riot records, all derived from bpf/syscalls.def so the table has one
 * source. */
#include "formats/log.h"
#include "formats/semantics.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

static const struct riot_sys_info sys_table[RIOT_SYS_COUNT] = {
#define RIOT_SYSCALL(name_, nr_, cls_, fl_, a0, a1, a2, a3, a4, a5) \
	[RIOT_SYS_##name_] = { \
		.name = #name_, \
		.nr = nr_, \
		.cls = RIOT_CLASS_##cls_, \
		.flags = fl_, \
		.args = { RIOT_ARG_##a0, RIOT_ARG_##a1, RIOT_ARG_##a2, \
			  RIOT_ARG_##a3, RIOT_ARG_##a4, RIOT_ARG_##a5 }, \
	},
#define RIOT_ASYNC_OP(id_, str_, cls_, fl_, a0, a1, a2, a3, a4, a5) \
	[RIOT_SYS_##id_] = { \
		.name = str_, \
		.nr = -1, \
		.cls = RIOT_CLASS_##cls_, \
		.flags = fl_, \
		.args = { RIOT_ARG_##a0, RIOT_ARG_##a1, RIOT_ARG_##a2, \
			  RIOT_ARG_##a3, RIOT_ARG_##a4, RIOT_ARG_##a5 }, \
	},
#include "bpf/syscalls.def"
#undef RIOT_SYSCALL
};

static const struct riot_sys_sem sem_table[RIOT_SYS_COUNT] = {
#define RIOT_SEM(name_, failed_, plan_, act_, nofollow_, twin_, init_, fio_, model_) \
	[RIOT_SYS_##name_] = { \
		.failed = RIOT_FAILED_##failed_, \
		.plan = RIOT_PLAN_##plan_, \
		.nofollow = RIOT_NOFOLLOW_##nofollow_, \
		.init = RIOT_INIT_##init_, \
		.fio = RIOT_FIO_##fio_, \
		.model = RIOT_MODEL_##model_, \
		.twin = RIOT_SYS_##twin_, \
	},
#include "formats/semantics.def"
#undef RIOT_SEM
};

/* Every riot syscall has its row of formats/semantics.def: as many rows
 * as ids, and a second row of one id would be an initializer overridden,
 * an error under -Wextra. */
enum {
#define RIOT_SEM(name_, ...) SEM_ROW_##name_,
#include "formats/semantics.def"
#undef RIOT_SEM
	SEM_ROWS
};
_Static_assert((int)SEM_ROWS == (int)RIOT_SYS_COUNT,
	       "formats/semantics.def: a syscall without a row");

/* Indexed by enum riot_class; the names reports and --json print. */
static const char *const class_names[RIOT_CLASS_COUNT] = {
	[RIOT_CLASS_DATA_READ] = "data_read",
	[RIOT_CLASS_DATA_WRITE] = "data_write",
	[RIOT_CLASS_DATA_COPY] = "data_copy",
	[RIOT_CLASS_OPEN] = "open",
	[RIOT_CLASS_FD] = "fd",
	[RIOT_CLASS_STAT] = "stat",
	[RIOT_CLASS_DIR] = "dir",
	[RIOT_CLASS_NAMESPACE] = "namespace",
	[RIOT_CLASS_SYNC] = "sync",
	[RIOT_CLASS_CWD] = "cwd",
	[RIOT_CLASS_ATTR] = "attr",
	[RIOT_CLASS_XATTR] = "xattr",
	[RIOT_CLASS_MMAP] = "mmap",
	[RIOT_CLASS_ASYNC] = "async",
	[RIOT_CLASS_PROC] = "proc",
};

const struct riot_sys_info *riot_sys_info(unsigned sys)
{
	if (sys >= RIOT_SYS_COUNT)
		return NULL;
	return &sys_table[sys];
}

const struct riot_sys_sem *riot_sys_sem(unsigned sys)
{
	if (sys >= RIOT_SYS_COUNT)
		return NULL;
	return &sem_table[sys];
}

int riot_sys_by_name(const char *name)
{
	if (!name)
		return -ENOENT;
	for (unsigned i = 0; i < RIOT_SYS_COUNT; i++)
		if (strcmp(sys_table[i].name, name) == 0)
			return (int)i;
	return -ENOENT;
}

uint64_t riot_open_flags(const struct riot_syscall *sc)
{
	return sc->sys == RIOT_SYS_creat ? O_CREAT | O_WRONLY | O_TRUNC : sc->flags;
}

bool riot_put_arg(struct riot_syscall *sc, enum riot_arg role, uint64_t val)
{
	switch (role) {
	case RIOT_ARG_FD: sc->fd = (int32_t)val; sc->has |= RIOT_HAS_FD; break;
	case RIOT_ARG_FD2: sc->fd2 = (int32_t)val; sc->has |= RIOT_HAS_FD2; break;
	case RIOT_ARG_DFD: sc->dirfd = (int32_t)val; sc->has |= RIOT_HAS_DIRFD; break;
	case RIOT_ARG_DFD2: sc->dirfd2 = (int32_t)val; sc->has |= RIOT_HAS_DIRFD2; break;
	case RIOT_ARG_CNT: sc->count = val; sc->has |= RIOT_HAS_COUNT; break;
	case RIOT_ARG_OFF: sc->off = val; sc->has |= RIOT_HAS_OFF; break;
	case RIOT_ARG_FLAGS: sc->flags = val; sc->has |= RIOT_HAS_FLAGS; break;
	case RIOT_ARG_MODE: sc->mode = (uint32_t)val; sc->has |= RIOT_HAS_MODE; break;
	case RIOT_ARG_CMD: sc->cmd = (uint32_t)val; sc->has |= RIOT_HAS_CMD; break;
	case RIOT_ARG_ARG:
	case RIOT_ARG_ADDR: sc->arg = val; sc->has |= RIOT_HAS_ARG; break;
	case RIOT_ARG_IOVCNT: sc->iovcnt = (uint32_t)val; sc->has |= RIOT_HAS_IOVCNT; break;
	case RIOT_ARG_UID: sc->uid = (uint32_t)val; sc->has |= RIOT_HAS_UID; break;
	case RIOT_ARG_GID: sc->gid = (uint32_t)val; sc->has |= RIOT_HAS_GID; break;
	case RIOT_ARG_CTX: sc->ctx = val; sc->has |= RIOT_HAS_CTX; break;
	default: return false;
	}
	return true;
}

const char *riot_class_name(unsigned cls)
{
	if (cls >= RIOT_CLASS_COUNT || !class_names[cls])
		return "unknown";
	return class_names[cls];
}

const char *riot_errno_str(int64_t ret)
{
	return ret < 0 && ret > -4096 ? strerrorname_np((int)-ret) : NULL;
}
