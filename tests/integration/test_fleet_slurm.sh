#!/usr/bin/env bash
# examples/slurm-array.sh on a real Slurm: a one-node cluster from Debian's
# packages (munged, slurmctld, slurmd started here from a private config,
# stopped at the end), the recipe submitted as README tells users to, its
# own 8-task array, and the merge chained with --dependency=afterok.
# Checks: every task and the merge job COMPLETED; task K replayed shard
# K/8 and its summary (riot-replay-K.out) states its start against
# --start-at, as its report's start_unix_ns and start_late_ns do; the
# shards' issued operations, per syscall, add up to exactly one whole
# replay's; the merged report's fleet run sums 8 runs and equals the whole
# replay's operations per syscall and per process.
# The recipe's --exclusive runs the tasks one after another on one node,
# so all but the first start late (the summaries say by how much; how late
# is the machine's business, not the test's), and each late shard's init
# and replay meet a shared root that earlier shards have changed: their
# errors and bytes differ from a whole replay's (README says so), hence
# counts, not results, are compared here.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fleet_lib.sh"
EXAMPLES=$(cd "$IT_DIR/../../examples" && pwd)
slurm_up

LOG=$IT_TMP/app.riot
python3 "$IT_DIR/fleet_log.py" 64 | "$BIN/mklog" -o "$LOG" || fail "mklog"
"$RIOT" replay "$LOG" --root "$IT_TMP/full" --no-block --report "$IT_TMP/full.db" --label full \
	>/dev/null 2>"$IT_TMP/err" || fail "whole replay: $(cat "$IT_TMP/err")"

# riot on the PATH of the jobs (sbatch --export=ALL passes ours)
mkdir -p "$IT_TMP/bin" "$IT_TMP/shared/storage" "$IT_TMP/reports" "$IT_TMP/submit"
ln -s "$RIOT" "$IT_TMP/bin/riot"
export PATH=$IT_TMP/bin:$PATH
cd "$IT_TMP/submit" || fail "cd"
# README's commands, with the start 5 s away instead of 300
start=$(( $(date +%s) + 5 ))
jid=$(sbatch --parsable --export="ALL,START_AT=$start,LOG=$LOG,\
ROOT=$IT_TMP/shared/storage/riot-root,REPORTS=$IT_TMP/reports" "$EXAMPLES/slurm-array.sh") ||
	fail "sbatch of the array: $jid"
jid=${jid%%;*}
mjid=$(sbatch --parsable --dependency="afterok:$jid" --wrap \
	"riot report merge $IT_TMP/reports/shard-*.db -o $IT_TMP/reports/fleet.db") ||
	fail "sbatch of the merge: $mjid"
mjid=${mjid%%;*}
slurm_wait "$jid"
[ "$SLURM_STATES" = "COMPLETED " ] || fail "array job: $SLURM_STATES $(cat riot-replay-*.out)"
slurm_wait "$mjid"
[ "$SLURM_STATES" = "COMPLETED " ] || fail "merge job: $SLURM_STATES $(cat slurm-"$mjid".out)"
[ -s "$IT_TMP/reports/fleet.db" ] || fail "no merged report"

ntasks=$(scontrol -o show job "$jid" | grep -c 'ArrayTaskId=')
[ "$ntasks" = 8 ] || fail "the array ran $ntasks tasks, the recipe asks for 8"
for k in $(seq 0 7); do
	out=riot-replay-$k.out
	[ -f "$out" ] || fail "no $out"
	grep -q "^shard: *$k of 8 " "$out" || fail "$out: no shard $k of 8: $(cat "$out")"
	grep -qE '^start: +[0-9]+ ns after the epoch, [0-9.]+ [a-z]*s? after --start-at$' "$out" ||
		fail "$out: no start against --start-at: $(grep start "$out")"
	echo "$k $(sed -n 's/^start: *\([0-9]*\) ns after the epoch, \(.*\) after --start-at$/\1 \2/p' \
		"$out") $(sed -n 's/^operations: *[0-9]* (\([0-9]*\) issued.*/\1/p' "$out")"
done >"$IT_TMP/starts"

python3 - "$IT_TMP/reports" "$IT_TMP/full.db" "$start" "$IT_TMP/starts" <<'PY' || fail "shards and merge"
import sqlite3, sys
rep, full, target = sys.argv[1], sqlite3.connect(sys.argv[2]), int(sys.argv[3]) * 10**9
said = {int(l.split()[0]): l.split() for l in open(sys.argv[4])}
bad = []
q = "SELECT sys, count FROM syscalls WHERE run_id = ?"
whole = {r[0]: r[1:] for r in full.execute(q.replace("?", "(SELECT id FROM runs)"))}
wops = full.execute("SELECT ops FROM runs").fetchone()[0]
acc, ops = {}, 0
for k in range(8):
    c = sqlite3.connect("%s/shard-%d.db" % (rep, k))
    label, shard, start, late, n = c.execute(
        "SELECT label, shard, start_unix_ns, start_late_ns, ops FROM runs").fetchone()
    if (label, shard) != ("shard-%d" % k, "%d/8" % k):
        bad.append("shard-%d.db: label %s, shard %s" % (k, label, shard))
    # the report and the summary agree on the start, and both measure
    # it against --start-at
    if start - target != late or int(said[k][1]) != start or int(said[k][-1]) != n:
        bad.append("shard %d: start %s, late %s, summary %s" % (k, start, late, said[k]))
    ops += n
    for s, *v in c.execute(q, (1,)):
        acc[s] = acc.get(s, 0) + v[0]
if ops != wops:
    bad.append("the shards issued %d operations, a whole replay %d" % (ops, wops))
if {s: (v,) for s, v in acc.items()} != whole:
    bad.append("per syscall, shards %s, whole %s" % (acc, whole))
m = sqlite3.connect(rep + "/fleet.db")
fid, fr, fops = m.execute("SELECT id, fleet_runs, ops FROM runs WHERE label = 'fleet'").fetchone()
if fr != 8 or fops != wops:
    bad.append("fleet run: %s runs, %s ops (whole %d)" % (fr, fops, wops))
if {r[0]: r[1:] for r in m.execute(q, (fid,))} != whole:
    bad.append("the fleet run's syscalls differ from the whole replay's")
p = "SELECT pid, ops FROM processes WHERE run_id = ?"
if sorted(m.execute(p, (fid,))) != sorted(full.execute(p.replace("?", "(SELECT id FROM runs)"))):
    bad.append("the fleet run's processes differ from the whole replay's")
for b in bad:
    print("  " + b, file=sys.stderr)
print("8 shards, %d operations (%s), whole replay %d; starts %s after --start-at" %
      (ops, " + ".join(said[k][-1] for k in range(8)), wops,
       ", ".join(" ".join(said[k][2:-1]) for k in range(8))))
sys.exit(1 if bad else 0)
PY
echo "slurm: 8 array tasks replayed 8 shards; the merge job's fleet run is the whole replay"
