/* formats/semantics.h: what each syscall means to the readers of a log,
 * one row per syscall in formats/semantics.def (its columns are described
 * there). Each enum's 0 is "no value": no row has it, and
 * tests/unit/test_semantics.c fails on one that does.
 */
#ifndef RIOT_FORMATS_SEMANTICS_H
#define RIOT_FORMATS_SEMANTICS_H

#include <stdint.h>

#include "bpf/syscalls.h"

enum riot_failed { RIOT_FAILED_UNSET, RIOT_FAILED_LOOKUP, RIOT_FAILED_ACCOUNT,
		   RIOT_FAILED_ALWAYS };

enum riot_plan {
	RIOT_PLAN_NONE, RIOT_PLAN_STATE, RIOT_PLAN_SEEK, RIOT_PLAN_OPEN, RIOT_PLAN_CLOSE,
	RIOT_PLAN_DATA, RIOT_PLAN_COPY, RIOT_PLAN_FD, RIOT_PLAN_PATH, RIOT_PLAN_CALL,
	RIOT_PLAN_MMAP, RIOT_PLAN_IOCTL, RIOT_PLAN_NOT_REPLAYED, RIOT_PLAN_UNREPLAYABLE,
	RIOT_PLAN_TWIN, RIOT_PLAN_COUNT
};

enum riot_nofollow { RIOT_NOFOLLOW_UNSET, RIOT_NOFOLLOW_NO, RIOT_NOFOLLOW_YES,
		     RIOT_NOFOLLOW_FLAG };

enum riot_init {
	RIOT_INIT_UNSET, RIOT_INIT_NONE, RIOT_INIT_OPEN, RIOT_INIT_READ, RIOT_INIT_WRITE,
	RIOT_INIT_WRITE_POS, RIOT_INIT_TRUNCATE, RIOT_INIT_SEEK, RIOT_INIT_COPY,
	RIOT_INIT_STAT, RIOT_INIT_STAT_SELF, RIOT_INIT_STAT_AT, RIOT_INIT_ACCESS,
	RIOT_INIT_DIR, RIOT_INIT_MKDIR, RIOT_INIT_MAKE, RIOT_INIT_RMDIR, RIOT_INIT_UNLINK,
	RIOT_INIT_UNLINKAT, RIOT_INIT_RENAME, RIOT_INIT_LINK, RIOT_INIT_READLINK,
	RIOT_INIT_CHDIR, RIOT_INIT_ATTR, RIOT_INIT_CHMOD, RIOT_INIT_XATTR_GET,
	RIOT_INIT_XATTR_SET, RIOT_INIT_COUNT
};

enum riot_fio {
	RIOT_FIO_UNSET, RIOT_FIO_NONE, RIOT_FIO_READ, RIOT_FIO_WRITE, RIOT_FIO_COPY,
	RIOT_FIO_OPEN, RIOT_FIO_CLOSE, RIOT_FIO_SEEK, RIOT_FIO_FSYNC, RIOT_FIO_FDATASYNC,
	RIOT_FIO_TRUNCATE, RIOT_FIO_FALLOCATE, RIOT_FIO_STAT, RIOT_FIO_MKDIR, RIOT_FIO_LINK,
	RIOT_FIO_RENAME, RIOT_FIO_UNSUPPORTED, RIOT_FIO_MMAP, RIOT_FIO_COUNT
};

enum riot_model {
	RIOT_MODEL_UNSET, RIOT_MODEL_NONE, RIOT_MODEL_MAKE_FD, RIOT_MODEL_OPEN, RIOT_MODEL_CLOSE,
	RIOT_MODEL_CLOSE_RANGE, RIOT_MODEL_DUP, RIOT_MODEL_DUP3, RIOT_MODEL_FCNTL,
	RIOT_MODEL_CHDIR, RIOT_MODEL_FCHDIR, RIOT_MODEL_URING, RIOT_MODEL_COUNT
};

/* A row of formats/semantics.def but its act, which replay/classify.c reads
 * itself (replay_sys_act()). */
struct riot_sys_sem {
	uint8_t failed;		/* enum riot_failed */
	uint8_t plan;		/* enum riot_plan */
	uint8_t nofollow;	/* enum riot_nofollow */
	uint8_t init;		/* enum riot_init */
	uint8_t fio;		/* enum riot_fio */
	uint8_t model;		/* enum riot_model */
	uint16_t twin;		/* RIOT_SYS_*: itself but for a TWIN request */
};

/* NULL when sys >= RIOT_SYS_COUNT (a newer log's syscall). */
const struct riot_sys_sem *riot_sys_sem(unsigned sys);

#endif
