#!/usr/bin/env bash
# test_replay_window: logs longer than the plan's window (REPLAY_WINDOW,
# 131,072 ops planned ahead of the oldest incomplete one) replay every op,
# the producer waiting for a batch of slots whenever the window is full:
# 150,000 preads of 3 threads (sync engine), and 152,000 ops of threads
# whose order crosses on paths and directories (replay_gen order: renames,
# mkdir, rmdir after other threads' unlinks), by the sync engine in
# resource order and the uring engine in strict order. Each replay issues
# every op of the log with no divergence, and the reads move their bytes;
# no uring worker sleeps until its backstop timer on an op already done,
# one it ran itself or any other (missed_wakeups).
set -u
: "${RIOT:?RIOT must name the riot binary}" "${BIN:?BIN must name the test tools directory}"
T=$(mktemp -d /tmp/riot-window.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# replay LOG ROOT ARGS...: prints "ops issued divergences errors missed_wakeups"
replay() {
	local log=$1 root=$2
	shift 2
	timeout 600 "$RIOT" replay "$log" --root "$root" --json "$@" >"$T/r.json" 2>"$T/r.err" ||
		fail "replay $* of $log: $(head -n 3 "$T/r.err")"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(d["ops"], d["issued"], d["divergences"], sum(v.get("errors", 0) for v in d["syscalls"].values()),
      d["missed_wakeups"])' "$T/r.json"
}

"$BIN/replay_gen" reads --threads 3 -n 50000 -o "$T/reads.riot" || fail "replay_gen reads"
got=$(replay "$T/reads.riot" "$T/r1" --engine sync)
[ "$got" = "150006 150006 0 0 0" ] || fail "reads: ops issued divergences errors missed = $got"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["syscalls"]["pread64"]
assert (s["issued"], s["bytes"]) == (150000, 150000 * 4096), s' "$T/r.json" || fail "reads: pread64 bytes"

"$BIN/replay_gen" order -n 8000 -o "$T/order.riot" || fail "replay_gen order"
n=$("$RIOT" info --json "$T/order.riot" | python3 -c 'import json,sys; print(json.load(sys.stdin)["syscalls"])') ||
	fail "info"
[ "$n" -gt 131072 ] || fail "the order log is not longer than the window: $n ops"
got=$(replay "$T/order.riot" "$T/r2" --engine sync)
[ "$got" = "$n $n 0 0 0" ] || fail "order, sync: ops issued divergences errors missed = $got (log: $n)"
got=$(replay "$T/order.riot" "$T/r3" --engine uring --order strict)
[ "$got" = "$n $n 0 0 0" ] || fail "order, uring strict: ops issued divergences errors missed = $got (log: $n)"
echo "ok"
