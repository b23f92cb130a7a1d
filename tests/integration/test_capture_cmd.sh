#!/usr/bin/env bash
# `riot capture -o F -- CMD`: CMD's exit status (or 128+signal) is riot's,
# CMD and its descendants are traced from exec on, nothing else is.
. "$(dirname "$0")/lib.sh"
require_capture

W=$IT_TMP/w
LOG=$IT_TMP/cmd.riot
WPID=0
mkdir -p "$W"
"$RIOT" capture -q -o "$LOG" -- "$BIN/workload" --dir "$W" --no-wait --exit 3 fork rw \
	>"$IT_TMP/cap.out" 2>"$IT_TMP/cap.err" </dev/null
rc=$?
[ "$rc" -eq 3 ] || { cat "$IT_TMP/cap.err" >&2; fail "capture -- workload --exit 3 exited $rc, expected 3"; }
dump_log "$LOG"
WL="$BIN/workload" check_trace <<'PY'
wl = os.path.realpath(os.environ["WL"])
ex = [r for r in t.procs("exec") if r.get("path") and os.path.realpath(r["path"]) == wl]
t.eq("exec records of the workload", len(ex), 1)
root = ex[0]["pid"] if ex else -1
t.wpid = root
t.eq("exec comm", ex[0].get("comm") if ex else None, "workload")
forks = t.procs("fork", pid=root)
kids = [r.get("child_pid") for r in forks] + [-1, -1, -1]
t.eq("children of the workload", len(forks), 3)
sh, fc, cc, rw = (t.path(x) for x in ("fk_shared.dat", "fk_child.dat", "cl_child.dat", "rw.dat"))
tail = [
    E("openat", ret=4, path=sh, created=1),
    E("fork", ret=kids[0]),
    E("pwrite64", fd=4, count=50, off=100, ret=50, path=sh),
    E("close", fd=4, ret=0, path=sh),
    E("clone", flags=17, ret=kids[1]),
    E("vfork", ret=kids[2]),
    E("openat", ret=4, path=rw, flags=O_CREAT | O_RDWR | O_TRUNC, mode=0o644, created=1, size=0),
    E("write", fd=4, count=4096, ret=4096, path=rw),
    E("write", fd=4, count=4096, ret=4096, path=rw),
    E("write", fd=4, count=100, ret=100, path=rw),
    E("close", fd=4, ret=0, path=rw),
    E("openat", ret=4, path=rw, flags=O_RDONLY, size=8292),
    E("read", fd=4, count=8192, ret=8192, path=rw),
    E("read", fd=4, count=8192, ret=100, path=rw),
    E("read", fd=4, count=8192, ret=0, path=rw),
    E("close", fd=4, ret=0, path=rw),
]
main = t.calls(tid=root)
t.expect_seq("workload's last calls", main[-len(tail):], tail)
# Descendants are traced: the fork child's and the clone child's calls.
t.eq("fork child ops", [r.get("op") for r in t.calls(tid=kids[0])],
     ["pwrite64", "openat", "write", "close"])
t.eq("clone child ops", [r.get("op") for r in t.calls(tid=kids[1])], ["openat", "write", "close"])
t.eq("exec of /bin/true by the vfork child",
     [(r.get("pid"), r.get("path")) for r in t.procs("exec") if r.get("pid") != root],
     [(kids[2], "/bin/true")])
codes = {r.get("tid"): r.get("exit_code") for r in t.procs("exit")}
t.eq("exit codes", {k: codes.get(k) for k in [root] + kids[:3]},
     {root: 3 << 8, kids[0]: 7 << 8, kids[1]: 0, kids[2]: 0})
# Only the command's tree: every pid descends from the exec'd workload, or
# is the process riot started that became it.
pids = t.traced_pids()
for r in t.recs:
    if r.get("type") in ("syscall", "proc") and r.get("pid") not in pids:
        t.fail("record of a process outside the command's tree: %s" % json.dumps(r))
t.eq("drop records", t.of_type("drop"), [])
t.check_info()
PY

# Exit status by signal: 128 + N.
"$RIOT" capture -q -o "$IT_TMP/sig.riot" -- sh -c 'kill -TERM $$' >/dev/null 2>"$IT_TMP/sig.err" </dev/null
rc=$?
[ "$rc" -eq 143 ] || { cat "$IT_TMP/sig.err" >&2; fail "capture -- (command killed by SIGTERM) exited $rc, expected 143"; }

# A grandchild through a shell: its calls are traced under its own pid,
# whose fork record names the shell as parent.
W=$IT_TMP/w2
mkdir -p "$W"
LOG=$IT_TMP/sh.riot
"$RIOT" capture -q -o "$LOG" -- sh -c "\"$BIN/workload\" --dir \"$W\" --no-wait rw; exit 5" \
	>/dev/null 2>"$IT_TMP/sh.err" </dev/null
rc=$?
[ "$rc" -eq 5 ] || { cat "$IT_TMP/sh.err" >&2; fail "capture -- sh -c '...; exit 5' exited $rc, expected 5"; }
dump_log "$LOG"
check_trace <<'PY'
rw = t.path("rw.dat")
ex = [r for r in t.procs("exec") if r.get("comm") == "workload"]
t.eq("exec records of the workload", len(ex), 1)
wpid = ex[0].get("pid") if ex else -1
tail = [r for r in t.calls(tid=wpid)][-10:]
t.expect_seq("the workload's last calls (under the shell)", tail, [
    E("openat", pid=wpid, ret=4, path=rw, created=1),
    E("write", fd=4, count=4096, ret=4096, path=rw),
    E("write", fd=4, count=4096, ret=4096, path=rw),
    E("write", fd=4, count=100, ret=100, path=rw),
    E("close", fd=4, ret=0, path=rw),
    E("openat", ret=4, path=rw, size=8292),
    E("read", fd=4, count=8192, ret=8192, path=rw),
    E("read", fd=4, count=8192, ret=100, path=rw),
    E("read", fd=4, count=8192, ret=0, path=rw),
    E("close", fd=4, ret=0, path=rw),
])
parents = [r.get("pid") for r in t.procs("fork") if r.get("child_pid") == wpid]
t.eq("fork records making the workload", len(parents), 1)
t.true("the workload's parent is the traced shell, not riot",
       bool(parents) and any(r.get("pid") == parents[0] for r in t.sys))
t.eq("drop records", t.of_type("drop"), [])
t.check_info()
PY
