#!/usr/bin/env bash
# benchmarks/peers.sh: riot against its peers, measured in one run on this
# machine, as one table. Run as root: `make bench` (or RIOT=./riot
# BIN=build/bin bash benchmarks/peers.sh).
#
# Capture: ns added per traced syscall by riot capture, an equivalent
# bpftrace script (benchmarks/peers.bt: the same syscall tracepoints, one
# line per event written to a file), `perf trace` and `strace -f -ttt -T
# -yy` (the form `riot import strace` reads), on tests/bin/sysloop's pread,
# open+close and stat loops; the median of ROUNDS interleaved rounds, minus
# the untraced loop's median. Log bytes per event of riot, of strace's text
# and of the fio iolog of the same pread loop.
#
# Replay: one trace of `dd` writing then reading a file (4 KiB blocks),
# replayed as fast as possible by riot (uring, sync) and by fio from the
# exported iolog (io_uring, psync): data operations per second of wall time,
# the same operations for all. Then a paced trace (sysloop pread at RATE/s
# for SECS s) replayed at the captured speed: the error in total duration
# and the issue-delay percentiles of riot and of fio (fio's from its
# latency log, whole milliseconds: lower bounds).
#
# A tool that is missing or fails prints n/a; no figure is ever made up.
# Environment: RIOT, BIN; N (iterations, fast tracers, default 100000),
# NSLOW (strace, perf trace: default 20000), ROUNDS (5), BLOCKS (dd blocks,
# 20000), RATE (20000), SECS (2).
set -uo pipefail
: "${RIOT:?set RIOT to the riot binary}" "${BIN:?set BIN to the tools directory}"
N=${N:-100000}
NSLOW=${NSLOW:-20000}
ROUNDS=${ROUNDS:-5}
BLOCKS=${BLOCKS:-20000}
RATE=${RATE:-20000}
SECS=${SECS:-2}
here=$(cd "$(dirname "$0")" && pwd)
out=${BENCH_OUT:-/dev/null}

. "$here/_lib.sh"
need_root peers.sh "BPF, perf, ptrace"
bench_workdir peers
trap 'rm -rf "$work"' EXIT
have() { command -v "$1" >/dev/null 2>&1; }
ns_of() { cat "$@" | field_before ns/syscall | head -n 1; }
now_ns() { date +%s%N; }
emit() { [ "$2" = n/a ] || echo "$1 $2" >>"$out"; }	# name value -> BENCH_OUT
sub() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "n/a" || b == "n/a" || a == "") print "n/a"; else printf "%.1f", a - b }'; }

# ---- capture ----

# loop MODE N: the command of N calls of MODE, in the array loop_cmd
loop() { loop_cmd=("$BIN/sysloop" "$1" "$2" "$target"); }
run_untraced() { loop "$1" "$N"; "${loop_cmd[@]}" | ns_of; }
run_riot() {
	loop "$1" "$N"
	"${loop_cmd[@]}" >/dev/null 2>&1	# warm the file
	"$RIOT" capture -o "$work/riot-$1.riot" -- "${loop_cmd[@]}" 2>"$work/riot-$1.sum" | ns_of
}
run_bpftrace() {
	have bpftrace || return 0
	loop "$1" "$N"
	bpftrace -o "$work/bt.out" -c "${loop_cmd[*]}" "$here/peers.bt" >"$work/bt.stdout" 2>&1 || return 0
	ns_of "$work/bt.stdout" "$work/bt.out"
	grep -h '^Lost [0-9]* events' "$work/bt.out" | awk '{s += $2} END {print s + 0}' >>"$work/bt-lost-$1"
}
run_perf() {
	have perf || return 0
	loop "$1" "$NSLOW"
	perf trace -o "$work/perf.out" -- "${loop_cmd[@]}" 2>/dev/null | ns_of
}
run_strace() {
	have strace || return 0
	loop "$1" "$NSLOW"
	strace -f -ttt -T -yy -o "$work/strace-$1.txt" "${loop_cmd[@]}" | ns_of
}

tools=(untraced riot bpftrace perf strace)
printf 'peers: capture cost, ns added per traced syscall (median of %d rounds; %d iterations, %d for perf and strace)\n' \
	"$ROUNDS" "$N" "$NSLOW"
printf '%-10s %10s %10s %10s %10s %10s\n' loop untraced riot bpftrace 'perf trace' 'strace -f'
declare -A added
for mode in pread openclose stat; do
	for tool in "${tools[@]}"; do : >"$work/$tool-$mode"; done
	for _ in $(seq "$ROUNDS"); do
		for tool in "${tools[@]}"; do
			"run_$tool" "$mode" >>"$work/$tool-$mode"
		done
	done
	base=$(median <"$work/untraced-$mode")
	row=$(printf '%-10s %10s' "$mode" "$base")
	for tool in riot bpftrace perf strace; do
		a=$(sub "$(median <"$work/$tool-$mode")" "$base")
		added[$tool-$mode]=$a
		row+=$(printf ' %10s' "$a")
		emit "peers_capture_${mode}_${tool}_added_ns" "$a"
	done
	emit "peers_capture_${mode}_untraced_ns" "$base"
	echo "$row"
done
lost=$(cat "$work"/bt-lost-* 2>/dev/null | awk '{s += $1} END {print s + 0}')
echo "(ns per syscall added to the untraced loop; bpftrace lost $lost events over all its runs; riot's drops are in its summary)"

# Log bytes per event: the pread loop's logs.
riot_bpe=$(awk '/log size/ {for (i = 1; i < NF; i++) if ($(i+1) == "bytes/event") print $i}' "$work/riot-pread.sum")
strace_bpe=n/a
if [ -s "$work/strace-pread.txt" ]; then
	strace_bpe=$(awk -v b="$(stat -c %s "$work/strace-pread.txt")" -v l="$(wc -l <"$work/strace-pread.txt")" \
		'BEGIN {printf "%.1f", b / l}')
fi
fio_bpe=n/a
if "$RIOT" export fio "$work/riot-pread.riot" -o "$work/fio-pread" >/dev/null 2>&1; then
	fio_bpe=$(cat "$work"/fio-pread/riot-*.iolog | awk '$3 == "read" || $3 == "write" {n++} {b += length($0) + 1} END {if (n) printf "%.1f", b / n; else print "n/a"}')
fi
printf '\nlog bytes per event (pread loop): riot %s, strace text %s, fio iolog %s\n' \
	"${riot_bpe:-n/a}" "$strace_bpe" "$fio_bpe"
emit peers_log_riot_bytes_per_event "${riot_bpe:-n/a}"
emit peers_log_strace_bytes_per_event "$strace_bpe"
emit peers_log_fio_iolog_bytes_per_event "$fio_bpe"

# ---- replay ----

ddtrace=$work/dd.riot
"$RIOT" capture -o "$ddtrace" -- sh -c "dd if=/dev/zero of=$work/dd.dat bs=4k count=$BLOCKS status=none &&
	dd if=$work/dd.dat of=/dev/null bs=4k status=none" >/dev/null 2>&1
R=$work/root
"$RIOT" init "$ddtrace" --root "$R" >/dev/null 2>&1
data_ops=n/a
if "$RIOT" export fio "$ddtrace" -o "$work/fio-dd-uring" --root "$R" --fast >"$work/exp.out" 2>&1; then
	data_ops=$(awk '$1 == "reads" || $1 == "writes" || $1 == "syncs" {s += $2} END {print s}' "$work/exp.out")
	"$RIOT" export fio "$ddtrace" -o "$work/fio-dd-psync" --root "$R" --fast --engine psync >/dev/null 2>&1
fi
# ops/s of one command's wall time, or n/a when it fails.
rate_of() {
	local t0 t1
	t0=$(now_ns)
	"$@" >"$work/cmd.out" 2>&1 || { echo n/a; return; }
	t1=$(now_ns)
	awk -v n="$data_ops" -v d="$((t1 - t0))" 'BEGIN { if (n == "n/a") print "n/a"; else printf "%.0f\n", n / (d / 1e9) }'
}
for k in riot_uring riot_sync fio_io_uring fio_psync; do : >"$work/rate-$k"; done
for _ in $(seq "$ROUNDS"); do
	rate_of "$RIOT" replay "$ddtrace" --root "$R" --no-init --speed 0 --engine uring >>"$work/rate-riot_uring"
	rate_of "$RIOT" replay "$ddtrace" --root "$R" --no-init --speed 0 --engine sync >>"$work/rate-riot_sync"
	if have fio; then
		rate_of fio "$work/fio-dd-uring/riot.fio" >>"$work/rate-fio_io_uring"
		rate_of fio "$work/fio-dd-psync/riot.fio" >>"$work/rate-fio_psync"
	fi
done
declare -A rate
printf '\npeers: replay as fast as possible, %s data operations of dd (write then read, 4 KiB), median of %d, wall time\n' \
	"$data_ops" "$ROUNDS"
for k in riot_uring riot_sync fio_io_uring fio_psync; do
	rate[$k]=$(grep -v n/a "$work/rate-$k" | median)
	printf '  %-14s %12s ops/s\n' "$k" "${rate[$k]}"
	emit "peers_replay_${k}_ops_per_s" "${rate[$k]}"
done

# The paced trace at the captured speed.
paced=$work/paced.riot
"$RIOT" capture -o "$paced" -- "$BIN/sysloop" pread $((RATE * SECS)) "$target" "$RATE" >/dev/null 2>&1
"$RIOT" init "$paced" --root "$work/proot" >/dev/null 2>&1
cap_ns=$("$RIOT" info --json "$paced" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["duration_ns"])' 2>/dev/null || echo n/a)
riot_err=n/a riot_p50=n/a riot_p99=n/a
if "$RIOT" replay "$paced" --root "$work/proot" --no-init --speed 1 --json >"$work/paced.json" 2>/dev/null; then
	read -r riot_el riot_p50 riot_p99 < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["elapsed_ns"], d["delay_p50_ns"], d["delay_p99_ns"])' "$work/paced.json")
	riot_err=$(awk -v e="$riot_el" -v c="$cap_ns" 'BEGIN {d = e - c; if (d < 0) d = -d; printf "%.2f", 100 * d / c}')
fi
fio_err=n/a fio_p50=n/a fio_p99=n/a
if have fio && "$RIOT" export fio "$paced" -o "$work/fio-paced" --root "$work/proot" >/dev/null 2>&1; then
	sed -i "s|^\[global\]$|[global]\nwrite_lat_log=$work/fiolat\nlog_offset=1|" "$work/fio-paced/riot.fio"
	if (cd "$work" && fio --output-format=json "$work/fio-paced/riot.fio" >"$work/fio-paced.json" 2>/dev/null); then
		fio_el=$(python3 -c 'import json,sys; t=open(sys.argv[1]).read(); d=json.loads(t[t.index("{"):]); print(max(j["job_runtime"] for j in d["jobs"]) * 1000000)' "$work/fio-paced.json")
		fio_err=$(awk -v e="$fio_el" -v c="$cap_ns" 'BEGIN {d = e - c; if (d < 0) d = -d; printf "%.2f", 100 * d / c}')
		iolog=$(ls "$work"/fio-paced/riot-*.iolog | head -n 1)
		read -r _ fio_p50 fio_p99 _ < <(python3 "$here/fio_timing.py" "$iolog" "$work/fiolat_lat.1.log")
	fi
fi
printf '\npeers: replay at the captured speed, sysloop pread at %d/s for %d s (captured %s ns)\n' "$RATE" "$SECS" "$cap_ns"
printf '  %-6s duration error %7s %%   issue delay p50 %10s ns   p99 %10s ns\n' riot "$riot_err" "$riot_p50" "$riot_p99"
printf '  %-6s duration error %7s %%   issue delay p50 %10s ns   p99 %10s ns (1 ms log resolution: lower bounds)\n' fio "$fio_err" "$fio_p50" "$fio_p99"
emit peers_timing_riot_duration_error_pct "$riot_err"
emit peers_timing_riot_delay_p50_ns "$riot_p50"
emit peers_timing_riot_delay_p99_ns "$riot_p99"
emit peers_timing_fio_duration_error_pct "$fio_err"
emit peers_timing_fio_delay_p50_ns "$fio_p50"
emit peers_timing_fio_delay_p99_ns "$fio_p99"

# ---- goals ----

goal() { # name, verdict (1 met, 0 not met, n/a), text
	local v=$2
	case $v in 1) s=met ;; 0) s="NOT met" ;; *) s="n/a (not measured)" ;; esac
	printf '  %-52s %s\n' "$3" "$s"
	[ "$v" = n/a ] || emit "peers_goal_$1" "$v"
}
all_modes() { # awk condition on r (riot) and p (peer), per loop
	local peer=$1 cond=$2 v=1
	for mode in pread openclose stat; do
		r=${added[riot-$mode]} p=${added[$peer-$mode]}
		[ "$r" = n/a ] || [ "$p" = n/a ] && { echo n/a; return; }
		awk -v r="$r" -v p="$p" "BEGIN {exit !($cond)}" || v=0
	done
	echo $v
}
cmp() { awk -v a="$1" -v b="$2" "BEGIN { if (a == \"n/a\" || b == \"n/a\") print \"n/a\"; else print ($3) ? 1 : 0 }"; }
echo
echo "goals"
goal capture_third_of_bpftrace "$(all_modes bpftrace 'r < p / 3')" "riot's added capture cost < 1/3 of bpftrace's"
goal capture_1pct_of_strace "$(all_modes strace 'r < p / 100')" "riot's added capture cost < 1% of strace's"
goal replay_1_5x_fio "$(cmp "${rate[riot_uring]}" "${rate[fio_io_uring]}" 'a >= 1.5 * b')" \
	"riot replay (uring) >= 1.5x fio (io_uring) ops/s"
goal replay_sync_1_5x_psync "$(cmp "${rate[riot_sync]}" "${rate[fio_psync]}" 'a >= 1.5 * b')" \
	"riot replay (sync) >= 1.5x fio (psync) ops/s"
goal timing_below_fio "$(cmp "$riot_err" "$fio_err" 'a < b')" "riot's duration error < fio's"
echo "reproduce: make bench (or RIOT=./riot BIN=build/bin bash benchmarks/peers.sh)"
