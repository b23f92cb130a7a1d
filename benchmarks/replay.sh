#!/usr/bin/env bash
# Replay rate of the io_uring engine against the sync engine, as fast as
# possible, on a trace of small cached reads (16 threads in 4 processes,
# 4 KiB pread64 from 1 MiB files) and on a metadata-heavy trace (creat,
# close, stat, rename, unlink); and the issue delay p50/p99 at speed 1.
# Env: RIOT, BIN; appends "name value" lines to $BENCH_OUT when set.
# Targets: uring >= 2x sync on cached reads; delay p50 <= 5 us, p99 <= 50 us.
# With fio (installed by make deps): fio's own io_uring/psync ratio on
# cached reads, the ceiling the first target meets on this kernel.
set -euo pipefail
: "${RIOT:?}" "${BIN:?}"
work=$(mktemp -d /var/tmp/riot-bench-replay.XXXXXX)
trap 'rm -rf "$work"' EXIT
out() { echo "$1 $2"; [ -z "${BENCH_OUT:-}" ] || echo "$1 $2" >>"$BENCH_OUT"; }
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$@"; }

"$BIN/replay_gen" reads --threads 16 -n 4000 -o "$work/reads.riot"
"$BIN/replay_gen" meta --threads 8 -n 500 -o "$work/meta.riot"
# Paced: the same reads with think time (an op every 50 us, 200 us per
# thread), so the issue delay measures the schedule, not a backlog: a trace
# denser than the replayer can go makes every later op late by the sum.
"$BIN/replay_gen" reads --threads 4 -n 500 --gap-us 50 -o "$work/paced.riot"

rate() { # LOG ENGINE [ARGS]: issued ops per second, best of 3
	local log=$1 e=$2 best=0 r
	shift 2
	"$RIOT" replay "$log" --root "$work/root" --engine "$e" --json "$@" >/dev/null 2>&1 # warm the cache
	for _ in 1 2 3; do
		"$RIOT" replay "$log" --root "$work/root" --no-init --engine "$e" --json "$@" >"$work/r.json" 2>/dev/null
		r=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(int(d['issued'] * 1e9 / max(d['elapsed_ns'], 1)))" "$work/r.json")
		[ "$r" -gt "$best" ] && best=$r
	done
	echo "$best"
}

for trace in reads meta; do
	u=$(rate "$work/$trace.riot" uring)
	s=$(rate "$work/$trace.riot" sync)
	out "replay_${trace}_uring_ops_per_s" "$u"
	out "replay_${trace}_sync_ops_per_s" "$s"
	out "replay_${trace}_uring_over_sync" "$(awk -v a="$u" -v b="$s" 'BEGIN { printf "%.2f", a / b }')"
done

# What the kernel itself allows: fio on cached 4 KiB random reads, one job
# per CPU, psync against io_uring (16 in flight, submitted in batches of
# 16). Where io_uring does not beat plain preads here, no replayer can.
if command -v fio >/dev/null 2>&1; then
	head -c 1048576 /dev/urandom >"$work/fio.dat"
	cat "$work/fio.dat" >/dev/null
	fio_iops() { # ENGINE
		fio --name=cached --filename="$work/fio.dat" --rw=randread --bs=4k --size=1m \
			--ioengine="$1" --iodepth=16 --iodepth_batch_submit=16 --invalidate=0 \
			--time_based --runtime=3 --numjobs="$(nproc)" --group_reporting \
			--output-format=terse 2>/dev/null | awk -F';' 'NF > 8 {print $8}'
	}
	fu=$(fio_iops io_uring)
	fs=$(fio_iops psync)
	out replay_reads_fio_io_uring_iops "$fu"
	out replay_reads_fio_psync_iops "$fs"
	out replay_reads_fio_uring_over_psync "$(awk -v a="$fu" -v b="$fs" 'BEGIN { printf "%.2f", a / b }')"
fi

# The machine's own timer lateness: the floor under any scheduler that
# sleeps (riot spins the last 100 us before a due time to get below it).
read -r t50 _ t99 tmax < <("$BIN/timerlag" -n 2000 --gap-us 200)
out timer_late_p50_ns "$t50"
out timer_late_p99_ns "$t99"
out timer_late_max_ns "$tmax"
for e in uring sync; do
	"$RIOT" replay "$work/paced.riot" --root "$work/root" --engine "$e" --speed 1 --json >"$work/p.json" 2>/dev/null
	out "replay_speed1_${e}_delay_p50_ns" "$(field "$work/p.json" delay_p50_ns)"
	out "replay_speed1_${e}_delay_p99_ns" "$(field "$work/p.json" delay_p99_ns)"
done
