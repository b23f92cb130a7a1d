#!/usr/bin/env bash
# two threads writing concurrently: distinct tids in one pid, fork and exit records per thread, fds resolved through the shared table.
. "$(dirname "$0")/lib.sh"
require_capture
capture_workload threads
check_trace <<'PY'
th = [t.path("th0.dat"), t.path("th1.dat")]
CLONE_THREAD = 0x10000
THREAD_FLAGS = 0x350f00  # VM FS FILES SIGHAND THREAD SYSVSEM PARENT_SETTID CHILD_CLEARTID
forks = [r for r in t.procs("fork", pid=WPID) if r.get("tid") == WPID]
t.eq("fork records of the workload", len(forks), 2)
tids = [r.get("child_tid") for r in forks]
for r in forks:
    t.eq("thread fork record child_pid", r.get("child_pid"), WPID)
    t.eq("thread fork record clone_flags", r.get("clone_flags"), THREAD_FLAGS)
t.true("two distinct thread ids besides the main thread: %r" % tids,
       len(set(tids)) == 2 and WPID not in tids)
t.expect_seq("main thread", t.main_calls(), [
    E("openat", ret=4, path=th[0], flags=O_CREAT | O_WRONLY | O_TRUNC, created=1),
    E("openat", ret=5, path=th[1], flags=O_CREAT | O_WRONLY | O_TRUNC, created=1),
    E("clone", flags=THREAD_FLAGS, ret=tids[0] if len(tids) > 0 else None),
    E("clone", flags=THREAD_FLAGS, ret=tids[1] if len(tids) > 1 else None),
    E("close", fd=5, ret=0, path=th[1]),
    E("close", fd=4, ret=0, path=th[0]),
])
t.eq("clone records in all (the child side of clone is not a record)",
     len(t.calls(op="clone")), 2)
for i, tid in enumerate(tids[:2]):
    seq = [E("pwrite64", pid=WPID, fd=4 + i, count=4096, off=k * 4096, ret=4096, path=th[i])
           for k in range(4)]
    seq.append(E("fdatasync", pid=WPID, fd=4 + i, ret=0, path=th[i]))
    t.expect_seq("thread %d (tid %s)" % (i, tid), t.calls(tid=tid), seq)
    ex = [r for r in t.procs("exit") if r.get("tid") == tid]
    if t.eq("exit records of thread %d" % i, len(ex), 1):
        t.eq("thread %d exit pid" % i, ex[0].get("pid"), WPID)
tids_seen = {r.get("tid") for r in t.sys}
t.eq("tids with syscalls", tids_seen, {WPID} | set(tids))
for p in th:
    t.eq(p + " size", os.path.getsize(p), 16384)
t.common()
PY
