#!/usr/bin/env bash
# benchmarks/floor.sh: riot's replay against the speed floor and fio.
#
# Floor: benchmarks/replay_floor.c reads a log's data operations into an
# array and issues them with pread/pwrite in one thread on files opened
# beforehand: no replayer can do the same operations in less time. Three
# single-stream traces: a dense fio --ioengine=psync --rw=randrw run
# (FIO_IOS 4 KiB I/Os on a cached FIO_MB MiB file), dd writing then reading
# DD_BLOCKS 4 KiB blocks, and a tight loop of SYSLOOP_N cached 4 KiB preads
# (tests/bin/sysloop). Each engine replays as fast as possible; the table
# gives riot's elapsed over the floor's (medians of REPS runs, dirty pages
# synced before each). Target: <= 1.15x.
#
# The measured floor is replay_floor --measure: the same loop, each call
# timed by two clock reads into a histogram and each write's bytes made
# unique per block as riot's --fill random makes them. What separates it
# from the floor is the price of measuring at all; what separates riot
# from it is riot's own machinery (queues, dependencies, accounting).
# The shared floor is --measure --shared-fds: the same, with a second
# thread sharing the fd table, as riot's log reader and its engine threads
# do: every fd call then takes and drops a reference to its file. riot
# over the shared floor is riot's machinery alone.
#
# fio: while riot captures the fio run, fio writes its own iolog
# (--write_iolog); fio then replays that iolog (--read_iolog,
# replay_no_stall=1) with its psync and io_uring engines, and riot replays
# its capture: data operations per second of each (medians of REPS).
# Target: riot's default engine >= fio's best engine.
#
# Env: RIOT, BIN, BENCH; REPS (5), FIO_IOS (40000), FIO_MB (64), DD_BLOCKS
# (20000), SYSLOOP_N (200000), ENGINES (every engine riot has). Run as root.
set -uo pipefail
: "${RIOT:?}" "${BIN:?}" "${BENCH:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/_lib.sh"
need_root floor.sh "BPF capture"

REPS=${REPS:-5}
FIO_IOS=${FIO_IOS:-40000}
FIO_MB=${FIO_MB:-64}
DD_BLOCKS=${DD_BLOCKS:-20000}
SYSLOOP_N=${SYSLOOP_N:-200000}
ENGINES=${ENGINES:-$(riot_engines)}
DEFAULT=$(riot_default_engine)
echo "settings: REPS=$REPS FIO_IOS=$FIO_IOS FIO_MB=$FIO_MB DD_BLOCKS=$DD_BLOCKS SYSLOOP_N=$SYSLOOP_N"
echo "engines: $ENGINES (default: $DEFAULT)"
bench_workdir floor
trap 'rm -rf "$work"' EXIT
out() { [ -z "${BENCH_OUT:-}" ] || [ "$2" = n/a ] || echo "$1 $2" >>"$BENCH_OUT"; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "n/a" || b == "n/a" || b == 0) print "n/a"; else printf "%.2f", a / b }'; }
jfield() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@" 2>/dev/null || echo n/a; }

# ---- the traces ----

d=$work/d
mkdir -p "$d"
head -c $((FIO_MB * 1048576)) /dev/urandom >"$d/data"
fio_randrw "$d/data" "$FIO_MB" "$FIO_IOS"
cat "$d/data" >/dev/null
sync
"$RIOT" capture -q --path "$d" -o "$work/fio.riot" -- "${fio_cmd[@]}" --write_iolog="$work/fio.iolog" >/dev/null 2>&1 ||
	echo "fio: capture failed"
"$RIOT" capture -q --path "$d" -o "$work/dd.riot" -- sh -c "dd if=/dev/zero of=$d/dd.dat bs=4k count=$DD_BLOCKS status=none &&
	dd if=$d/dd.dat of=/dev/null bs=4k status=none" >/dev/null 2>&1 || echo "dd: capture failed"
"$BIN/sysloop" pread 1000 "$target" >/dev/null 2>&1
"$RIOT" capture -q --path "$work" -o "$work/pread.riot" -- "$BIN/sysloop" pread "$SYSLOOP_N" "$target" >/dev/null 2>&1 ||
	echo "pread loop: capture failed"

# ---- riot against the floor ----

# fresh_root LOG ROOT: the tree LOG expects, its pages written back.
fresh_root() { "$RIOT" init "$1" --root "$2" >/dev/null 2>&1; sync; }

printf '\nfloor: riot as fast as possible against replay_floor (one thread, pre-opened files, a\n'
printf 'pre-decoded array of preads and pwrites); median elapsed of %d runs, riot/floor\n' "$REPS"
head=$(printf '%-10s %8s %12s %12s %8s %12s %8s' trace "data ops" floor measured "/floor" shared "/floor")
for e in $ENGINES; do head+=$(printf ' %12s %8s %8s %8s' "$e" "/floor" "/meas." "/shared"); done
echo "$head"
declare -A floor_ratio
for t in fio dd pread; do
	log=$work/$t.riot
	[ -s "$log" ] || continue
	root=$work/root-$t
	: >"$work/floor.ns"
	: >"$work/measured.ns"
	: >"$work/shared.ns"
	for e in $ENGINES; do : >"$work/$e.ns"; done
	ops=n/a
	for _ in $(seq "$REPS"); do
		fresh_root "$log" "$root"
		"$BENCH/replay_floor" "$log" --root "$root" --rounds 1 >"$work/floor.out" 2>&1 &&
			{ read -r _ ops _ _ _ ns _ <"$work/floor.out"; echo "$ns" >>"$work/floor.ns"; }
		fresh_root "$log" "$root"
		"$BENCH/replay_floor" "$log" --root "$root" --rounds 1 --measure >"$work/floor.out" 2>&1 &&
			{ read -r _ _ _ _ _ ns _ <"$work/floor.out"; echo "$ns" >>"$work/measured.ns"; }
		fresh_root "$log" "$root"
		"$BENCH/replay_floor" "$log" --root "$root" --rounds 1 --measure --shared-fds >"$work/floor.out" 2>&1 &&
			{ read -r _ _ _ _ _ ns _ <"$work/floor.out"; echo "$ns" >>"$work/shared.ns"; }
		for e in $ENGINES; do
			fresh_root "$log" "$root"
			"$RIOT" replay "$log" --root "$root" --no-init --speed 0 --engine "$e" --json >"$work/r.json" 2>/dev/null &&
				jfield "$work/r.json" elapsed_ns >>"$work/$e.ns"
		done
	done
	fl=$(median <"$work/floor.ns")
	me=$(median <"$work/measured.ns")
	sh=$(median <"$work/shared.ns")
	row=$(printf '%-10s %8s %12s %12s %8s %12s %8s' "$t" "$ops" "$fl" "$me" "$(div "$me" "$fl")x" \
		"$sh" "$(div "$sh" "$fl")x")
	out "floor_${t}_floor_ns" "$fl"
	out "floor_${t}_measured_ns" "$me"
	out "floor_${t}_measured_over_floor" "$(div "$me" "$fl")"
	out "floor_${t}_shared_ns" "$sh"
	out "floor_${t}_shared_over_floor" "$(div "$sh" "$fl")"
	for e in $ENGINES; do
		m=$(median <"$work/$e.ns")
		r=$(div "$m" "$fl")
		floor_ratio[$t-$e]=$r
		row+=$(printf ' %12s %8s %8s %8s' "$m" "${r}x" "$(div "$m" "$me")x" "$(div "$m" "$sh")x")
		out "floor_${t}_${e}_ns" "$m"
		out "floor_${t}_${e}_over_floor" "$r"
		out "floor_${t}_${e}_over_measured" "$(div "$m" "$me")"
		out "floor_${t}_${e}_over_shared" "$(div "$m" "$sh")"
	done
	echo "$row"
	rm -rf "$root"
done
echo "(elapsed in ns; riot's counts every operation it issues, opens and closes too)"

# ---- riot against fio's own iolog replay ----

rate() { awk -v n="$1" -v ns="$2" 'BEGIN { if (n == "n/a" || ns == "n/a" || ns == 0) print "n/a"; else printf "%.0f\n", n * 1e9 / ns }'; }
declare -A fio_rate
if [ -s "$work/fio.iolog" ] && [ -s "$work/fio.riot" ]; then
	root=$work/root-fio
	for k in fio_psync fio_io_uring $ENGINES; do : >"$work/rate-$k"; done
	nios=n/a
	for _ in $(seq "$REPS"); do
		for eng in psync io_uring; do
			sync
			if fio --name=replay --read_iolog="$work/fio.iolog" --ioengine="$eng" --replay_no_stall=1 \
				--invalidate=0 --output-format=json >"$work/fio.json" 2>/dev/null; then
				read -r n ms < <(python3 -c 'import json,sys
t=open(sys.argv[1]).read(); j=json.loads(t[t.index("{"):])["jobs"][0]
print(j["read"]["total_ios"] + j["write"]["total_ios"], j["job_runtime"])' "$work/fio.json")
				nios=$n
				rate "$n" $((ms * 1000000)) >>"$work/rate-fio_$eng"
			fi
		done
		for e in $ENGINES; do
			fresh_root "$work/fio.riot" "$root"
			"$RIOT" replay "$work/fio.riot" --root "$root" --no-init --speed 0 --engine "$e" --json >"$work/r.json" 2>/dev/null &&
				python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); s=d.get("syscalls", {})
n=sum(v.get("issued", v.get("ops", 0)) for k, v in s.items() if k in ("read", "write", "pread64", "pwrite64")) if isinstance(s, dict) else 0
print(n if n else d["issued"], d["elapsed_ns"])' "$work/r.json" | { read -r n ns; rate "$n" "$ns"; } >>"$work/rate-$e"
		done
	done
	printf '\nfloor: riot against fio replaying the iolog fio wrote of the same run (%s I/Os),\n' "$nios"
	printf 'as fast as possible; data operations per second, median of %d\n' "$REPS"
	for k in fio_psync fio_io_uring $ENGINES; do
		fio_rate[$k]=$(grep -v n/a "$work/rate-$k" | median)
		name=$k
		case $k in fio_*) ;; *) name="riot_$k" ;; esac
		printf '  %-14s %12s ops/s\n' "$name" "${fio_rate[$k]}"
		out "floor_fio_iolog_${name}_ops_per_s" "${fio_rate[$k]}"
	done
	rm -rf "$root"
else
	echo "fio: no iolog or no capture; the comparison with fio is left out"
fi

echo
echo "goals"
v=1
for t in fio dd pread; do
	r=${floor_ratio[$t-$DEFAULT]:-n/a}
	[ "$r" = n/a ] && { v=n/a; break; }
	awk -v r="$r" 'BEGIN {exit !(r <= 1.15)}' || v=0
done
printf '  %-60s %s\n' "riot ($DEFAULT) within 1.15x of the floor (single-stream)" \
	"$(case $v in 1) echo met ;; 0) echo "NOT met" ;; *) echo n/a ;; esac)"
out floor_goal_within_1_15x "$v"
best=$(awk -v a="${fio_rate[fio_psync]:-n/a}" -v b="${fio_rate[fio_io_uring]:-n/a}" \
	'BEGIN { if (a == "n/a") print b; else if (b == "n/a" || a > b) print a; else print b }')
r=$(div "${fio_rate[$DEFAULT]:-n/a}" "$best")
v=$(awk -v r="$r" 'BEGIN { if (r == "n/a") print "n/a"; else print (r >= 1) ? 1 : 0 }')
printf '  %-60s %s\n' "riot ($DEFAULT) >= fio's best engine on fio's own iolog" \
	"$(case $v in 1) echo "met (${r}x)" ;; 0) echo "NOT met (${r}x)" ;; *) echo n/a ;; esac)"
out floor_fio_iolog_riot_over_fio_best "$r"
out floor_goal_fio_iolog "$v"
echo "reproduce: make bench (or RIOT=./riot BIN=build/bin BENCH=build/bench bash benchmarks/floor.sh)"
