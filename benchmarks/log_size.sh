#!/usr/bin/env bash
# benchmarks/log_size.sh: size and speed of the .riot log format.
# Writes a 1M-event seqread log with genlog (deterministic), reads it back
# with logcat, prints bytes per event and events per second both ways.
# Environment: BIN (tools built from tests/bin), EVENTS (default 1000000),
# SHAPE (default seqread), BLOCK_BYTES and ZSTD_LEVEL (default: writer's).
set -eu
: "${BIN:?BIN must name the directory of genlog and logcat}"
events=${EVENTS:-1000000}
shape=${SHAPE:-seqread}
dir=$(mktemp -d /tmp/riot-bench-log.XXXXXX)
trap 'rm -rf "$dir"' EXIT
log=$dir/bench.riot
opts=(-n "$events" --shape "$shape")
[ -n "${BLOCK_BYTES:-}" ] && opts+=(--block-bytes "$BLOCK_BYTES")
[ -n "${ZSTD_LEVEL:-}" ] && opts+=(--zstd-level "$ZSTD_LEVEL")

now() { date +%s.%N; }
t0=$(now)
"$BIN/genlog" -o "$log" "${opts[@]}"
t1=$(now)
out=$("$BIN/logcat" "$log")
t2=$(now)
read -r records _ strings _ blocks _ bytes _ state <<<"$out"
[ "$records" = "$events" ] || { echo "log_size: read $records of $events events" >&2; exit 1; }
[ "$state" = complete ] || { echo "log_size: log reads as $state" >&2; exit 1; }
awk -v ev="$events" -v by="$bytes" -v bl="$blocks" -v st="$strings" -v sh="$shape" \
    -v w0="$t0" -v w1="$t1" -v r1="$t2" -v out="${BENCH_OUT:-}" 'BEGIN {
	printf "log_size: %s, %d events, %d strings, %d blocks, %d bytes\n", sh, ev, st, bl, by
	printf "log_size: %.2f bytes/event\n", by / ev
	printf "log_size: write (generate+encode) %.2f M events/s\n", ev / (w1 - w0) / 1e6
	printf "log_size: read (decode to records) %.2f M events/s\n", ev / (r1 - w1) / 1e6
	if (out != "")
		printf "log_%s_bytes_per_event %.3f\nlog_read_events_per_s %.0f\n", sh, by / ev, ev / (r1 - w1) >>out
}'
