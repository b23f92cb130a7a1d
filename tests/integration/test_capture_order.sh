#!/usr/bin/env bash
# test_capture_order: the log keeps the order calls ended in when CPUs go
# idle and wake all the time. Four processes each make bursts of preads
# (1 to 300) with pauses between them (0 to 50 ms), so every CPU keeps
# going idle with its batch empty, or holding events, and back. riot tells
# an idle CPU's progress from its batch as mapped (capture/tracer.c,
# idle_sample()) and visits only the CPUs whose batch sat: a CPU taken
# for idle too early would let a later call's record out before an earlier
# one's. Every syscall record must end no earlier than the one before it,
# and the log must hold every pread the workload counted. RUNS captures
# (default 3).
. "$(dirname "$0")/lib.sh"
require_capture
RUNS=${RUNS:-3}
cat >"$IT_TMP/bursts.py" <<'PY'
import os, random, sys, time
path, secs, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
pids = []
for i in range(4):
    pid = os.fork()
    if pid == 0:
        random.seed(i)
        fd, n, end = os.open(path, os.O_RDONLY), 0, time.time() + secs
        while time.time() < end:
            for _ in range(random.choice([1, 5, 50, 300])):
                os.pread(fd, 64, 0)
                n += 1
            time.sleep(random.choice([0, 0.0005, 0.003, 0.02, 0.05]))
        with open("%s.%d" % (out, i), "w") as f:
            f.write("%d\n" % n)
        os._exit(0)
    pids.append(pid)
for pid in pids:
    os.waitpid(pid, 0)
print(sum(int(open("%s.%d" % (out, i)).read()) for i in range(4)))
PY
echo data >"$IT_TMP/f"
for ((run = 1; run <= RUNS; run++)); do
	"$RIOT" capture -o "$IT_TMP/o.riot" -- python3 "$IT_TMP/bursts.py" "$IT_TMP/f" 3 \
		"$IT_TMP/n" >"$IT_TMP/out" 2>"$IT_TMP/err" </dev/null ||
		fail "run $run: capture: $(cat "$IT_TMP/err")"
	dump_log "$IT_TMP/o.riot"
	python3 - "$IT_TMP/dump.jsonl" "$IT_TMP/f" "$(cat "$IT_TMP/out")" "$run" <<'PY' ||
import json, sys
dump, path, want, run = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
prev, back, preads, first = -1, 0, 0, None
with open(dump) as f:
    for line in f:
        r = json.loads(line)
        if r.get("type") != "syscall":
            continue
        end = r["t"] + r.get("dur", 0)
        if end < prev:
            back += 1
            first = first or "%s of pid %d ends at %d, after one that ended at %d" % (
                r.get("op"), r.get("pid"), end, prev)
        prev = max(prev, end)
        if r.get("op") == "pread64" and r.get("path") == path:
            preads += 1
if back:
    sys.exit("run %s: %d records end before the one logged ahead of them; first: %s"
             % (run, back, first))
if preads != want:
    sys.exit("run %s: %d preads of %s in the log, the workload made %d" % (run, preads, path, want))
print("run %s: %d preads, every record in the order it ended" % (run, preads))
PY
		fail "run $run: order broken (log kept: $IT_TMP/o.riot)"
	grep -q '^  drops      0$' "$IT_TMP/err" || fail "run $run: $(grep drops "$IT_TMP/err")"
done
echo "ok: $RUNS captures of bursts on every CPU, in order"
