/* tests/unit/test_semantics.c: every row of formats/semantics.def has a
 * value in every column, and the columns agree with each other and with
 * the row's capture in bpf/syscalls.def: a syscall never falls to a
 * reader's default because its row forgot to say what it is. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "formats/log.h"
#include "formats/semantics.h"
#include "replay/plan.h"
#include "tests/unit/unit.h"

/* CHECK with the row's name in the message. */
#define ROW(cond) do { \
	unit_checks++; \
	if (!(cond)) { \
		unit_failures++; \
		fprintf(stderr, "%s:%d: %s: CHECK(%s) failed\n", __FILE__, __LINE__, \
			si->name, #cond); \
	} \
} while (0)

static bool takes(const struct riot_sys_info *si, enum riot_arg role)
{
	for (unsigned i = 0; i < 6; i++)
		if (si->args[i] == role)
			return true;
	return false;
}

static void check_row(unsigned sys)
{
	const struct riot_sys_info *si = riot_sys_info(sys);
	const struct riot_sys_sem *sem = riot_sys_sem(sys);
	bool async = si->flags & RIOT_SF_ASYNC;
	bool with_act = sem->plan == RIOT_PLAN_FD || sem->plan == RIOT_PLAN_PATH ||
			sem->plan == RIOT_PLAN_CALL;

	/* a value in every column */
	ROW(sem->failed != RIOT_FAILED_UNSET && sem->failed <= RIOT_FAILED_ALWAYS);
	ROW(sem->plan != RIOT_PLAN_NONE && sem->plan < RIOT_PLAN_COUNT);
	ROW(sem->nofollow != RIOT_NOFOLLOW_UNSET && sem->nofollow <= RIOT_NOFOLLOW_FLAG);
	ROW(sem->init != RIOT_INIT_UNSET && sem->init < RIOT_INIT_COUNT);
	ROW(sem->fio != RIOT_FIO_UNSET && sem->fio < RIOT_FIO_COUNT);
	ROW(sem->model != RIOT_MODEL_UNSET && sem->model < RIOT_MODEL_COUNT);
	ROW(sem->twin < RIOT_SYS_COUNT);
	ROW(with_act == (replay_sys_act(sys) >= 0));

	/* a twin for the asynchronous requests replayed as a syscall only */
	ROW((sem->plan == RIOT_PLAN_TWIN) == (sem->twin != sys));
	if (async)
		ROW(sem->plan == RIOT_PLAN_TWIN || sem->plan == RIOT_PLAN_STATE ||
		    sem->plan == RIOT_PLAN_UNREPLAYABLE);
	else
		ROW(sem->plan != RIOT_PLAN_TWIN);
	if (sem->plan == RIOT_PLAN_TWIN && sem->twin < RIOT_SYS_COUNT) {
		const struct riot_sys_sem *t = riot_sys_sem(sem->twin);

		ROW(!(riot_sys_info(sem->twin)->flags & RIOT_SF_ASYNC));
		ROW(t->plan != RIOT_PLAN_TWIN && t->plan != RIOT_PLAN_NONE);
		ROW(t->nofollow == sem->nofollow);
	}

	/* the plan's handler finds what it needs in the record */
	if (sem->plan == RIOT_PLAN_FD || sem->plan == RIOT_PLAN_DATA ||
	    sem->plan == RIOT_PLAN_COPY || sem->plan == RIOT_PLAN_CLOSE ||
	    sem->plan == RIOT_PLAN_SEEK || sem->plan == RIOT_PLAN_IOCTL)
		ROW(takes(si, RIOT_ARG_FD));
	if (sem->plan == RIOT_PLAN_PATH || sem->plan == RIOT_PLAN_OPEN)
		ROW(takes(si, RIOT_ARG_PATH));
	if (sem->plan == RIOT_PLAN_DATA)
		ROW(si->cls == RIOT_CLASS_DATA_READ || si->cls == RIOT_CLASS_DATA_WRITE);
	if (sem->plan == RIOT_PLAN_COPY)
		ROW(si->cls == RIOT_CLASS_DATA_COPY);
	if (sem->nofollow != RIOT_NOFOLLOW_NO)
		ROW(sem->plan == RIOT_PLAN_PATH || sem->plan == RIOT_PLAN_TWIN);
	if (sem->model == RIOT_MODEL_MAKE_FD)
		ROW((si->flags & RIOT_SF_RET_FD) || takes(si, RIOT_ARG_FDPAIR));
	if (sem->model == RIOT_MODEL_URING)
		ROW(async && strncmp(si->name, "io_uring:", 9) == 0);
	else
		ROW(strncmp(si->name, "io_uring:", 9) != 0);
	if (sem->nofollow == RIOT_NOFOLLOW_FLAG && !async)
		ROW(takes(si, RIOT_ARG_FLAGS));
}

int main(void)
{
	for (unsigned sys = 0; sys < RIOT_SYS_COUNT; sys++) {
		CHECK(riot_sys_info(sys) && riot_sys_sem(sys));
		if (riot_sys_info(sys) && riot_sys_sem(sys))
			check_row(sys);
	}
	CHECK(riot_sys_sem(RIOT_SYS_COUNT) == NULL);
	CHECK_EQ(replay_sys_act(RIOT_SYS_COUNT), -1);
	return unit_done();
}
