#!/usr/bin/env bash
# riot import strace: the workload traced by `strace -f -ttt -T -yy -p`,
# imported, then checked like a capture: calls, resolved paths (an fd open
# before the trace through its -yy annotation), threads, exit, skips.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || unavailable "strace -p needs root (ptrace)"
command -v strace >/dev/null 2>&1 || unavailable "strace is not installed"
[ -x "$BIN/workload" ] || fail "$BIN/workload is missing"
W=$IT_TMP/w
LOG=$IT_TMP/imp.riot
mkdir -p "$W"
"$BIN/workload" --dir "$W" rw prefd threads >"$IT_TMP/wl.out" 2>"$IT_TMP/wl.err" </dev/null &
WPID=$!
IT_PIDS+=("$WPID")
wait_until "the workload to be ready" 300 grep -q ' ready$' "$IT_TMP/wl.out"
strace -f -ttt -T -yy -p "$WPID" -o "$IT_TMP/trace.txt" 2>"$IT_TMP/strace.err" &
SPID=$!
IT_PIDS+=("$SPID")
wait_until "strace to attach" 300 grep -q attached "$IT_TMP/strace.err"
kill -USR1 "$WPID" || fail "workload $WPID is gone before the go signal"
wait_exit "$WPID" "the workload" 1200
[ "$REPLY" -eq 0 ] || { cat "$IT_TMP/wl.err" >&2; fail "workload exited $REPLY"; }
wait_exit "$SPID" "strace" 600
grep -q ' +++ exited with 0 +++' "$IT_TMP/trace.txt" || fail "strace did not see the exit"

"$RIOT" import strace "$IT_TMP/trace.txt" -o "$LOG" >"$IT_TMP/imp.out" 2>"$IT_TMP/imp.err" ||
	fail "riot import exited $?: $(cat "$IT_TMP/imp.err")"
# every line is used or skipped for a reason strace output has: the
# interrupted wait and the calls riot does not record
grep -qE '^ +(unparsed|bad_args|orphan_resume|unfinished|no_timestamp|too_long) ' "$IT_TMP/imp.out" &&
	fail "lines skipped for a reason a clean trace must not have: $(cat "$IT_TMP/imp.out")"
dump_log "$LOG"
check_trace <<'PY'
rw = t.path("rw.dat")
pre = t.path("prefd.dat")
th = [t.path("th0.dat"), t.path("th1.dat")]
THREAD_FLAGS = 0x350f00
main = t.main_calls()
t.expect_seq("rw + prefd", main[:14], [
    E("openat", ret=4, dirfd=AT_FDCWD, path=rw, flags=O_CREAT | O_RDWR | O_TRUNC, mode=0o644),
    E("write", fd=4, count=4096, ret=4096, path=rw),
    E("write", fd=4, count=4096, ret=4096, path=rw),
    E("write", fd=4, count=100, ret=100, path=rw),
    E("close", fd=4, ret=0, path=rw),
    E("openat", ret=4, dirfd=AT_FDCWD, path=rw, flags=O_RDONLY),
    E("read", fd=4, count=8192, ret=8192, path=rw),
    E("read", fd=4, count=8192, ret=100, path=rw),
    E("read", fd=4, count=8192, ret=0, path=rw),
    E("close", fd=4, ret=0, path=rw),
    # fd 3 was opened before strace attached: its -yy note made it known
    E("read", fd=3, count=500, ret=500, path=pre),
    E("pwrite64", fd=3, count=100, off=6000, ret=100, path=pre),
    E("fstat", fd=3, ret=0, size=6100, ftype=S_IFREG, path=pre),
    E("lseek", fd=3, off=0, cmd=1, ret=1500, path=pre),
])
fds = [r for r in t.of_type("snap_fd") if r.get("fd") == 3]
if t.eq("one snap_fd for fd 3", len(fds), 1):
    t.eq("snap_fd 3 path", fds[0].get("path"), pre)
    t.eq("snap_fd 3 pid", fds[0].get("pid"), WPID)
forks = [r for r in t.procs("fork", pid=WPID) if r.get("tid") == WPID]
t.eq("fork records of the workload", len(forks), 2)
tids = [r.get("child_tid") for r in forks]
for r in forks:
    t.eq("thread fork child_pid", r.get("child_pid"), WPID)
    t.eq("thread fork clone_flags", r.get("clone_flags") & 0xffffff00, THREAD_FLAGS)
for i, tid in enumerate(tids[:2]):
    seq = [E("pwrite64", pid=WPID, fd=4 + i, count=4096, off=k * 4096, ret=4096, path=th[i])
           for k in range(4)]
    seq.append(E("fdatasync", pid=WPID, fd=4 + i, ret=0, path=th[i]))
    t.expect_seq("thread %d (tid %s)" % (i, tid), t.calls(tid=tid), seq)
ex = [r for r in t.procs("exit") if r.get("tid") == WPID]
if t.eq("exit records of the main thread", len(ex), 1):
    t.eq("exit code", ex[0].get("exit_code"), 0)
t.eq("info unresolved_fds", (t.info or {}).get("unresolved_fds"), 0)
t.eq("info unknown_cwd", (t.info or {}).get("unknown_cwd"), 0)
t.check_info()
PY
