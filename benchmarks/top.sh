#!/usr/bin/env bash
# benchmarks/top.sh: what watching costs over recording. riot top runs in
# a tmux window (120x40), the way a user runs it.
#
# 1. CPU, what the goal asks: riot's CPU while it records, as its summary
#    states it (its threads' CPU clock from the start of the drain to its
#    end: start-up, the traced loop and the terminal's set-up are not in
#    it), per recorded event, in `riot capture -o LOG -- LOOP` and `riot
#    top -o LOG -- LOOP` of a 4N-call pread loop at full speed, run in
#    turn; what top adds is each round's difference. At 1M events/s that
#    many ns per event is that many thousandths of a core. Then `riot
#    top -- LOOP` (no log, no summary): riot's user+sys from /proc in
#    clock ticks, for an N- and a 4N-call loop differenced, against
#    capture's measured the same way. LOOP is a shell that runs the
#    loop, waits a second (the drain catches up) and copies riot's
#    /proc/PID/stat: its parent's. riot top is quit (q) as soon as it
#    shows the loop exited. Median (min-max) of ROUNDS.
# 2. The same cost taken apart, each part measured where noise does not
#    drown it, then put together at 1M events/s: per record, what riot
#    top's aggregate adds to the drain's hook (benchmarks/top_agg: the
#    records of a log in memory, its times moved to 1M calls/s, the
#    aggregate against a hook that does nothing; over the whole log and
#    over its second half, past the start), on a 4N-call pread loop's log
#    and on a capture of tar -xf of TAR_FILES files; per second,
#    what the view costs whatever the rate (drawing, the terminal, its
#    ticks): riot's recording CPU in `riot top -o` less `riot capture -o`
#    of `sleep IDLE_S`. Each against capture's own recording CPU per event
#    of the same workload (its summary).
# 3. Memory: the maximum resident set of `riot top LOG` (browsing, drawn
#    to the end) and `riot info LOG` on genlog's log of PATHS distinct
#    paths of 210 bytes: the resolver of paths holds every one, the
#    view's tables only their heavy hitters.
#
# Environment: RIOT, BIN, BENCH (benchmarks/*.c built); N (default
# 1000000), ROUNDS (3), PATHS (1000000), TAR_FILES (40000), IDLE_S (10).
set -uo pipefail
: "${RIOT:?set RIOT to the riot binary}" "${BIN:?set BIN to the tools directory}"
: "${BENCH:?set BENCH to the built benchmarks directory}"
N=${N:-1000000}
TAR_FILES=${TAR_FILES:-40000}
IDLE_S=${IDLE_S:-10}
ROUNDS=${ROUNDS:-3}
PATHS=${PATHS:-1000000}
out=${BENCH_OUT:-/dev/null}
. "$(dirname "$0")/_lib.sh"
need_root top.sh BPF
command -v tmux >/dev/null 2>&1 || { echo "top.sh: needs tmux (make deps-test)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "top.sh: needs /usr/bin/time (GNU time)" >&2; exit 1; }
bench_workdir top
sock=$work/tmux.sock
trap 'tmux -S "$sock" kill-server 2>/dev/null; rm -rf "$work"' EXIT
spread() { grep -v n/a | sort -g | awk '{a[NR] = $1} END {if (NR) printf "%s (%s-%s)", a[int((NR + 1) / 2)], a[1], a[NR]; else print "n/a"}'; }

# in_tmux DONE_ERE CMD...: CMD in a tmux window under GNU time ("%U %S
# %M" in $work/time), its standard error in $work/err; q once the screen
# shows DONE_ERE. Fails after 600 s.
in_tmux() {
	local ere=$1 n=6000 q
	shift
	printf -v q ' %q' "$@"
	rm -f "$work/time" "$work/rc" "$work/err"
	tmux -S "$sock" new-session -d -s b -x 120 -y 40 \
		"/usr/bin/time -f '%U %S %M' -o '$work/time'$q 2>'$work/err'; echo \$? >'$work/rc'" || return 1
	while [ "$n" -gt 0 ] && [ ! -s "$work/rc" ]; do
		if tmux -S "$sock" capture-pane -p -t b 2>/dev/null | grep -Eq -- "$ere"; then
			tmux -S "$sock" send-keys -t b q
			break
		fi
		sleep 0.05; n=$((n - 1))
	done
	n=600
	while [ ! -s "$work/rc" ] && [ "$n" -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
	tmux -S "$sock" kill-server 2>/dev/null
	[ "$(cat "$work/rc" 2>/dev/null)" = 0 ] || { echo "top.sh: $* failed" >&2; return 1; }
}
events() { "$RIOT" info "$1" | awk '$1 == "events:" {print $2}'; }

# run KIND CALLS: "cpu-ns events" of one run (events: none without a log)
run() {
	local loop
	loop=(sh -c "'$BIN/sysloop' pread $2 '$target' >/dev/null; sleep 1; cat /proc/\$PPID/stat >'$work/stat'")
	rm -f "$work/l.riot" "$work/stat"
	case $1 in
	capture) "$RIOT" capture -q -o "$work/l.riot" -- "${loop[@]}" >/dev/null 2>&1 || return 1 ;;
	top-nolog) in_tmux "exited 0" "$RIOT" top -- "${loop[@]}" || return 1 ;;
	esac
	[ -s "$work/stat" ] || return 1
	# utime and stime: fields 14 and 15, after the ")" that ends comm
	sed 's/.*) //' "$work/stat" | awk -v t="$(getconf CLK_TCK)" -v e="$([ -f "$work/l.riot" ] && events "$work/l.riot")" \
		'{printf "%.0f %s\n", ($12 + $13) * 1e9 / t, e}'
}

# recording KIND: riot's recording CPU per event of a 4N-call loop, as
# its summary states it ("riot CPU S s recording (N ns/event)"), from
# the seconds and the events for a finer figure
recording() {
	local loop=("$BIN/sysloop" pread $((N * 4)) "$target")
	case $1 in
	capture) "$RIOT" capture -o "$work/l.riot" -- "${loop[@]}" >/dev/null 2>"$work/err" || return 1 ;;
	top) in_tmux "exited 0" "$RIOT" top -o "$work/l.riot" -- "${loop[@]}" || return 1 ;;
	esac
	awk '$1 == "events" {e = $2} $1 == "riot" && $2 == "CPU" {s = $3}
		END {if (e > 0 && s != "") printf "%.1f\n", s * 1e9 / e; else print "n/a"}' "$work/err"
}

printf 'riot top benchmark: N=%d, median (min-max) of %d rounds, %s, %s CPUs, load %s\n' \
	"$N" "$ROUNDS" "$(uname -r)" "$(nproc)" "$(cut -d' ' -f1 /proc/loadavg)"
echo
echo "1. riot's CPU while recording, per event of a $((N * 4))-call pread loop, ns"
echo "   (each run's summary; capture and top -o in turn, each round's difference)"
rm -f "$work"/d-* "$work"/a-*
for _ in $(seq "$ROUNDS"); do
	c=$(recording capture) && t=$(recording top) || continue
	echo "$c" >>"$work/d-capture"
	echo "$t" >>"$work/d-top"
	awk -v t="$t" -v c="$c" 'BEGIN {if (t != "n/a" && c != "n/a") printf "%.1f\n", t - c; else print "n/a"}' >>"$work/a-top"
done
printf '   %-28s %24s %24s\n' run "ns/event" "top adds, ns/event"
printf '   %-28s %24s %24s\n' "riot capture -o LOG" "$(spread <"$work/d-capture")" -
printf '   %-28s %24s %24s\n' "riot top -o LOG" "$(spread <"$work/d-top")" "$(spread <"$work/a-top")"
add=$(spread <"$work/a-top"); add=${add%% *}
cap=$(spread <"$work/d-capture"); cap=${cap%% *}
echo "   at 1M events/s, top -o adds $(awk -v a="$add" 'BEGIN {if (a == "n/a") print "n/a"; else printf "%.1f %%", a / 10}') of a core over capture," \
	"$(awk -v a="$add" -v c="$cap" 'BEGIN {if (a == "n/a" || c == "n/a" || c <= 0) print "n/a"; else printf "%.1f %%", 100 * a / c}') of capture's own CPU"
{
	echo "top_pread_cpu_ns_per_event $(spread <"$work/d-top" | cut -d' ' -f1)"
	echo "top_pread_capture_cpu_ns_per_event $(spread <"$work/d-capture" | cut -d' ' -f1)"
	echo "top_pread_adds_ns_per_event $add"
	echo "top_pread_adds_pct $(awk -v a="$add" -v c="$cap" 'BEGIN {if (a == "n/a" || c <= 0) print "n/a"; else printf "%.1f", 100 * a / c}')"
} >>"$out"

echo
echo "   riot top without a log (no summary): riot's user+sys from /proc, ns per"
echo "   event (from an N- and a 4N-call run), against capture's the same way"
for _ in $(seq "$ROUNDS"); do
	rm -f "$work"/x-*
	for k in capture top-nolog; do
		read -r a e < <(run "$k" "$N") || continue
		read -r b f < <(run "$k" $((N * 4))) || continue
		[ -n "$e" ] && echo "$e $f" >"$work/ev"
		# without a log, the events are the capture's of the same loops
		[ -z "$e" ] && [ -s "$work/ev" ] && read -r e f <"$work/ev"
		awk -v a="$a" -v e="$e" -v b="$b" -v f="$f" \
			'BEGIN {if (f > e) printf "%.1f\n", (b - a) / (f - e); else print "n/a"}' >"$work/x-$k"
		cat "$work/x-$k" >>"$work/p-$k"
	done
	[ -s "$work/x-top-nolog" ] && [ -s "$work/x-capture" ] &&
		awk -v t="$(cat "$work/x-top-nolog")" -v c="$(cat "$work/x-capture")" \
			'BEGIN {printf "%.1f\n", t - c}' >>"$work/a-top-nolog"
done
printf '   %-28s %24s %24s\n' "riot capture -q -o LOG" "$(spread <"$work/p-capture")" -
printf '   %-28s %24s %24s\n' "riot top (no log)" "$(spread <"$work/p-top-nolog")" "$(spread <"$work/a-top-nolog")"
echo
echo "2. taken apart, at 1M events/s: what top adds per record and per second,"
echo "   ns/event, against capture's own recording CPU per event"
# recording_s KIND CMD...: riot's recording CPU, seconds, from its summary
recording_s() {
	local kind=$1
	shift
	rm -f "$work/l.riot"
	case $kind in
	capture) "$RIOT" capture -o "$work/l.riot" -- "$@" >/dev/null 2>"$work/err" || return 1 ;;
	top) in_tmux "exited 0" "$RIOT" top -o "$work/l.riot" -- "$@" || return 1 ;;
	esac
	awk '$1 == "riot" && $2 == "CPU" {print $3}' "$work/err"
}
rm -f "$work"/i-*
for _ in $(seq "$ROUNDS"); do
	c=$(recording_s capture sleep "$IDLE_S") && t=$(recording_s top sleep "$IDLE_S") || continue
	awk -v c="$c" -v t="$t" -v s="$IDLE_S" 'BEGIN {printf "%.0f\n", (t - c) * 1e6 / s}' >>"$work/i-sec"
done
sec=$(spread <"$work/i-sec")
# the pread loop's log, and tar's, with capture's recording CPU per event
# (median of ROUNDS)
per_event_of_err() {
	awk '$1 == "events" {e = $2} $1 == "riot" && $2 == "CPU" {s = $3}
		END {if (e > 0) printf "%.1f\n", s * 1e9 / e}' "$work/err"
}
make_big_tar "$work/big.tar" "$TAR_FILES"
rm -f "$work"/c-tar "$work"/c-pread
for _ in $(seq "$ROUNDS"); do
	"$RIOT" capture -o "$work/pread.riot" -- "$BIN/sysloop" pread $((N * 4)) "$target" \
		>/dev/null 2>"$work/err" && per_event_of_err >>"$work/c-pread"
	rm -rf "$work/u"; mkdir "$work/u"
	"$RIOT" capture -o "$work/tar.riot" -- tar -xf "$work/big.tar" -C "$work/u" >/dev/null 2>"$work/err" &&
		per_event_of_err >>"$work/c-tar"
done
rm -rf "$work/u"
cap_pread=$(spread <"$work/c-pread") cap_tar=$(spread <"$work/c-tar")
printf '   %-8s %18s %18s %11s %9s %20s %7s\n' workload "aggregate/record" "its second half" "view, us/s" \
	"top adds" "capture's own" share
for w in pread tar; do
	read -r _ _ _ _ _ _ _ all q _ agg aq < <("$BENCH/top_agg" "$work/$w.riot") || continue
	cap=$([ "$w" = pread ] && echo "${cap_pread%% *}" || echo "${cap_tar%% *}")
	add=$(awk -v a="$agg" -v s="${sec%% *}" 'BEGIN {if (s == "n/a") print "n/a"; else printf "%.1f", a + s / 1000}')
	pct=$(awk -v a="$add" -v c="$cap" 'BEGIN {if (a == "n/a" || c == "n/a" || c <= 0) print "n/a"; else printf "%.1f %%", 100 * a / c}')
	printf '   %-8s %18s %18s %11s %9s %20s %7s\n' "$w" "$all $q" "$agg $aq" "${sec%% *}" "$add" \
		"$([ "$w" = pread ] && echo "$cap_pread" || echo "$cap_tar")" "$pct"
	{
		echo "top_${w}_agg_ns_per_record $all"
		echo "top_${w}_agg_steady_ns_per_record $agg"
		echo "top_${w}_apart_adds_ns_per_event $add"
		echo "top_${w}_apart_adds_pct ${pct% %}"
	} >>"$out"
done
echo "top_view_us_per_s ${sec%% *}" >>"$out"
echo "   view: $sec us of CPU a second (at 1M events/s, as many thousandths of a"
echo "   ns per event); top adds: the aggregate's second half (past the first"
echo "   tenth of a second, which takes up to 4,096 calls whole) plus the view"

echo
echo "3. maximum RSS on a log of $PATHS distinct paths of 210 bytes, MiB"
"$BIN/genlog" -o "$work/p.riot" -n "$PATHS" --shape paths --path-bytes 210 || exit 1
in_tmux "at [0-9.]+ of" "$RIOT" top "$work/p.riot" && top_kb=$(awk '{print $3}' "$work/time")
/usr/bin/time -f '%U %S %M' -o "$work/time" "$RIOT" info "$work/p.riot" >/dev/null && info_kb=$(awk '{print $3}' "$work/time")
text=$((PATHS * 211))
printf '   %-16s %8s\n' "path text" "$(awk -v t="$text" 'BEGIN {printf "%.1f", t / 1048576}')"
printf '   %-16s %8s\n' "riot top LOG" "$(awk -v k="${top_kb:-0}" 'BEGIN {printf "%.1f", k / 1024}')"
printf '   %-16s %8s\n' "riot info LOG" "$(awk -v k="${info_kb:-0}" 'BEGIN {printf "%.1f", k / 1024}')"
{
	echo "top_paths_${PATHS}_rss_mib $(awk -v k="${top_kb:-0}" 'BEGIN {printf "%.1f", k / 1024}')"
	echo "top_paths_${PATHS}_info_rss_mib $(awk -v k="${info_kb:-0}" 'BEGIN {printf "%.1f", k / 1024}')"
} >>"$out"
