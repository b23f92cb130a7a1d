#!/usr/bin/env bash
# benchmarks/capture_cpu.sh: what recording costs the host in the
# recorder's own CPU, each figure apart. Runs as root in a few minutes.
#
# 1. Steady state: the recorder's CPU per recorded event, as the
#    difference of an N-call and a 4N-call run of the pread, open/close
#    and stat loops, so start-up and fixed costs cancel out. riot: its
#    CPU while recording, as its summary states it; bpftrace
#    (benchmarks/peers.bt): user+sys of it and its child, less the
#    child's own as tests/bin/sysloop reports it; `perf trace` (NSLOW
#    calls): its own CPU, attached with -p to the loop. Median of ROUNDS,
#    with the spread (min-max).
# 2. Start-up: riot's CPU for `riot capture -- /bin/true`, and the load
#    time of each BPF program alone (build/bench/bpf_load: the kernel's
#    verifier, the maps, libbpf's relocations).
# 3. Drops under load: with two CPU hogs beside it, three captures of the
#    pread loop at full speed (4N calls), with riot's default priority and
#    with --nice 0.
# 4. Where riot's steady-state CPU goes, per stage (perf samples of riot's
#    own thread in a 4N pread capture, by function): ring-buffer consume,
#    reorder across CPUs, convert, encode, compress, copies (libc's memcpy),
#    kernel (syscalls, page faults), start-up (libbpf, BTF).
# 5. tar -xf of TAR_FILES and 4 x TAR_FILES files: riot's CPU per event in
#    steady state (the difference of its recording CPU, as its summary
#    states it, over the two), with starting and stopping included, and
#    bytes per event.
# 6. A program that is not a full-speed loop: the pread loop paced at
#    5,000 and 20,000 calls a second for PACED_S seconds, riot's
#    recording CPU per event as its summary states it. What riot spends
#    per second whatever comes (its wake-ups, its kicks of other CPUs)
#    is spread over fewer events than at full speed.
#
# Environment: RIOT, BIN, BENCH (build/bench); N (default 1000000), NSLOW
# (perf trace, default 100000), ROUNDS (3), TAR_FILES (20000), PACED_S (5);
# PEERS=0 leaves bpftrace and perf trace out; BEFORE=ANOTHER_RIOT runs that
# binary too in parts 1, 5 and 6, alternated with RIOT round by round, as
# a "before" column (it writes no figures to BENCH_OUT).
set -uo pipefail
: "${RIOT:?set RIOT to the riot binary}" "${BIN:?set BIN to the tools directory}"
BENCH=${BENCH:-$(dirname "$RIOT")/build/bench}
N=${N:-1000000}
NSLOW=${NSLOW:-100000}
ROUNDS=${ROUNDS:-3}
TAR_FILES=${TAR_FILES:-20000}
PACED_S=${PACED_S:-5}
PEERS=${PEERS:-1}
BEFORE=${BEFORE:-}
out=${BENCH_OUT:-/dev/null}

. "$(dirname "$0")/_lib.sh"
need_root capture_cpu.sh BPF
bench_workdir capcpu
hogs=()
trap 'rm -rf "$work"; [ ${#hogs[@]} -eq 0 ] || kill "${hogs[@]}" 2>/dev/null' EXIT
have() { command -v "$1" >/dev/null 2>&1; }
spread() { grep -v n/a | sort -g | awk '{a[NR] = $1} END {if (NR) printf "%s (%s-%s)", a[int((NR + 1) / 2)], a[1], a[NR]; else print "n/a"}'; }

# cpu_ns CMD...: the recorder's CPU in ns (its user+sys with its child's,
# less the child's), then the loop's calls; the loop's stdout in $work/out.
cpu_ns() {
	local TIMEFORMAT='%U %S'
	{ time "$@" >"$work/out" 2>"$work/err"; } 2>"$work/time"
	local child calls
	child=$(field_before cpu-ns/syscall <"$work/out" | head -1)
	calls=$(field_before syscalls <"$work/out" | head -1)
	[ -n "$child" ] && [ -n "$calls" ] || { echo "n/a"; return; }
	awk -v c="$child" -v k="$calls" '{printf "%.0f %d\n", ($1 + $2) * 1e9 - c * k, k}' "$work/time"
}
riot_events() { awk '$1 == "events" {print $2}' "$work/err"; }
per_event() { # cpu1 ev1 cpu2 ev2; n/a where the recorder's CPU came out
	# below its child's (a child whose CPU its rusage does not count)
	awk -v a="$1" -v e="$2" -v b="$3" -v f="$4" 'BEGIN {if (f > e && b > a && a > 0) printf "%.1f\n", (b - a) / (f - e); else print "n/a"}'
}

# riot_run MODE CALLS: "cpu-ns events" of one riot capture of the loop:
# riot's CPU while it recorded, as its summary states it (its own threads'
# user+sys from the start of the drain to its end, less detaching the
# programs: start-up and the traced loop's CPU are not in it).
riot_run() {
	"${RIOT_RUN:-$RIOT}" capture -o "$work/l.riot" -- "$BIN/sysloop" "$1" "$2" "$target" \
		>"$work/out" 2>"$work/err"
	awk '/riot CPU/ {printf "%.0f ", $3 * 1e9} $1 == "events" {e = $2} END {print e}' "$work/err" |
		awk 'NF == 2 {print; ok = 1} END {if (!ok) print "n/a"}'
}
bt_run() { # events: the loop's calls (one line per syscall, plus a few)
	cpu_ns bpftrace -o "$work/bt.out" -c "$BIN/sysloop $1 $2 $target" "$(dirname "$0")/peers.bt"
}
# perf trace's own CPU: it attaches (-p) to a shell that waits on a fifo,
# then execs the loop, so the loop is no child of perf's and perf's
# rusage is its own; the loop's syscalls are "calls" (a few of the
# shell's are in both run lengths and cancel).
perf_run() {
	local TIMEFORMAT='%U %S' pid
	rm -f "$work/gate"
	mkfifo "$work/gate"
	sh -c 'read -r _ <"$1"; exec "$2" "$3" "$4" "$5"' sh "$work/gate" "$BIN/sysloop" "$1" "$2" \
		"$target" >"$work/out" &
	pid=$!
	{ time perf trace -p "$pid" -o "$work/perf.out" 2>"$work/err"; } 2>"$work/time" &
	sleep 3	# perf trace attached (it reads the syscall tables first)
	echo go >"$work/gate"
	wait
	awk -v k="$2" '{printf "%.0f %d\n", ($1 + $2) * 1e9, k}' "$work/time"
}

printf 'capture CPU benchmark: N=%d (perf trace %d), median (min-max) of %d rounds, %s, %s CPUs, load %s\n' \
	"$N" "$NSLOW" "$ROUNDS" "$(uname -r)" "$(nproc)" "$(cut -d' ' -f1 /proc/loadavg)"
echo
echo "1. steady state: the recorder's own CPU per recorded event, ns"
echo "   (from an N- and a 4N-call run: start-up cancels out)"
printf '%-10s %22s %22s %22s%s\n' loop riot bpftrace 'perf trace' "${BEFORE:+                 before}"
for mode in pread openclose stat; do
	rm -f "$work"/d-*
	for _ in $(seq "$ROUNDS"); do
		read -r a e < <(riot_run "$mode" "$N")
		read -r b f < <(riot_run "$mode" $((N * 4)))
		per_event "$a" "$e" "$b" "$f" >>"$work/d-riot"
		if [ -n "$BEFORE" ]; then
			read -r a e < <(RIOT_RUN=$BEFORE riot_run "$mode" "$N")
			read -r b f < <(RIOT_RUN=$BEFORE riot_run "$mode" $((N * 4)))
			per_event "$a" "$e" "$b" "$f" >>"$work/d-before"
		fi
		[ "$PEERS" = 1 ] || continue
		if have bpftrace; then
			read -r a e < <(bt_run "$mode" "$N")
			read -r b f < <(bt_run "$mode" $((N * 4)))
			per_event "$a" "$e" "$b" "$f" >>"$work/d-bt"
		fi
		if have perf; then
			read -r a e < <(perf_run "$mode" "$NSLOW")
			read -r b f < <(perf_run "$mode" $((NSLOW * 4)))
			per_event "$a" "$e" "$b" "$f" >>"$work/d-perf"
		fi
	done
	r=$(spread <"$work/d-riot")
	b=n/a p=n/a	# PEERS=0, or the peer is missing
	[ -f "$work/d-bt" ] && b=$(spread <"$work/d-bt")
	[ -f "$work/d-perf" ] && p=$(spread <"$work/d-perf")
	printf '%-10s %22s %22s %22s%s\n' "$mode" "$r" "$b" "$p" \
		"${BEFORE:+ $(printf '%22s' "$(spread <"$work/d-before")")}"
	printf 'capture_%s_drain_ns_per_event %s\n' "$mode" "${r%% *}" >>"$out"
	[ "${b%% *}" = n/a ] || printf 'capture_%s_bpftrace_cpu_ns_per_event %s\n' "$mode" "${b%% *}" >>"$out"
	[ "${p%% *}" = n/a ] || printf 'capture_%s_perf_trace_cpu_ns_per_event %s\n' "$mode" "${p%% *}" >>"$out"
done

echo
echo "2. start-up: riot's CPU for \`riot capture -- /bin/true\`, seconds"
rm -f "$work/s"
for _ in $(seq $((ROUNDS * 3))); do
	TIMEFORMAT='%U %S'
	{ time "$RIOT" capture -q -o "$work/t.riot" -- /bin/true; } 2>&1 | awk '{printf "%.3f\n", $1 + $2}' >>"$work/s"
done
s=$(spread <"$work/s")
echo "   $s"
echo "capture_startup_cpu_s ${s%% *}" >>"$out"
if [ -x "$BENCH/bpf_load" ]; then
	echo "   each program loaded alone (with the maps), median of 3; maps: none;"
	echo "   all: every program this kernel takes; insns: the verifier's count"
	printf '   %-20s %8s %8s %8s\n' program cpu-ms wall-ms insns
	"$BENCH/bpf_load" 3 | while read -r name _ c _ w _ i; do
		if [ "$c" = "" ]; then
			printf '   %-20s %8s\n' "$name" "cannot load here"
			continue
		fi
		printf '   %-20s %8s %8s %8s\n' "$name" "$c" "$w" "$i"
		echo "capture_load_${name}_cpu_ms $c" >>"$out"
	done
fi

echo
echo "3. drops under load: two CPU hogs, three full-speed pread captures of $((N * 4)) calls"
for i in 1 2; do sh -c 'while :; do :; done' & hogs+=($!); done
for nice in default 0; do
	total=0 runs=""
	for _ in 1 2 3; do
		if [ "$nice" = default ]; then
			"$RIOT" capture -o "$work/l.riot" -- "$BIN/sysloop" pread $((N * 4)) "$target" >/dev/null 2>"$work/err"
		else
			"$RIOT" capture --nice 0 -o "$work/l.riot" -- "$BIN/sysloop" pread $((N * 4)) "$target" >/dev/null 2>"$work/err"
		fi
		d=$(awk '$1 == "drops" {print $2}' "$work/err")
		runs+=" ${d:-n/a}"
		total=$((total + ${d:-0}))
	done
	printf '   %-14s drops per run:%s (total %d)\n' "--nice $nice" "$runs" "$total"
	echo "capture_drops_under_load_nice_${nice/default/default} $total" >>"$out"
done
kill "${hogs[@]}" 2>/dev/null
wait "${hogs[@]}" 2>/dev/null
hogs=()

echo
echo "4. riot's steady-state CPU per pread event by stage, ns (perf samples of"
echo "   riot's own thread, by function; an N- and a 4N-call capture differenced)"
# stage_ns CALLS: "stage ns" lines for one capture, then "events N"
stage_ns() {
	perf record -q -e cpu-clock -c 100000 -o "$work/perf.data" -- \
		"$RIOT" capture -o "$work/l.riot" -- "$BIN/sysloop" pread "$1" "$target" >/dev/null 2>"$work/err"
	perf report -i "$work/perf.data" --sort comm,sym -n --stdio -g none 2>/dev/null |
		awk '/^ +[0-9.]+%/ && $3 == "riot" {
			n = $2; sym = $NF; k = ($4 == "[k]")
			if (sym ~ /^(ring_buffer__|ringbuf_|on_record|on_event|tracer_poll)/) s = "consume"
			else if (sym ~ /^(reorder_|index_run|sort_items|pop|sift_|event_size|syscall_size|event_time|add_run|run_free)/) s = "reorder"
			else if (sym ~ /^(convert_|unpack|put_arg|riot_put_arg|riot_sys_info|uring_convert|log_event|exec_fill|mmap_result|clone_args|ev_str)/) s = "convert"
			else if (sym ~ /^(ZSTD_|HIST_|FSE_|HUF_|block_compress)/) s = "compress"
			else if (sym ~ /^(riot_writer|rec_emit|enc_|intern|hash_bytes|map_|set_|write_rec|log_rec|pred_|grow|put_|block_)/) s = "encode"
			else if (sym ~ /^(__mem|memcpy|memmove|__memmove|__memset)/) s = "copies"
			else if (sym ~ /^(bpf_core|btf|libbpf|bpf_object|bpf_program)/) s = "start-up"
			else if (k) s = "kernel"
			else s = "other"
			ns[s] += n * 100000
		}
		END {for (s in ns) print s, ns[s]}'
	echo "events $(riot_events)"
}
if have perf; then
	stage_ns "$N" >"$work/st1"
	stage_ns $((N * 4)) >"$work/st4"
	awk -v out="$out" 'FNR == NR {a[$1] = $2; next} {b[$1] = $2}
		END {
			e = b["events"] - a["events"]
			split("consume reorder convert encode compress copies kernel start-up other", order, " ")
			for (i = 1; i in order; i++) {
				s = order[i]; v = (b[s] - a[s]) / e; t += v
				printf "   %-10s %7.1f\n", s, v
				if (out != "/dev/null") { g = s; gsub("-", "_", g); printf "capture_stage_%s_ns %.1f\n", g, v >>out }
			}
			printf "   %-10s %7.1f (kernel: riot'"'"'s syscalls and page faults)\n", "total", t
		}' "$work/st1" "$work/st4"
else
	echo "   n/a (no perf)"
fi

echo
echo "5. tar -xf of $TAR_FILES and $((TAR_FILES * 4)) files"
make_big_tar "$work/big.tar" "$TAR_FILES"
make_big_tar "$work/big4.tar" $((TAR_FILES * 4))
# riot's CPU with one tarball, as its summary states it: "recording-ns
# events all-ns" (all: with starting and stopping)
tar_riot() {
	rm -rf "$work/u"; mkdir "$work/u"
	"${RIOT_RUN:-$RIOT}" capture -o "$work/t.riot" -- tar -xf "$1" -C "$work/u" >/dev/null 2>"$work/err"
	awk '/riot CPU/ {r = $3; a = $3 + $(NF - 5)} $1 == "events" {e = $2}
		END {printf "%.0f %d %.0f\n", r * 1e9, e, a * 1e9}' "$work/err"
}
rm -f "$work/tr" "$work/ts" "$work/tb" "$work/tsb"
for _ in $(seq "$ROUNDS"); do
	read -r c1 e1 a1 < <(tar_riot "$work/big.tar")
	awk '/log size/ {for (i = 1; i < NF; i++) if ($(i+1) == "bytes/event") print $i}' "$work/err" >>"$work/tb"
	read -r c4 e4 _ < <(tar_riot "$work/big4.tar")
	awk -v c="$a1" -v e="$e1" 'BEGIN {printf "%.1f\n", c / e}' >>"$work/tr"
	per_event "$c1" "$e1" "$c4" "$e4" >>"$work/ts"
	if [ -n "$BEFORE" ]; then
		read -r c1 e1 a1 < <(RIOT_RUN=$BEFORE tar_riot "$work/big.tar")
		read -r c4 e4 _ < <(RIOT_RUN=$BEFORE tar_riot "$work/big4.tar")
		per_event "$c1" "$e1" "$c4" "$e4" >>"$work/tsb"
	fi
done
t=$(spread <"$work/tr") s=$(spread <"$work/ts") b=$(spread <"$work/tb")
echo "   riot CPU, steady state (the two tarballs' difference): $s ns/event"
[ -z "$BEFORE" ] || echo "   before: $(spread <"$work/tsb") ns/event"
echo "   riot CPU, start-up included ($e1 events): $t ns/event; $b bytes/event"
printf 'capture_tar_steady_ns_per_event %s\ncapture_tar_cpu_ns_per_event %s\ncapture_tar_bytes_per_event_median %s\n' \
	"${s%% *}" "${t%% *}" "${b%% *}" >>"$out"

echo
echo "6. the pread loop paced for $PACED_S s: riot's recording CPU, ns/event"
for rate in 5000 20000; do
	rm -f "$work/pc" "$work/pcb"
	for _ in $(seq "$ROUNDS"); do
		for r in "$RIOT" ${BEFORE:+"$BEFORE"}; do
			"$r" capture -o "$work/l.riot" -- "$BIN/sysloop" pread $((rate * PACED_S)) "$target" "$rate" \
				>/dev/null 2>"$work/err"
			awk '/riot CPU/ {x = $0; sub(/.*[(]/, "", x); sub(/ ns.*/, "", x); print x}' "$work/err" \
				>>"$work/$([ "$r" = "$RIOT" ] && echo pc || echo pcb)"
		done
	done
	s=$(spread <"$work/pc")
	printf '   %6d calls/s: %s%s\n' "$rate" "$s" "${BEFORE:+; before: $(spread <"$work/pcb")}"
	echo "capture_paced_${rate}_ns_per_event ${s%% *}" >>"$out"
done
