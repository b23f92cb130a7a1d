/* replay/failed.c: how a captured failure is reproduced (the failed
 * column of formats/semantics.def). */
#include <errno.h>

#include "formats/semantics.h"
#include "replay/plan.h"

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
