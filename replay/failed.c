/* replay/failed.c: how a captured failure is reproduced (replay/syscalls.def). */
#include <errno.h>

#include "replay/plan.h"

enum { FAILED_ACCOUNT, FAILED_LOOKUP, FAILED_ALWAYS };

static const unsigned char failed_how[RIOT_SYS_COUNT] = {
#define RIOT_REPLAY(name, failed) [RIOT_SYS_##name] = FAILED_##failed,
#include "replay/syscalls.def"
#undef RIOT_REPLAY
};

/* Every riot syscall has its row: as many rows as ids (a second row of
 * one id would be an initializer overridden, an error under -Wextra). */
enum {
#define RIOT_REPLAY(name, failed) FAILED_ROW_##name,
#include "replay/syscalls.def"
#undef RIOT_REPLAY
	FAILED_ROWS
};
_Static_assert((int)FAILED_ROWS == (int)RIOT_SYS_COUNT, "replay/syscalls.def: a syscall without a row");

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
	if (ret >= 0)
		return true;
	if (sys >= RIOT_SYS_COUNT)
		return false;
	switch (failed_how[sys]) {
	case FAILED_ALWAYS: return true;
	case FAILED_LOOKUP: return tree_error(ret);
	default: return false;
	}
}
