#!/usr/bin/env bash
# The filters and the targets besides -p: --path (in the kernel and in riot),
# --ops, --comm, --cgroup and -a, each with the exact calls it must keep.
. "$(dirname "$0")/lib.sh"
require_capture

# ---- --path DIR/in on the paths scenario ----
CAP_ARGS=(--path "$IT_TMP/w/in")
capture_workload paths
check_trace <<'PY'
a, d = t.path("in/a"), t.path("in/d")
t.expect_seq("paths under --path", t.main_calls(), [
    E("openat", ret=4, path=a, flags=O_RDWR),
    E("pwrite64", fd=4, count=10, off=0, ret=10, path=a),
    E("close", fd=4, ret=0, path=a),
    # A name that folds back under the prefix is resolved, not dropped.
    E("newfstatat", ret=0, path=a, path_raw=t.path("out/../in/a")),
    E("rename", ret=0, path=t.path("out/d"), path2=d),
    E("chdir", ret=0, path=t.path("out")),
    E("chdir", ret=0, path=t.wdir),
    E("unlink", ret=0, path=d),
    # A directory opened outside, the dirfd of a path inside: logged as
    # found open before that call, so the path resolves; its close is kept.
    E("newfstatat", dirfd=4, ret=0, path=a, path_raw="../in/a"),
    E("close", fd=4, ret=0, path=t.path("out")),
])
base = [r for r in t.of_type("snap_fd") if r.get("fd") == 4]
t.eq("the dirfd as found open", [(r.get("pid"), r.get("path"), r.get("ftype")) for r in base],
     [(WPID, t.path("out"), S_IFDIR)])
t.eq("info: unresolved fd operations", t.info.get("unresolved_fds"), 0)
t.common(prefd=False)
PY
# In the kernel: the preads and the fstat of the file opened by an absolute
# path outside (also through its dup), the stat of it, the rename within
# out/, the mkdir and rmdir there: 7. The rest (the opens, the dup and the
# closes, which riot follows; the relative open and its pread, which only
# riot can resolve) is dropped in userspace.
grep -qx '  filtered   [0-9]* (outside --path; 7 of them in the kernel)' "$IT_TMP/cap.err" ||
	fail "--path: expected 7 calls filtered in the kernel: $(grep filtered "$IT_TMP/cap.err")"
# The summary counts what the log holds, as info does, and the same span.
python3 - "$IT_TMP/cap.err" "$IT_TMP/info.json" <<'PY' || fail "--path: the capture summary disagrees with riot info"
import json, re, sys
summ, info = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
m = re.search(r"events +(\d+) \((\d+) syscalls, (\d+) process events\)", summ)
d = re.search(r"duration +([0-9.]+) s", summ)
procs = sum(info["records"].get(k, 0) for k in ("proc",))
got = (int(m.group(1)), int(m.group(2)), int(m.group(3)), d.group(1)) if m and d else summ
want = (info["events"], info["syscalls"], procs, "%.3f" % (info["duration_ns"] / 1e9))
if got != want:
    sys.exit("FAIL: summary (events, syscalls, process events, duration) %r, info %r" % (got, want))
PY

# ---- --path with bytes above 0x7f: compared as bytes, in the kernel too ----
mkdir -p "$IT_TMP/ü" "$IT_TMP/o"
printf 'twelve bytes' >"$IT_TMP/ü/f"
printf 'twelve bytes' >"$IT_TMP/o/g"
LOG=$IT_TMP/utf8.riot
"$RIOT" capture --path "$IT_TMP/ü" -o "$LOG" -- cat "$IT_TMP/o/g" "$IT_TMP/ü/f" >/dev/null \
	2>"$IT_TMP/cap.err" || fail "riot capture --path (UTF-8) exited $?: $(cat "$IT_TMP/cap.err")"
dump_log "$LOG"
python3 - "$IT_TMP/dump.jsonl" "$IT_TMP/ü/f" <<'PY' || fail "--path with a UTF-8 prefix: wrong records"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
f = sys.argv[2]
got = [(r["op"], r.get("ret")) for r in recs if r["type"] == "syscall" and r.get("path") == f
       and r["op"] in ("openat", "read", "close")]
other = [r for r in recs if r["type"] == "syscall" and r["op"] != "execve" and r.get("path") != f]
bad = []
if got != [("openat", 3), ("read", 12), ("read", 0), ("close", 0)]:
    bad.append("calls on f: %r" % got)
if other:
    bad.append("calls outside the prefix: %r" % other[:3])
print("\n".join(bad) or "ok")
sys.exit(1 if bad else 0)
PY
# cat's fstat, fadvise64 and two reads of o/g never left the kernel.
grep -qx '  filtered   [0-9]* (outside --path; [1-9][0-9]* of them in the kernel)' "$IT_TMP/cap.err" ||
	fail "--path (UTF-8): nothing filtered in the kernel: $(grep filtered "$IT_TMP/cap.err")"

# ---- --ops: only these syscalls, the rest never leaves the kernel ----
CAP_ARGS=(--ops "pread64,close")
capture_workload paths
check_trace <<'PY'
# Without the opens (and the dup), each fd is introduced at its first
# recorded use with the path of its file, so the calls still resolve.
W_ = t.path("")
t.expect_seq("paths, --ops pread64,close", t.main_calls(), [
    E("pread64", fd=4, count=10, off=0, ret=10, path=W_ + "out/b"),
    E("pread64", fd=5, count=10, off=20, ret=10, path=W_ + "out/b"),
    E("close", fd=5, ret=0, path=W_ + "out/b"),
    E("close", fd=4, ret=0, path=W_ + "out/b"),
    E("close", fd=4, ret=0, path=W_ + "in/a"),
    E("pread64", fd=4, count=10, off=50, ret=10, path=W_ + "out/b"),
    E("close", fd=4, ret=0, path=W_ + "out/b"),
    E("close", fd=4, ret=0, path=W_ + "out"),
])
t.common(prefd=False)
PY

# ---- --comm: the commands of one name among those of a shell ----
mkdir -p "$IT_TMP/c"
printf 'twelve bytes' >"$IT_TMP/c/f"
LOG=$IT_TMP/comm.riot
"$RIOT" capture -q --comm cat -o "$LOG" -- sh -c \
	"cat '$IT_TMP/c/f' >/dev/null; stat '$IT_TMP/c/f' >/dev/null; cat '$IT_TMP/c/f' >/dev/null" ||
	fail "riot capture --comm exited $?"
dump_log "$LOG"
python3 - "$IT_TMP/dump.jsonl" "$IT_TMP/c/f" <<'PY' || fail "--comm cat: wrong records"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
f = sys.argv[2]
sc = [r for r in recs if r["type"] == "syscall"]
execs = {r["pid"] for r in recs if r["type"] == "proc" and r.get("kind") == "exec"}
cats = {r["pid"] for r in recs if r["type"] == "proc" and r.get("kind") == "exec"
        and r.get("comm") == "cat"}
bad = []
if len(cats) != 2 or execs != cats:
    bad.append("exec records: %r, cat: %r" % (sorted(execs), sorted(cats)))
if {r["pid"] for r in sc} != cats:
    bad.append("syscalls of pids %r, not just the two cats %r" % (sorted({r["pid"] for r in sc}), sorted(cats)))
for pid in cats:
    opens = [r for r in sc if r["pid"] == pid and r["op"] == "openat" and r.get("path") == f]
    reads = [r.get("ret") for r in sc if r["pid"] == pid and r["op"] == "read" and r.get("path") == f]
    if len(opens) != 1 or reads != [12, 0]:
        bad.append("cat %d: %d opens of f, reads %r" % (pid, len(opens), reads))
print("\n".join(bad) or "ok")
sys.exit(1 if bad else 0)
PY

# ---- --cgroup and -a: the workload's rw calls, nobody else's ----
# capture_target NAME ARGS...: runs the workload's rw scenario with
# `riot capture ARGS` started before the go signal and stopped by SIGINT
# after the workload ended; another process does file I/O all along.
capture_target() {
	local name=$1
	shift
	start_rw_workload "$name"
	[ -z "${CG:-}" ] || echo "$WPID" >"$CG/cgroup.procs" || fail "cannot move $WPID into $CG"
	"$BIN/sysloop" stat 100000000 "$IT_TMP/c/f" 1000 >/dev/null &
	NOISE=$!
	IT_PIDS+=("$NOISE")
	"$RIOT" capture -o "$LOG" "$@" >"$IT_TMP/cap.out" 2>"$IT_TMP/cap.err" </dev/null &
	CPID=$!
	IT_PIDS+=("$CPID")
	wait_until "riot capture $* to attach" 600 capture_attached "$CPID" "$LOG"
	kill -USR1 "$WPID"
	wait_exit "$WPID" "the workload" 1200
	[ "$REPLY" = 0 ] || fail "workload exited $REPLY: $(cat "$IT_TMP/wl.err")"
	# The paced noise runs in bursts; one more process that surely makes
	# its calls while riot is attached: -a records it, --cgroup does not.
	"$BIN/sysloop" stat 10 "$IT_TMP/c/f" >/dev/null &
	ONESHOT=$!
	wait "$ONESHOT" || fail "sysloop exited $?"
	kill -INT "$CPID"
	wait_exit "$CPID" "riot capture $*" 600
	[ "$REPLY" = 0 ] || fail "riot capture $* exited $REPLY: $(cat "$IT_TMP/cap.err")"
	kill "$NOISE"
	dump_log "$LOG"
}
check_rw() { # what the target must also leave out: "others" or "self"
	WHO=$1 CPID=$CPID NOISE=$NOISE ONESHOT=$ONESHOT check_trace <<'PY'
p = t.path("rw.dat")
t.expect_seq("rw", t.main_calls(), [
    E("openat", ret=4, path=p, created=1),
    E("write", fd=4, ret=4096, path=p), E("write", fd=4, ret=4096, path=p),
    E("write", fd=4, ret=100, path=p), E("close", fd=4, path=p),
    E("openat", ret=4, path=p, size=8292),
    E("read", fd=4, ret=8192, path=p), E("read", fd=4, ret=100, path=p),
    E("read", fd=4, ret=0, path=p), E("close", fd=4, path=p),
])
pids = {r.get("pid") for r in t.recs if r.get("type") in ("syscall", "proc")}
t.true("riot capture's own calls are left out", int(os.environ["CPID"]) not in pids)
if os.environ["WHO"] == "others":
    t.eq("pids outside the cgroup", pids - {t.wpid}, set())
else:
    t.true("another process is recorded too", int(os.environ["ONESHOT"]) in pids)
t.eq("drop records", t.of_type("drop"), [])
PY
}

cgroup2_mount
CG=$cg_root/riot-it-$$
mkdir "$CG" || fail "cannot create cgroup $CG"
capture_target cg --cgroup "$CG"
rmdir "$CG" 2>/dev/null
check_rw others
CG=
capture_target all -a
check_rw self
echo ok
