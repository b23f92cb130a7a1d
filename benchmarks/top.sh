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
# 2. Memory: the maximum resident set of `riot top LOG` (browsing, drawn
#    to the end) and `riot info LOG` on genlog's log of PATHS distinct
#    paths of 210 bytes: the resolver of paths holds every one, the
#    view's tables only their heavy hitters.
#
# Environment: RIOT, BIN; N (default 1000000), ROUNDS (3), PATHS (1000000).
set -uo pipefail
: "${RIOT:?set RIOT to the riot binary}" "${BIN:?set BIN to the tools directory}"
N=${N:-1000000}
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
echo "2. maximum RSS on a log of $PATHS distinct paths of 210 bytes, MiB"
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
