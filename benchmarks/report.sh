#!/usr/bin/env bash
# benchmarks/report.sh: `riot report` summarising generated logs into SQLite.
# Goals: at least 2M events/s on a 10M-event log (genlog's mixed shape), and
# memory and database size that do not grow with the log without --events:
# measured on the seqread shape, 1M against 10M events, whose distinct files
# and processes stay the same as it grows (mixed keeps creating files, and
# the summary grows with distinct files by design).
# `riot info` reads the same log through the same reader and resolver, so
# the gap between the two is the cost of the summary itself.
# Env: RIOT, BIN; appends "name value" lines to $BENCH_OUT when set.
# Knobs: REPORT_BENCH_EVENTS (default 10000000).
set -euo pipefail
: "${RIOT:?}" "${BIN:?}"
big=${REPORT_BENCH_EVENTS:-10000000}
small=$((big / 10))
work=$(mktemp -d /tmp/riot-bench-report.XXXXXX)
trap 'rm -rf "$work"' EXIT

emit() { [ -n "${BENCH_OUT:-}" ] && echo "$1 $2" >>"$BENCH_OUT"; echo "  $1 $2"; }

# measure NAME CMD...: wall s, CPU s and peak RSS KiB of CMD into M_*.
measure() {
	local name=$1; shift
	/usr/bin/time -f '%e %U %S %M' -o "$work/$name.time" "$@" >/dev/null
	read -r M_WALL M_USER M_SYS M_RSS <"$work/$name.time"
	M_CPU=$(awk -v u="$M_USER" -v s="$M_SYS" 'BEGIN{printf "%.2f", u + s}')
}

echo "generating logs: mixed $big events; seqread $small and $big events"
"$BIN/genlog" --shape mixed -n "$big" --seed 1 -o "$work/big.riot"
"$BIN/genlog" --shape seqread -n "$small" --seed 1 -o "$work/seq-small.riot"
"$BIN/genlog" --shape seqread -n "$big" --seed 1 -o "$work/seq-big.riot"
events=$("$RIOT" info --json "$work/big.riot" | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')

measure info "$RIOT" info "$work/big.riot"
info_wall=$M_WALL info_cpu=$M_CPU
measure big "$RIOT" report "$work/big.riot" -o "$work/big.db"
big_wall=$M_WALL big_cpu=$M_CPU mixed_rss=$M_RSS
measure seq_small "$RIOT" report "$work/seq-small.riot" -o "$work/small.db"
small_rss=$M_RSS
measure seq_big "$RIOT" report "$work/seq-big.riot" -o "$work/seq-big.db"
big_rss=$M_RSS

printf '%-34s %10s %10s %12s\n' "" "wall s" "CPU s" "events/s"
printf '%-34s %10s %10s %12.0f\n' "riot info (reader + resolver)" "$info_wall" "$info_cpu" \
	"$(awk -v e="$events" -v t="$info_wall" 'BEGIN{print e / t}')"
printf '%-34s %10s %10s %12.0f\n' "riot report -o DB" "$big_wall" "$big_cpu" \
	"$(awk -v e="$events" -v t="$big_wall" 'BEGIN{print e / t}')"
printf 'mixed, %s events: peak RSS %s KiB, database %s bytes\n' "$big" "$mixed_rss" \
	"$(stat -c %s "$work/big.db")"
printf 'seqread: peak RSS %s KiB for %s events, %s KiB for %s events\n' "$small_rss" "$small" \
	"$big_rss" "$big"
printf 'seqread: database %s bytes for %s events, %s bytes for %s events\n' \
	"$(stat -c %s "$work/small.db")" "$small" "$(stat -c %s "$work/seq-big.db")" "$big"

emit report_events_per_s "$(awk -v e="$events" -v t="$big_wall" 'BEGIN{printf "%.0f", e / t}')"
emit report_events_per_cpu_s "$(awk -v e="$events" -v t="$big_cpu" 'BEGIN{printf "%.0f", e / t}')"
emit report_info_events_per_s "$(awk -v e="$events" -v t="$info_wall" 'BEGIN{printf "%.0f", e / t}')"
emit report_rss_kib_small "$small_rss"
emit report_rss_kib_big "$big_rss"
emit report_rss_growth_ratio "$(awk -v a="$small_rss" -v b="$big_rss" 'BEGIN{printf "%.3f", b / a}')"
emit report_db_bytes_big "$(stat -c %s "$work/seq-big.db")"
emit report_db_growth_ratio "$(awk -v a="$(stat -c %s "$work/small.db")" \
	-v b="$(stat -c %s "$work/seq-big.db")" 'BEGIN{printf "%.3f", b / a}')"

status=0
awk -v e="$events" -v t="$big_wall" 'BEGIN{exit !(e / t >= 2000000)}' ||
	{ echo "below the goal of 2M events/s"; status=1; }
awk -v a="$small_rss" -v b="$big_rss" 'BEGIN{exit !(b <= a * 1.2)}' ||
	{ echo "memory grows with the log"; status=1; }
exit $status
