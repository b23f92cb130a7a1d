#!/usr/bin/env bash
# Capture for a fleet: --unit NAME finds the unit's cgroup (system.slice/
# NAME of the cgroup2 mount; ".service" added to a bare name) and records
# its processes; riot never records itself: with riot inside the unit's
# cgroup, and with -a, the log holds no record of riot's pid (no call, no
# start state) and no write of the log file. A unit with no cgroup is one
# line and exit 1; a name with a slash a usage error.
. "$(dirname "$0")/lib.sh"
require_capture

cgroup2_mount
# the unit's cgroup as systemd makes it; made here when systemd is not
# running (system.slice too, removed after when this test made it)
made_slice=
if [ ! -d "$cg_root/system.slice" ]; then
	mkdir "$cg_root/system.slice" || fail "cannot create $cg_root/system.slice"
	made_slice=$cg_root/system.slice
fi
UNIT=riot-test-$$
CG=$cg_root/system.slice/$UNIT.service
mkdir "$CG" || fail "cannot create cgroup $CG"
cleanup_cg() {
	local p
	while read -r p; do
		echo "$p" >"$cg_root/cgroup.procs" 2>/dev/null
	done < <(cat "$CG/cgroup.procs" 2>/dev/null)
	rmdir "$CG" 2>/dev/null
	[ -z "$made_slice" ] || rmdir "$made_slice" 2>/dev/null
	it_cleanup
}
trap cleanup_cg EXIT

# no such unit; a name that is a path
"$RIOT" capture -o "$IT_TMP/x.riot" --unit "nosuch-$$" >/dev/null 2>"$IT_TMP/err"
rc=$?
[ "$rc" = 1 ] || fail "--unit nosuch exited $rc, expected 1"
grep -q "^riot: capture: --unit nosuch-$$: no cgroup nosuch-$$.service under $cg_root (is the unit running?)\$" \
	"$IT_TMP/err" || fail "--unit nosuch: $(cat "$IT_TMP/err")"
"$RIOT" capture -o "$IT_TMP/x.riot" --unit a/b >/dev/null 2>&1
[ $? = 2 ] || fail "--unit a/b must be a usage error"
[ ! -e "$IT_TMP/x.riot" ] || fail "a failed --unit left a log"

# capture_in NAME CGROUP ARGS...: the workload's rw scenario, with riot
# capture ARGS started inside CGROUP (none: where the test runs), the
# workload moved into $CG; stopped by SIGINT once the workload is done.
capture_in() {
	local name=$1 cg=$2
	shift 2
	start_rw_workload "$name"
	echo "$WPID" >"$CG/cgroup.procs" || fail "cannot move $WPID into $CG"
	CG_IN=$cg RIOT=$RIOT sh -c '[ -z "$CG_IN" ] || echo $$ >"$CG_IN/cgroup.procs" || exit 99
		exec "$RIOT" capture "$@"' sh -o "$LOG" "$@" >"$IT_TMP/cap.out" 2>"$IT_TMP/cap.err" </dev/null &
	CPID=$!
	IT_PIDS+=("$CPID")
	wait_until "riot capture $* to attach" 600 capture_attached "$CPID" "$LOG"
	wait_until "the start state" 600 start_state_written "$CPID" "$LOG" "$WPID"
	kill -USR1 "$WPID"
	wait_exit "$WPID" "the workload" 1200
	[ "$REPLY" = 0 ] || fail "workload exited $REPLY: $(cat "$IT_TMP/wl.err")"
	kill -INT "$CPID"
	wait_exit "$CPID" "riot capture $*" 600
	[ "$REPLY" = 0 ] || fail "riot capture $* exited $REPLY: $(cat "$IT_TMP/cap.err")"
	dump_log "$LOG"
}

# check_log WHO: the workload's writes are there; riot is not (pid, start
# state, calls on the log); with WHO=unit nothing but the workload is
check_log() {
	python3 - "$IT_TMP/dump.jsonl" "$1" "$CPID" "$WPID" "$LOG" "$W/rw.dat" <<'PY'
import json, sys
who, cpid, wpid, log, data = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
recs = [json.loads(l) for l in open(sys.argv[1])]
bad = []
writes = [r for r in recs if r.get("type") == "syscall" and r.get("op") == "write" and r.get("path") == data]
if [r["ret"] for r in writes] != [4096, 4096, 100] or {r["pid"] for r in writes} != {wpid}:
    bad.append("the workload's writes: %s" % [(r["pid"], r["ret"]) for r in writes])
mine = [r for r in recs if r.get("pid") == cpid or r.get("child_pid") == cpid]
if mine:
    bad.append("%d records of riot itself, first %s" % (len(mine), mine[0]))
# anyone may look at the log (the test polls its size); nobody writes it
# but riot, unrecorded
changes = ("write", "pwrite64", "writev", "pwritev", "pwritev2", "fsync", "fdatasync",
           "sync_file_range", "ftruncate", "fallocate", "copy_file_range", "sendfile64")
onlog = [r for r in recs if r.get("type") == "syscall" and r.get("path") == log and
         (r.get("op") in changes or (r.get("op") in ("openat", "open", "creat", "openat2") and
                                     r.get("flags", 0) & 3))]
if onlog:
    bad.append("%d writes of the log file, first %s" % (len(onlog), onlog[0]))
if who == "unit":
    pids = {r.get("pid") for r in recs if r.get("type") in ("syscall", "proc", "snap_proc")}
    if pids != {wpid}:
        bad.append("pids %s, expected only the workload's %d" % (sorted(pids), wpid))
for b in bad:
    print("  " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

# riot inside the unit's cgroup, by the bare unit name
capture_in unit "$CG" --unit "$UNIT"
grep -q "cgroup: $CG" "$IT_TMP/cap.err" || fail "capture did not say the unit's cgroup: $(cat "$IT_TMP/cap.err")"
check_log unit || fail "--unit with riot inside the unit records more than the unit's workload"
echo "--unit $UNIT: the unit's workload, not riot in it"
# the whole host
capture_in all "" -a
check_log all || fail "-a records riot itself"
echo "-a: no call of riot, none on the log"
echo ok
