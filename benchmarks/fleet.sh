#!/usr/bin/env bash
# benchmarks/fleet.sh: a fleet simulated on one host, and what merging its
# reports costs as it grows.
# 1. FLEET_BENCH_SHARDS (64) replays of one log (tests/integration/
#    fleet_log.py, 100 processes) started as separate processes, each
#    --shard K/N of one shared root with one --start-at FLEET_BENCH_LEAD
#    (20) seconds away: how late each started (start_late_ns: p50, p99,
#    max) and the spread of their starts (latest - earliest start_unix_ns).
#    All shards share this host's CPUs, which a real fleet does not: the
#    figures bound what riot's start costs, not a fleet's clocks.
# 2. riot report merge of those N shard reports, and of FLEET_BENCH_MERGE
#    (512) made from them (each copied under another name: the same size
#    and rows as a real shard's): wall time, peak RSS and the merged
#    report's size; then a 1,000-shard fleet's by a line through the two.
# Env: RIOT, BIN; appends "name value" lines to $BENCH_OUT when set.
set -euo pipefail
: "${RIOT:?}" "${BIN:?}"
here=$(cd "$(dirname "$0")" && pwd)
n=${FLEET_BENCH_SHARDS:-64}
big=${FLEET_BENCH_MERGE:-512}
lead=${FLEET_BENCH_LEAD:-20}
work=$(mktemp -d /var/tmp/riot-bench-fleet.XXXXXX)
trap 'rm -rf "$work"' EXIT

emit() { [ -n "${BENCH_OUT:-}" ] && echo "$1 $2" >>"$BENCH_OUT"; echo "  $1 $2"; }

# measure NAME CMD...: wall s and peak RSS KiB of CMD into M_WALL, M_RSS.
measure() {
	local name=$1; shift
	/usr/bin/time -f '%e %M' -o "$work/$name.time" "$@" >/dev/null
	read -r M_WALL M_RSS <"$work/$name.time"
}

echo "settings: $n shards on this host ($(nproc) CPUs), start $lead s away; merges of $n and $big reports"
python3 "$here/../tests/integration/fleet_log.py" 100 | "$BIN/mklog" -o "$work/app.riot"
mkdir -p "$work/r$n" "$work/json"
start=$(( $(date +%s) + lead ))
for k in $(seq 0 $((n - 1))); do
	"$RIOT" replay "$work/app.riot" --root "$work/root" --shard "$k/$n" --start-at "$start" \
		--no-block --json --report "$work/r$n/shard-$k.db" --label "shard-$k" \
		>"$work/json/$k.json" 2>"$work/json/$k.err" &
done
wait
read -r p50 p99 max spread ops < <(python3 - "$work/json" "$n" <<'PY'
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
runs = [json.load(open("%s/%d.json" % (d, k))) for k in range(n)]
late = sorted(r["start_late_ns"] for r in runs)
starts = [r["start_unix_ns"] for r in runs]
q = lambda p: late[min(len(late) - 1, int(p * len(late)))]
print(q(0.5), q(0.99), late[-1], max(starts) - min(starts), sum(r["ops"] for r in runs))
PY
)
echo "start of $n shards against --start-at (ns):"
emit fleet_start_late_p50_ns "$p50"
emit fleet_start_late_p99_ns "$p99"
emit fleet_start_late_max_ns "$max"
emit fleet_start_spread_ns "$spread"
echo "  ($ops operations in all)"

mkdir -p "$work/r$big"
for i in $(seq 0 $((big - 1))); do
	cp "$work/r$n/shard-$((i % n)).db" "$work/r$big/shard-$i.db"
done
for m in "$n" "$big"; do
	measure "merge$m" "$RIOT" report merge "$work/r$m"/shard-*.db -o "$work/fleet$m.db"
	eval "wall$m=$M_WALL rss$m=$M_RSS"
	eval "size$m=$(stat -c %s "$work/fleet$m.db")"
	echo "riot report merge of $m reports:"
	emit "fleet_merge${m}_s" "$M_WALL"
	emit "fleet_merge${m}_rss_kib" "$M_RSS"
	emit "fleet_merge${m}_db_bytes" "$(stat -c %s "$work/fleet$m.db")"
done
shard_bytes=$(stat -c %s "$work/r$n/shard-0.db")
python3 - "$n" "$big" "$(eval echo "\$wall$n")" "$(eval echo "\$wall$big")" \
	"$(eval echo "\$rss$n")" "$(eval echo "\$rss$big")" \
	"$(eval echo "\$size$n")" "$(eval echo "\$size$big")" "$shard_bytes" <<'PY' | while read -r k v; do emit "$k" "$v"; done
import sys
a, b = int(sys.argv[1]), int(sys.argv[2])
w = list(map(float, sys.argv[3:5])); r = list(map(float, sys.argv[5:7])); s = list(map(float, sys.argv[7:9]))
line = lambda y: y[0] + (y[1] - y[0]) / (b - a) * (1000 - a)
print("fleet_merge1000_s_extrapolated %.1f" % line(w))
print("fleet_merge1000_rss_kib_extrapolated %.0f" % line(r))
print("fleet_merge1000_db_bytes_extrapolated %.0f" % line(s))
print("fleet_shard_db_bytes %s" % sys.argv[9])
PY
