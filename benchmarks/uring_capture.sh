#!/usr/bin/env bash
# benchmarks/uring_capture.sh: what riot's capture of io_uring requests
# costs. fio --ioengine=io_uring, 4 KiB random reads of a file on a tmpfs
# (page cache only: the ring and the capture are all that is measured),
# iodepth 16, run untraced and under `riot capture`, alternating, ROUNDS
# times (default 5); prints the median IOPS of each, the spread (min-max)
# and the ns the capture adds per request (1e9/IOPS traced - 1e9/IOPS
# untraced). Environment: RIOT, ROUNDS, RUNTIME (seconds per run, 5),
# IODEPTH (16).
set -uo pipefail
: "${RIOT:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/_lib.sh"
need_root uring_capture.sh "BPF"
command -v fio >/dev/null || { echo "uring_capture.sh: fio is required" >&2; exit 1; }
ROUNDS=${ROUNDS:-5} RUNTIME=${RUNTIME:-5} IODEPTH=${IODEPTH:-16}
work=$(mktemp -d /dev/shm/riot-uring-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

job=(fio --name=randread --filename="$work/f" --size=64M --bs=4k --rw=randread
     --ioengine=io_uring --iodepth="$IODEPTH" --time_based --runtime="$RUNTIME"
     --output-format=json)
iops_of() { python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["jobs"][0]["read"]["iops"]))' "$1"; }

"${job[@]}" --runtime=1 --output="$work/warm.json" >/dev/null 2>&1 || { echo "uring_capture.sh: fio failed" >&2; exit 1; }
: >"$work/plain" ; : >"$work/traced"
for ((i = 0; i < ROUNDS; i++)); do
	"${job[@]}" --output="$work/p.json" >/dev/null 2>&1 && iops_of "$work/p.json" >>"$work/plain"
	"$RIOT" capture -q -o "$work/c.riot" -- "${job[@]}" --output="$work/t.json" >/dev/null 2>&1 &&
		iops_of "$work/t.json" >>"$work/traced"
	reqs=$("$RIOT" info --json "$work/c.riot" 2>/dev/null |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["ops"].get("io_uring:read", 0))')
	drops=$("$RIOT" info --json "$work/c.riot" 2>/dev/null |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["drops"])')
	echo "round $((i + 1)): untraced $(tail -1 "$work/plain") IOPS, traced $(tail -1 "$work/traced") IOPS ($reqs requests recorded, $drops dropped)"
	rm -f "$work/c.riot"
done
p=$(median <"$work/plain") t=$(median <"$work/traced")
spread() { sort -g "$1" | awk 'NR == 1 {lo = $1} {hi = $1} END {print lo "-" hi}'; }
add=$(awk -v p="$p" -v t="$t" 'BEGIN {printf "%.0f", 1e9 / t - 1e9 / p}')
printf 'fio io_uring randread 4k, iodepth %d, tmpfs, median of %d: untraced %s IOPS (%s), riot capture %s IOPS (%s): %s ns added per request (%.2fx)\n' \
	"$IODEPTH" "$ROUNDS" "$p" "$(spread "$work/plain")" "$t" "$(spread "$work/traced")" "$add" \
	"$(awk -v p="$p" -v t="$t" 'BEGIN {print p / t}')"
if [ -n "${BENCH_OUT:-}" ]; then
	{
		echo "uring_capture_ns_per_request $add"
		echo "uring_capture_iops_untraced $p"
		echo "uring_capture_iops_traced $t"
	} >>"$BENCH_OUT"
fi
