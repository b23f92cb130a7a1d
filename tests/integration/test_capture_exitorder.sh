#!/usr/bin/env bash
# Exit ordering under load: real-time spinners hold all CPUs but one while,
# for 1.5 s, processes one after another open a file, pwrite64 4096 bytes
# to it and exit at once. Their events sit in per-CPU batches while the
# exit records go to the ring directly; the log must still hold each
# process's calls before its exit record, every pwrite64 resolved to its
# file, and nothing unresolved. RUNS captures in a row (default 10; 50 for
# the record) must all hold.
. "$(dirname "$0")/lib.sh"
require_capture
[ -x "$BIN/exitrace" ] || fail "$BIN/exitrace is missing"
RUNS=${RUNS:-10}
SPIN=$(($(nproc) - 1))
[ "$SPIN" -ge 1 ] || SPIN=1
for ((run = 1; run <= RUNS; run++)); do
	W=$IT_TMP/w$run
	LOG=$IT_TMP/c$run.riot
	mkdir -p "$W"
	"$RIOT" capture -q -o "$LOG" -- "$BIN/exitrace" "$W" 1500 "$SPIN" \
		>"$IT_TMP/cap.out" 2>"$IT_TMP/cap.err" </dev/null ||
		{ cat "$IT_TMP/cap.err" >&2; fail "run $run: riot capture -- exitrace exited $?"; }
	CHILDREN=$(cat "$IT_TMP/cap.out")
	[ "$CHILDREN" -gt 0 ] 2>/dev/null || fail "run $run: exitrace printed '$CHILDREN'"
	dump_log "$LOG"
	python3 - "$IT_TMP/dump.jsonl" "$IT_TMP/info.json" "$W" "$CHILDREN" "$run" <<'PY' || fail "run $run of $RUNS: exit order broken (log: $LOG)"
import json, sys
dump, info, wdir, n, run = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
bad, exited, writes = [], {}, set()
with open(dump) as f:
    for line in f:
        r = json.loads(line)
        if r.get("type") == "proc" and r.get("kind") == "exit" and r.get("tid") == r.get("pid"):
            exited[r["pid"]] = r.get("t")
        elif r.get("type") == "syscall":
            if r.get("pid") in exited:
                bad.append("%s of pid %d (t=%d) logged after its exit (t=%d)"
                           % (r.get("op"), r["pid"], r.get("t"), exited[r["pid"]]))
            if r.get("op") == "pwrite64" and r.get("path", "").startswith(wdir + "/e"):
                writes.add(r["path"])
with open(info) as f:
    inf = json.load(f)
want = {"%s/e%d.dat" % (wdir, i) for i in range(n)}
if writes != want:
    bad.append("pwrite64 resolved to %d of the %d files" % (len(writes & want), n))
if inf.get("unresolved_fds") or inf.get("unknown_cwd"):
    bad.append("unresolved fd operations %r, unknown cwd %r"
               % (inf.get("unresolved_fds"), inf.get("unknown_cwd")))
if inf.get("drops"):
    bad.append("drops: %r" % inf.get("drops"))
for b in bad[:20]:
    print("FAIL: run %s: %s" % (run, b))
sys.exit(1 if bad else 0)
PY
	rm -rf "$W" "$LOG"
done
echo "ok: $RUNS captures in a row, the last with $CHILDREN processes writing and exiting at once beside $SPIN spinners"
