#!/usr/bin/env bash
# benchmarks/aio.sh: what capturing Linux AIO costs per request.
# 1. `sysloop aio`: one cached 4 KiB pread per io_submit + io_getevents,
#    alone, under `riot capture --ops io_submit,io_getevents` (the two
#    syscalls recorded, no request) and under `riot capture` (the request
#    too); the process's CPU time per request, median of the rounds: what
#    the BPF programs add in the traced thread.
# 2. fio --ioengine=libaio --direct=1 --rw=randread --bs=4k --iodepth=16 on
#    a file of /var/tmp, alone and under `riot capture`, rounds
#    alternating; IOPS and fio's CPU time per request (user + system).
# Env: AIO_ROUNDS (5), AIO_SECS (5 s per fio run), AIO_MB (128), AIO_LOOP
# (200000 requests per sysloop run).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/_lib.sh"
need_root aio "riot capture loads BPF programs"
: "${RIOT:?}" "${BIN:?}" "${BENCH_OUT:=/dev/null}"
rounds=${AIO_ROUNDS:-5} secs=${AIO_SECS:-5} mb=${AIO_MB:-128} loop=${AIO_LOOP:-200000}
command -v fio >/dev/null || { echo "aio: fio missing"; exit 1; }
work=$(mktemp -d /var/tmp/riot-aio.XXXXXX)
trap 'rm -rf "$work"' EXIT
head -c 8192 /dev/urandom >"$work/small"
echo "sysloop aio: $loop requests per run, $rounds rounds"
: >"$work/l0" && : >"$work/l1" && : >"$work/l2"
# CPU ns of one request (two syscalls) of a sysloop run's output
loop_cpu() { field_before cpu-ns/syscall | awk '{printf "%.1f\n", 2 * $1}'; }
for ((i = 0; i < rounds; i++)); do
	"$BIN/sysloop" aio "$loop" "$work/small" | loop_cpu >>"$work/l0"
	"$RIOT" capture -q -o "$work/l.riot" --ops io_submit,io_getevents -- \
		"$BIN/sysloop" aio "$loop" "$work/small" | loop_cpu >>"$work/l1"
	"$RIOT" capture -q -o "$work/l.riot" -- "$BIN/sysloop" aio "$loop" "$work/small" |
		loop_cpu >>"$work/l2"
done
l0=$(median <"$work/l0") l1=$(median <"$work/l1") l2=$(median <"$work/l2")
echo
echo "| sysloop aio (CPU ns per request) | median | range |"
echo "|---|---:|---:|"
lrange() { sort -g "$1" | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.0f-%.0f", lo, hi}'; }
printf '| alone | %.0f | %s |\n' "$l0" "$(lrange "$work/l0")"
printf '| riot, io_submit and io_getevents only | %.0f | %s |\n' "$l1" "$(lrange "$work/l1")"
printf '| riot, with the aio:pread request | %.0f | %s |\n' "$l2" "$(lrange "$work/l2")"
python3 -c 'import sys; a, b, c = map(float, sys.argv[1:4]); print("added per request: %.0f ns (%.0f for its two syscalls, %.0f for the request record)" % (c - a, b - a, c - b))' "$l0" "$l1" "$l2"
echo "aio_loop_cpu_ns_added $(python3 -c "print(round($l2 - $l0))")" >>"$BENCH_OUT"
echo "aio_loop_cpu_ns_request_record $(python3 -c "print(round($l2 - $l1))")" >>"$BENCH_OUT"
echo
echo "fio libaio 4k randread direct iodepth 16, ${secs} s per run, ${mb} MiB file, $rounds rounds"
fio_cmd=(fio --name=aio --filename="$work/f" --size="${mb}m" --ioengine=libaio --direct=1
	--rw=randread --bs=4k --iodepth=16 --time_based --runtime="$secs" --randrepeat=1
	--output-format=json)
"${fio_cmd[@]}" --runtime=1 --output=/dev/null || { echo "aio: fio failed"; exit 1; }

# iops and CPU ns per request of one fio JSON
fio_figures() {
	python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
ios = j["read"]["total_ios"]
cpu_ns = (j["usr_cpu"] + j["sys_cpu"]) / 100 * j["job_runtime"] * 1e6
print(j["read"]["iops"], cpu_ns / ios if ios else 0)' "$1"
}

: >"$work/plain" && : >"$work/riot"
for ((i = 0; i < rounds; i++)); do
	"${fio_cmd[@]}" --output="$work/p.json" >/dev/null && fio_figures "$work/p.json" >>"$work/plain"
	"$RIOT" capture -q -o "$work/c.riot" -- "${fio_cmd[@]}" --output="$work/c.json" >/dev/null 2>&1 &&
		fio_figures "$work/c.json" >>"$work/riot"
done
p_iops=$(cut -d' ' -f1 "$work/plain" | median) r_iops=$(cut -d' ' -f1 "$work/riot" | median)
p_cpu=$(cut -d' ' -f2 "$work/plain" | median) r_cpu=$(cut -d' ' -f2 "$work/riot" | median)
range() { cut -d' ' -f"$2" "$1" | sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.0f-%.0f", lo, hi}'; }
echo
echo "| fio libaio randread 4k qd16 | IOPS (median) | IOPS range | fio CPU ns/request (median) | range |"
echo "|---|---:|---:|---:|---:|"
printf '| alone | %.0f | %s | %.0f | %s |\n' "$p_iops" "$(range "$work/plain" 1)" "$p_cpu" "$(range "$work/plain" 2)"
printf '| under riot capture | %.0f | %s | %.0f | %s |\n' "$r_iops" "$(range "$work/riot" 1)" "$r_cpu" "$(range "$work/riot" 2)"
python3 - "$p_iops" "$r_iops" "$p_cpu" "$r_cpu" "$BENCH_OUT" <<'PY'
import sys
p_iops, r_iops, p_cpu, r_cpu = map(float, sys.argv[1:5])
print("captured / alone IOPS: %.3f; CPU added per request: %.0f ns" % (r_iops / p_iops, r_cpu - p_cpu))
with open(sys.argv[5], "a") as f:
    f.write("aio_iops_alone %.0f\naio_iops_captured %.0f\naio_capture_cpu_ns_per_request %.0f\n"
            % (p_iops, r_iops, r_cpu - p_cpu))
PY
