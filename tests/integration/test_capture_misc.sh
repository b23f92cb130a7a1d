#!/usr/bin/env bash
# File calls beside reads and writes that ordinary programs make: flock,
# readahead, fstatfs, ioctl(FIONREAD), statfs, utime, utimes, futimesat,
# getcwd and umask are recorded with their arguments; replay, on both
# engines, issues flock, readahead, statfs, fstatfs and the utime family
# without divergence, counts ioctl as not replayable and getcwd and umask,
# which do no I/O, as state only.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
require_capture
capture_workload misc
check_trace <<'PY'
f = t.path("misc.dat")
LOCK_EX, LOCK_UN, FIONREAD = 2, 8, 0x541B
t.expect_seq("misc", t.main_calls(), [
    E("openat", ret=4, path=f),
    E("flock", fd=4, cmd=LOCK_EX, ret=0, path=f),
    E("flock", fd=4, cmd=LOCK_UN, ret=0, path=f),
    E("readahead", fd=4, off=0, count=4096, ret=0, path=f),
    E("fstatfs", fd=4, ret=0, path=f),
    E("ioctl", fd=4, cmd=FIONREAD, ret=0, path=f),
    E("close", fd=4, ret=0, path=f),
    E("statfs", ret=0, path=f),
    E("utime", ret=0, path=f),
    E("utimes", ret=0, path=f),
    E("futimesat", dirfd=AT_FDCWD, ret=0, path=f, path_raw="misc.dat"),
    E("getcwd", count=65536, ret=len(t.wdir) + 1),
    E("umask", mode=0o22, ret=0o22),
])
t.eq("info: unresolved fd operations", t.info.get("unresolved_fds"), 0)
t.common()
PY
for e in uring sync; do
	replay_json "$LOG" "$IT_TMP/root-$e" --engine "$e"
	same_counts "$IT_TMP/info.json"
	replay_treats "misc ($e)" "flock readahead fstatfs statfs utime utimes futimesat" \
		"ioctl=1" "getcwd=1 umask=1"
done
