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
run_clock() { "$BIN/bpf_floor" --clock -- "$BIN/sysloop" "$1" "$N" "$target" >"$work/out"; }
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
echo "floor: empty BPF programs on riot's tracepoints; clock: programs that only"
echo "read the clock at entry and exit and keep the entry time per task (the least"
echo "any recorder of entry times and durations does). +X: added to the untraced"
echo "loop; riot/flr, riot/clk: riot's added ns over theirs (target <= 1.5x floor)."
echo "riot's own CPU per event, start-up apart: capture_cpu.sh."
printf '\n%-10s %-5s %9s %9s %9s %9s %8s %8s %8s %8s %8s\n' \
	workload time untraced floor clock riot '+floor' '+clock' '+riot' riot/flr riot/clk
for mode in pread openclose stat; do
	rm -f "$work/u" "$work/f" "$work/c" "$work/r"
	drops=0 bpe=
	for _ in $(seq "$ROUNDS"); do
		run_untraced "$mode"; record u
		run_floor "$mode"; record f
		run_clock "$mode"; record c
		run_riot "$mode"; record r
		drops=$((drops + $(summary_field "$work/sum" drops)))
		bpe=$(summary_field "$work/sum" bytes/event)
	done
	for col in 1 2; do
		awk -v m="$mode" -v col="$col" \
			-v u="$(cut -f$col "$work/u" | median)" -v f="$(cut -f$col "$work/f" | median)" \
			-v c="$(cut -f$col "$work/c" | median)" -v r="$(cut -f$col "$work/r" | median)" \
			-v out="${BENCH_OUT:-}" 'BEGIN {
			f1 = f - u; c1 = c - u; r1 = r - u
			rf = f1 > 0 ? sprintf("%.2fx", r1 / f1) : "n/a"
			rc = c1 > 0 ? sprintf("%.2fx", r1 / c1) : "n/a"
			printf "%-10s %-5s %9.1f %9.1f %9.1f %9.1f %8.1f %8.1f %8.1f %8s %8s\n",
				col == 1 ? m : "", col == 1 ? "wall" : "cpu", u, f, c, r, f1, c1, r1, rf, rc
			if (out == "")
				exit
			k = col == 1 ? "" : "cpu_"
			printf "capture_%s_%suntraced_ns %.1f\ncapture_%s_%sfloor_added_ns %.1f\ncapture_%s_%sclock_floor_added_ns %.1f\ncapture_%s_%sriot_added_ns %.1f\n",
				m, k, u, m, k, f1, m, k, c1, m, k, r1 >>out }'
	done
	printf '%-10s %d drops, %s bytes/event\n' "" "$drops" "$bpe"
	[ -z "${BENCH_OUT:-}" ] ||
		printf 'capture_%s_drops %d\ncapture_%s_bytes_per_event %s\n' "$mode" "$drops" "$mode" "$bpe" >>"$BENCH_OUT"
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
echo "BPF run time per call, ns (enter + exit program), bpf_stats; its own clock"
echo "reads are in every figure, so an empty program shows them: work is the run"
echo "time beyond the empty programs'."
# prog_time CMD...: the run time of programs $progs (enter,exit) loaded by
# CMD while it runs the loop of $mode; prints "enter exit".
prog_time() {
	local id
	id=$(max_prog_id)
	"$@" sh -c "'$BIN/sysloop' $mode $N '$target' >/dev/null; bpftool prog show -j >'$work/progs.json'"
	prog_cost "${progs:?}" "$id" "$work/progs.json"
}
for mode in pread openclose stat; do
	floor=$(progs=floor_enter,floor_exit prog_time "$BIN/bpf_floor" --)
	clock=$(progs=clock_enter,clock_exit prog_time "$BIN/bpf_floor" --clock --)
	riot=$(progs=sys_enter,sys_exit prog_time "$RIOT" capture -q -o "$work/log.riot" --)
	awk -v m="$mode" -v f="$floor" -v c="$clock" -v r="$riot" -v out="${BENCH_OUT:-}" 'BEGIN {
		split(f, a, " "); split(c, b, " "); split(r, d, " ")
		fl = a[1] + a[2]; cl = b[1] + b[2] - fl; ri = d[1] + d[2] - fl
		printf "  %-10s floor %5.1f + %5.1f   clock %5.1f + %5.1f   riot %5.1f + %5.1f   work: clock %5.1f, riot %5.1f (%.2fx)\n",
			m, a[1], a[2], b[1], b[2], d[1], d[2], cl, ri, (cl > 0 ? ri / cl : 0)
		if (out != "")
			printf "capture_%s_bpf_floor_ns %.1f\ncapture_%s_bpf_clock_work_ns %.1f\ncapture_%s_bpf_riot_work_ns %.1f\n", m, fl, m, cl, m, ri >>out }'
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
make_big_tar "$work/big.tar" "$TAR_FILES"
mkdir "$work/untar"
"$RIOT" capture -o "$work/tar.riot" -- tar -xf "$work/big.tar" -C "$work/untar" 2>"$work/sum"
printf 'tar -xf of %s files (%s): %s events, %s drops, %s bytes/event\n' "$TAR_FILES" \
	"$(du -h "$work/big.tar" | cut -f1)" "$(summary_field "$work/sum" events)" \
	"$(summary_field "$work/sum" drops)" "$(summary_field "$work/sum" bytes/event)"
[ -z "${BENCH_OUT:-}" ] ||
	echo "capture_tar_bytes_per_event $(summary_field "$work/sum" bytes/event)" >>"$BENCH_OUT"
