# shellcheck shell=bash
# tests/integration/lib.sh: sourced by the capture integration tests.
#
# A test exits 0 (pass), 1 (fail) or 77 (skip). Capture needs root and BPF;
# without them a test skips, except under CI (CI=true), where that is a
# failure. Environment: RIOT (the riot binary), BIN (tools built from
# tests/bin), KEEP=1 keeps the temporary directory for a look afterwards.
#
# The usual shape of a test:
#   . "$(dirname "$0")/lib.sh"
#   require_capture
#   capture_workload rw          # workload + `riot capture -p`, go, wait
#   check_trace <<'EOF'          # Python, see check.py
#   t.expect_seq("rw", t.main_calls(), [E("openat", ret=4), ...])
#   t.common()
#   EOF
set -u
IT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${RIOT:?RIOT must name the riot binary}" "${BIN:?BIN must name the test tools directory}"

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# Root or BPF missing: skip, or fail under CI where both must be there.
unavailable() {
	if [ "${CI:-}" = true ]; then
		echo "FAIL: $* (CI must run the capture tests)" >&2
		exit 1
	fi
	echo "SKIP: $*"
	exit 77
}

require_capture() {
	[ "$(id -u)" -eq 0 ] || unavailable "capture tests need root"
	[ -r /sys/kernel/btf/vmlinux ] || unavailable "kernel without BTF (/sys/kernel/btf/vmlinux)"
	if command -v bpftool >/dev/null 2>&1; then
		bpftool prog show >/dev/null 2>&1 || unavailable "the bpf() syscall is refused here"
	fi
	[ -x "$RIOT" ] || fail "RIOT=$RIOT is not an executable"
	[ -x "$BIN/workload" ] || fail "$BIN/workload is missing (build tests/bin/workload.c)"
	command -v python3 >/dev/null 2>&1 || fail "python3 is required by the integration tests"
}

# The workload dir must be on a filesystem with user xattrs and must have
# no symlink in its path, so resolved paths compare as strings: the root
# filesystem under /var/tmp, canonicalised.
IT_TMP=$(mktemp -d /var/tmp/riot-it.XXXXXX) || fail "mktemp"
IT_TMP=$(realpath "$IT_TMP")
IT_PIDS=()
IT_MOUNTS=()
CAP_ARGS=()	# more `riot capture` arguments for capture_workload

it_cleanup() {
	local p m
	for p in "${IT_PIDS[@]}"; do
		kill -9 "$p" 2>/dev/null
	done
	wait 2>/dev/null
	for m in "${IT_MOUNTS[@]}"; do
		umount -l "$m" 2>/dev/null
	done
	if [ "${KEEP:-}" = 1 ]; then
		echo "kept $IT_TMP" >&2
	else
		rm -rf "$IT_TMP"
	fi
}
trap it_cleanup EXIT

# cgroup2_mount: sets cg_root to where cgroup v2 is mounted; a host with
# none gets one under IT_TMP, unmounted at the end.
cgroup2_mount() {
	cg_root=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
	if [ -z "$cg_root" ]; then
		cg_root=$IT_TMP/cgroup2
		mkdir -p "$cg_root"
		mount -t cgroup2 none "$cg_root" || fail "cannot mount cgroup2"
		IT_MOUNTS+=("$cg_root")
	fi
}

# start_rw_workload NAME: the workload's rw scenario in $IT_TMP/wNAME,
# ready and waiting for its go signal (SIGUSR1); sets W, WPID and LOG
# ($IT_TMP/NAME.riot, for the capture of it).
start_rw_workload() {
	W=$IT_TMP/w$1 LOG=$IT_TMP/$1.riot
	mkdir -p "$W"
	"$BIN/workload" --dir "$W" rw >"$IT_TMP/wl.out" 2>"$IT_TMP/wl.err" </dev/null &
	WPID=$!
	IT_PIDS+=("$WPID")
	wait_until "the workload to be ready" 300 grep -q ' ready$' "$IT_TMP/wl.out"
}

# wait_until WHAT TENTHS CMD...: polls CMD every 0.1 s. The limit only stops
# a hung test; nothing is asserted about how long it took.
wait_until() {
	local what=$1 tenths=$2 i
	shift 2
	for ((i = 0; i < tenths; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	fail "gave up waiting for $what"
}

alive() { kill -0 "$1" 2>/dev/null; }
not_alive() { ! kill -0 "$1" 2>/dev/null; }

# wait_exit PID WHAT TENTHS: reaps a child of this shell, sets REPLY to its
# status; kills it and fails if it has not ended in time.
wait_exit() {
	local pid=$1 what=$2 tenths=$3 i
	for ((i = 0; i < tenths; i++)); do
		if not_alive_or_zombie "$pid"; then
			wait "$pid"
			REPLY=$?
			return 0
		fi
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	fail "$what did not end"
}

not_alive_or_zombie() {
	local st
	st=$(awk '/^State:/ {print $2}' "/proc/$1/status" 2>/dev/null) || return 0
	[ -z "$st" ] || [ "$st" = Z ]
}

# capture_attached CPID LOG: true once capture has attached. Capture creates
# its log after its programs are attached; a capture that died instead
# fails the test with its message.
capture_attached() {
	local cpid=$1 log=$2
	if not_alive_or_zombie "$cpid"; then
		wait "$cpid"
		local rc=$?
		echo "riot capture exited $rc before attaching:" >&2
		cat "$IT_TMP/cap.err" >&2
		exit 1
	fi
	[ -s "$log" ]
}

# start_state_written CPID LOG PID: true once the log's complete blocks hold
# the start state of PID. The log exists before capture has read /proc, so
# the go signal waits for this: a workload that ran (or exited) while its
# fds were being read would make the start state a race. Capture flushes the
# start state to disk as soon as it is written.
start_state_written() {
	capture_attached "$1" "$2" || return 1
	"$RIOT" dump --format jsonl "$2" 2>/dev/null |
		grep '"type": *"snap_proc"' | grep -qE "\"pid\": *$3[,}]"
}

# attach_capture PID LOG [ARGS...]: starts `riot capture -o LOG -p PID ARGS`
# in the background (CPID) and returns once it has attached and written
# PID's start state.
attach_capture() {
	local pid=$1 log=$2
	shift 2
	"$RIOT" capture -o "$log" -p "$pid" "$@" >"$IT_TMP/cap.out" 2>"$IT_TMP/cap.err" </dev/null &
	CPID=$!
	IT_PIDS+=("$CPID")
	wait_until "riot capture to attach and write the start state (log $log)" 600 \
		start_state_written "$CPID" "$log" "$pid"
}

# capture_heavy LOG: starts the workload's endless pread series in
# W=$IT_TMP/w (WPID), attaches `riot capture -o LOG -p WPID` (CPID) and
# releases the workload.
capture_heavy() {
	W=$IT_TMP/w
	mkdir -p "$W"
	: >"$IT_TMP/wl.out"	# see capture_workload
	"$BIN/workload" --dir "$W" heavy >"$IT_TMP/wl.out" 2>"$IT_TMP/wl.err" </dev/null &
	WPID=$!
	IT_PIDS+=("$WPID")
	wait_until "the workload to be ready" 300 grep -q ' ready$' "$IT_TMP/wl.out"
	attach_capture "$WPID" "$1"
	kill -USR1 "$WPID"
}

# capture_workload [-x CODE] SCENARIO...: runs the workload in W=$IT_TMP/w,
# attaches `riot capture -o $LOG -p WPID "${CAP_ARGS[@]}"`, sends the go
# signal, waits for both, checks that the workload's own checks passed
# (status CODE, 0 by default) and that capture exited 0, then writes
# $IT_TMP/dump.jsonl and $IT_TMP/info.json. Sets W, LOG, WPID, WSTATUS,
# CSTATUS.
capture_workload() {
	local want=0
	if [ "${1:-}" = -x ]; then
		want=$2
		shift 2
	fi
	W=$IT_TMP/w
	LOG=$IT_TMP/cap.riot
	mkdir -p "$W"
	# Emptied here: the redirection below happens in the background job,
	# maybe after the wait below has read a previous run's "ready".
	: >"$IT_TMP/wl.out"
	"$BIN/workload" --dir "$W" --exit "$want" "$@" >"$IT_TMP/wl.out" 2>"$IT_TMP/wl.err" </dev/null &
	WPID=$!
	IT_PIDS+=("$WPID")
	wait_until "the workload to be ready" 300 grep -q ' ready$' "$IT_TMP/wl.out"
	[ "$(cut -d' ' -f1 "$IT_TMP/wl.out")" = "$WPID" ] || fail "workload printed $(cat "$IT_TMP/wl.out"), pid is $WPID"
	attach_capture "$WPID" "$LOG" "${CAP_ARGS[@]}"
	kill -USR1 "$WPID" || fail "workload $WPID is gone before the go signal"
	wait_exit "$WPID" "the workload" 1200
	WSTATUS=$REPLY
	if [ "$WSTATUS" -ne "$want" ]; then
		cat "$IT_TMP/wl.err" >&2
		fail "workload exited $WSTATUS, expected $want"
	fi
	wait_exit "$CPID" "riot capture -p (after the traced process exited)" 600
	CSTATUS=$REPLY
	if [ "$CSTATUS" -ne 0 ]; then
		cat "$IT_TMP/cap.err" >&2
		fail "riot capture -p exited $CSTATUS, expected 0"
	fi
	dump_log "$LOG"
}

# dump_log LOG: $IT_TMP/dump.jsonl and $IT_TMP/info.json, both must succeed.
dump_log() {
	"$RIOT" dump --format jsonl "$1" >"$IT_TMP/dump.jsonl" 2>"$IT_TMP/dump.err" ||
		fail "riot dump --format jsonl $1 exited $?: $(head -c 500 "$IT_TMP/dump.err")"
	"$RIOT" info --json "$1" >"$IT_TMP/info.json" 2>"$IT_TMP/info.err" ||
		fail "riot info --json $1 exited $?: $(head -c 500 "$IT_TMP/info.err")"
}

# check_trace: runs the Python on stdin against the last capture (check.py).
check_trace() {
	cat >"$IT_TMP/check_snippet.py"
	python3 "$IT_DIR/check.py" "$IT_TMP/check_snippet.py" "$IT_TMP/dump.jsonl" \
		"$IT_TMP/info.json" "$W" "$WPID" "$$" || fail "trace check failed (log: $LOG)"
}
