#!/usr/bin/env bash
# benchmarks/aio.sh: what capturing Linux AIO costs per request. fio
# --ioengine=libaio --direct=1 --rw=randread --bs=4k --iodepth=16 on a file
# of /var/tmp, alone and under `riot capture`, rounds alternating; IOPS and
# fio's CPU time per request (user + system), median of the rounds.
# Env: AIO_ROUNDS (5), AIO_SECS (5 s per run), AIO_MB (128).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/_lib.sh"
need_root aio "riot capture loads BPF programs"
: "${RIOT:?}" "${BENCH_OUT:=/dev/null}"
rounds=${AIO_ROUNDS:-5} secs=${AIO_SECS:-5} mb=${AIO_MB:-128}
command -v fio >/dev/null || { echo "aio: fio missing"; exit 1; }
work=$(mktemp -d /var/tmp/riot-aio.XXXXXX)
trap 'rm -rf "$work"' EXIT
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
