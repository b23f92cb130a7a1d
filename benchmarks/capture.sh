#!/usr/bin/env bash
# benchmarks/capture.sh: what `riot capture` costs the traced program and
# how big its logs are. Runs as root in a few minutes.
#
# For a pread loop, an open/close loop and a stat loop (tests/bin/sysloop):
# ns per syscall untraced, under empty BPF programs on the same tracepoints
# (tests/bin/bpf_floor: the floor any tracer there pays) and under riot
# capture; the added ns against both; drops; bytes per event on disk. Then
# the highest rate one thread sustains with zero drops, and bytes per event
# for `tar -xf` of a large generated archive. Each configuration runs
# ROUNDS times, interleaved, and the median is reported.
#
# Environment: RIOT (the riot binary), BIN (the test tools), N (loop
# iterations, default 500000), ROUNDS (default 3), TAR_FILES (default 20000).
set -euo pipefail
: "${RIOT:?set RIOT to the riot binary}" "${BIN:?set BIN to the tools directory}"
N=${N:-500000}
ROUNDS=${ROUNDS:-3}
TAR_FILES=${TAR_FILES:-20000}

. "$(dirname "$0")/_lib.sh"
need_root capture.sh BPF
bench_workdir bench
trap 'rm -rf "$work"; [ -n "${stats_was:-}" ] && sysctl -qw kernel.bpf_stats_enabled="$stats_was"' EXIT
# A field of riot capture's summary: "events", "drops", or "bytes/event".
summary_field() { # file, field
	case $2 in
	bytes/event) awk '/log size/ {for (i = 1; i < NF; i++) if ($(i+1) == "bytes/event") print $i}' "$1" ;;
	*) awk -v f="$2" '$1 == f {print $2}' "$1" ;;
	esac
}

# Each run appends "wall-ns cpu-ns" per syscall of the loop to $work/<cfg>.
run_untraced() { "$BIN/sysloop" "$1" "$N" "$target" >"$work/out"; }
run_floor() { "$BIN/bpf_floor" -- "$BIN/sysloop" "$1" "$N" "$target" >"$work/out"; }
# riot's own CPU: user+sys of riot and its child, less the child's.
run_riot() {
	local TIMEFORMAT='%U %S'
	{ time "$RIOT" capture -o "$work/log.riot" -- "$BIN/sysloop" "$1" "$N" \
		"$target" >"$work/out" 2>"$work/sum"; } 2>"$work/time"
}
record() { # config
	paste <(field_before ns/syscall <"$work/out") \
		<(field_before cpu-ns/syscall <"$work/out") >>"$work/$1"
}

printf 'riot capture benchmark: %d iterations per loop, median of %d rounds, %s, %s CPUs, load %s\n' \
	"$N" "$ROUNDS" "$(uname -r)" "$(nproc)" "$(cut -d' ' -f1 /proc/loadavg)"
echo "ns per syscall of the loop: wall clock, and CPU time of the traced process"
echo "(the BPF programs run in its context; CPU time leaves out waits for a CPU)."
echo "+floor, +riot: added to the untraced loop; riot/flr: their ratio (target <= 1.5x);"
echo "drain: riot's own CPU per event, start-up included (ring buffer, reorder,"
echo "encode, compress)."
printf '\n%-10s %9s %9s %9s %8s %8s %8s | %9s %9s %9s %8s %8s %8s | %8s %6s %8s\n' \
	workload untraced floor riot '+floor' '+riot' riot/flr \
	cpu:untr floor riot '+floor' '+riot' riot/flr drain drops 'B/event'
for mode in pread openclose stat; do
	rm -f "$work/u" "$work/f" "$work/r" "$work/d"
	drops=0 bpe=
	for _ in $(seq "$ROUNDS"); do
		run_untraced "$mode"; record u
		run_floor "$mode"; record f
		run_riot "$mode"; record r
		drops=$((drops + $(summary_field "$work/sum" drops)))
		bpe=$(summary_field "$work/sum" bytes/event)
		awk -v ev="$(summary_field "$work/sum" events)" \
			-v child="$(field_before cpu-ns/syscall <"$work/out")" \
			-v calls="$(field_before syscalls <"$work/out" | head -1)" \
			'{ printf "%.1f\n", (($1 + $2) * 1e9 - child * calls) / ev }' "$work/time" >>"$work/d"
	done
	awk -v m="$mode" -v d="$drops" -v b="$bpe" \
		-v uw="$(cut -f1 "$work/u" | median)" -v uc="$(cut -f2 "$work/u" | median)" \
		-v fw="$(cut -f1 "$work/f" | median)" -v fc="$(cut -f2 "$work/f" | median)" \
		-v rw="$(cut -f1 "$work/r" | median)" -v rc="$(cut -f2 "$work/r" | median)" \
		-v dr="$(median <"$work/d")" -v out="${BENCH_OUT:-}" 'BEGIN {
		fw1 = fw - uw; rw1 = rw - uw; fc1 = fc - uc; rc1 = rc - uc
		rat_w = fw1 > 0 ? sprintf("%.2fx", rw1 / fw1) : "n/a"
		rat_c = fc1 > 0 ? sprintf("%.2fx", rc1 / fc1) : "n/a"
		printf "%-10s %9.1f %9.1f %9.1f %8.1f %8.1f %8s | %9.1f %9.1f %9.1f %8.1f %8.1f %8s | %8.1f %6d %8s\n",
			m, uw, fw, rw, fw1, rw1, rat_w, uc, fc, rc, fc1, rc1, rat_c, dr, d, b
		if (out != "")
			printf "capture_%s_untraced_ns %.1f\ncapture_%s_floor_added_ns %.1f\ncapture_%s_riot_added_ns %.1f\ncapture_%s_drops %d\ncapture_%s_bytes_per_event %s\n",
				m, uw, m, fw1, m, rw1, m, d, m, b >>out }'
done

# The programs' own run time per call (kernel.bpf_stats_enabled): what
# the hooks' work costs, free of scheduling noise on a busy host.
prog_cost() { # names (comma-separated), min id, json file
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
names, min_id = sys.argv[1].split(","), int(sys.argv[2])
progs = sorted((p for p in json.load(open(sys.argv[3])) if p["id"] > min_id), key=lambda p: p["id"])
out = []
for n in names:
    p = [p for p in progs if p.get("name") == n and p.get("run_cnt")]
    out.append("%.1f" % (p[0]["run_time_ns"] / p[0]["run_cnt"]) if p else "n/a")
print(" ".join(out))
PY
}
max_prog_id() { bpftool prog show -j | python3 -c 'import json, sys; print(max([p["id"] for p in json.load(sys.stdin)] or [0]))'; }
stats_was=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
echo
echo "BPF run time per call, ns (enter / exit program), bpf_stats:"
for mode in pread openclose stat; do
	id=$(max_prog_id)
	"$BIN/bpf_floor" -- sh -c "'$BIN/sysloop' $mode $N '$target' >/dev/null; bpftool prog show -j >'$work/progs.json'"
	floor=$(prog_cost floor_enter,floor_exit "$id" "$work/progs.json")
	id=$(max_prog_id)
	"$RIOT" capture -q -o "$work/log.riot" -- sh -c "'$BIN/sysloop' $mode $N '$target' >/dev/null; bpftool prog show -j >'$work/progs.json'"
	riot=$(prog_cost sys_enter,sys_exit "$id" "$work/progs.json")
	awk -v m="$mode" -v f="$floor" -v r="$riot" -v out="${BENCH_OUT:-}" 'BEGIN { split(f, a, " "); split(r, b, " ")
		printf "  %-10s floor %6.1f + %6.1f = %6.1f   riot %6.1f + %6.1f = %6.1f   riot/floor %.2fx\n",
			m, a[1], a[2], a[1] + a[2], b[1], b[2], b[1] + b[2], (b[1] + b[2]) / (a[1] + a[2])
		if (out != "")
			printf "capture_%s_bpf_floor_ns %.1f\ncapture_%s_bpf_riot_ns %.1f\n", m, a[1] + a[2], m, b[1] + b[2] >>out }'
done
sysctl -qw kernel.bpf_stats_enabled="$stats_was"

# Zero-drop rate: the loop at full speed; if it drops, halve the rate until
# it does not.
echo
rate=0
for _ in 1 2 3 4 5 6 7 8; do
	out=$("$RIOT" capture -o "$work/log.riot" -- "$BIN/sysloop" pread $((N * 4)) \
		"$target" "$rate" 2>"$work/sum")
	drops=$(summary_field "$work/sum" drops)
	achieved=$(echo "$out" | field_before syscalls/s)
	if [ "$drops" = 0 ]; then
		printf 'zero-drop rate, one thread: %s syscalls/s%s (%d events, default settings)\n' \
			"$achieved" "$([ "$rate" = 0 ] && echo ' = full speed of a pread loop')" \
			"$(summary_field "$work/sum" events)"
		[ -z "${BENCH_OUT:-}" ] || echo "capture_zero_drop_rate_per_s $achieved" >>"$BENCH_OUT"
		break
	fi
	echo "  $drops drops at $achieved syscalls/s"
	rate=$(awk -v a="$achieved" 'BEGIN {printf "%d", a / 2}')
done

# tar -xf of a large archive: many files of mixed sizes.
echo
python3 - "$work/src" "$TAR_FILES" <<'PY'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
random.seed(1)
for i in range(n):
    d = os.path.join(root, "d%03d" % (i % 200))
    os.makedirs(d, exist_ok=True)
    size = random.choice([0, 100, 1000, 4096, 10000, 65536])
    with open(os.path.join(d, "f%06d" % i), "wb") as f:
        f.write(os.urandom(size))
PY
tar -C "$work/src" -cf "$work/big.tar" .
rm -rf "$work/src"
mkdir "$work/untar"
"$RIOT" capture -o "$work/tar.riot" -- tar -xf "$work/big.tar" -C "$work/untar" 2>"$work/sum"
printf 'tar -xf of %s files (%s): %s events, %s drops, %s bytes/event\n' "$TAR_FILES" \
	"$(du -h "$work/big.tar" | cut -f1)" "$(summary_field "$work/sum" events)" \
	"$(summary_field "$work/sum" drops)" "$(summary_field "$work/sum" bytes/event)"
[ -z "${BENCH_OUT:-}" ] ||
	echo "capture_tar_bytes_per_event $(summary_field "$work/sum" bytes/event)" >>"$BENCH_OUT"
