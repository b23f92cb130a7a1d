#!/usr/bin/env bash
# test_top: `riot top` on a terminal (tmux, 120x40): a log browsed with the
# golden log's exact counts in the syscalls, files and processes tabs and
# their CSV; the events tab's filters, and its CSV of what they let
# through; a live capture of a command of known counts (the view's table
# equals the log written beside it), and one fast enough to be sampled
# (every call in its syscall's row, the file's count from the sample
# within 2 %); the process picker finding a process
# by its pid; q during a capture leaves a complete log and stops the
# command; riot replay --top shows the replay's operations, its issue
# delay, then its summary; NO_COLOR draws without colour; a resize keeps the figures; the C
# locale draws ASCII only; a terminal this host does not know is drawn;
# and no terminal is a one-line error.
. "$(dirname "$0")/lib.sh"
require_capture
command -v tmux >/dev/null 2>&1 || fail "tmux is required (make deps-test)"
TOP=$(cd "$IT_DIR/../.." && pwd)
GOLD=$TOP/tests/golden/capture-2.0.riot
SOCK=$IT_TMP/tmux.sock
tm() { tmux -S "$SOCK" "$@"; }
top_cleanup() { tm kill-server 2>/dev/null; it_cleanup; }
trap top_cleanup EXIT

# start NAME ENV... -- ARGS...: riot top ARGS in a 120x40 window, in
# $IT_TMP/NAME (its CSV files land there); the exit status in NAME.rc
start() {
	local name=$1 envs=() a
	shift
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	mkdir -p "$IT_TMP/$name"
	local cmd="cd '$IT_TMP/$name' && env ${envs[*]} '$RIOT' top"
	for a in "$@"; do cmd+=" '$a'"; done
	cmd+=" 2>'$IT_TMP/$name.err'; echo \$? >'$IT_TMP/$name.rc'; sleep 600"
	tm new-session -d -s "$name" -x 120 -y 40 "$cmd" || fail "tmux new-session $name"
}
screen() { tm capture-pane -p -t "$1"; }
# wait_for NAME ERE [SECONDS]: until the screen shows ERE
wait_for() {
	local n=$(( ${3:-30} * 10 ))
	while [ "$n" -gt 0 ]; do
		screen "$1" | grep -Eq -- "$2" && return 0
		[ -s "$IT_TMP/$1.rc" ] && break
		sleep 0.1; n=$((n - 1))
	done
	screen "$1" >&2
	cat "$IT_TMP/$1.err" >&2 2>/dev/null
	fail "$1: the screen never showed /$2/"
}
keys() { local s=$1; shift; tm send-keys -t "$s" "$@"; }
# quit NAME: q, then the exit status riot top gave
quit() {
	local n=300
	keys "$1" q
	while [ ! -s "$IT_TMP/$1.rc" ] && [ "$n" -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
	[ -s "$IT_TMP/$1.rc" ] || fail "$1: riot top did not exit on q"
	cat "$IT_TMP/$1.rc"
}
# row NAME LABEL: the table row whose first column is LABEL, its columns
# after the label (COUNT ERRORS BYTES ...)
row() { screen "$1" | awk -v l="$2" '$1 == l {$1 = ""; print substr($0, 2); exit}'; }
expect_count() { # NAME LABEL COUNT
	local r; r=$(row "$1" "$2")
	[ "${r%% *}" = "$3" ] || { screen "$1" >&2; fail "$1: $2's count is '${r%% *}', not $3"; }
}

# --- no terminal: one line, exit 1, nothing drawn ---
"$RIOT" top "$GOLD" </dev/null >"$IT_TMP/nt.out" 2>"$IT_TMP/nt.err"
rc=$?
[ "$rc" = 1 ] || fail "riot top without a terminal exited $rc"
[ "$(wc -l <"$IT_TMP/nt.err")" = 1 ] && grep -q "standard input is not a terminal" "$IT_TMP/nt.err" ||
	fail "riot top without a terminal said: $(cat "$IT_TMP/nt.err")"
[ ! -s "$IT_TMP/nt.out" ] || fail "riot top without a terminal wrote to stdout"

# --- the golden log, browsed: 23 calls of 4 processes ---
start gold TERM=xterm-256color -- "$GOLD"
wait_for gold "23 calls \| drops 0"
keys gold 2
wait_for gold "^SYSCALL +COUNT"
for sc in vfork:3 execve:4 openat:2 unlinkat:1 renameat2:1 write:1 newfstatat:4 read:2 \
	fadvise64:1 close:2 dup2:2; do
	expect_count gold "${sc%:*}" "${sc#*:}"
done
[ "$(screen gold | awk '/^SYSCALL/ {t = 1; next} t && NF == 8 && $2 ~ /^[0-9]+$/' | wc -l)" = 11 ] ||
	fail "the syscalls tab does not have 11 rows"
keys gold e
wait_for gold "wrote 11 rows to riot-top-syscalls-"
csv=$(ls "$IT_TMP/gold"/riot-top-syscalls-*.csv)
[ "$(head -n 1 "$csv")" = "name,count,errors,bytes,time_ns,p50_ns,p99_ns,max_ns" ] ||
	fail "syscalls CSV header: $(head -n 1 "$csv")"
[ "$(tail -n +2 "$csv" | cut -d, -f1,2,4 | sort | tr '\n' ' ')" = \
	'"close",2,0 "dup2",2,0 "execve",4,0 "fadvise64",1,0 "newfstatat",4,0 "openat",2,0 "read",2,6 "renameat2",1,0 "unlinkat",1,0 "vfork",3,0 "write",1,6 ' ] ||
	fail "syscalls CSV: $(cat "$csv")"
keys gold 3
wait_for gold "^FILE +COUNT"
expect_count gold /tmp/gw20/a 11
expect_count gold /tmp/gw20/b 2
expect_count gold /tmp/gw20 2
[ "$(row gold /tmp/gw20/a | awk '{print $3}')" = 12B ] || fail "/tmp/gw20/a's bytes: $(row gold /tmp/gw20/a)"
keys gold 4
wait_for gold "^PID COMM"
[ "$(screen gold | awk '$2 ~ /^(sh|cat|mv|rm)$/ {print $2 "=" $3}' | sort | tr '\n' ' ')" = \
	"cat=7 mv=2 rm=3 sh=11 " ] || fail "processes tab: $(screen gold)"
# events: cat's 7 calls, through a filter; a second filter, popped
keys gold 7
wait_for gold "filters: \(none\)"
keys gold f 'comm=cat' Enter
wait_for gold "filters: comm=cat"
keys gold f 'sys=read' Enter
wait_for gold "filters: comm=cat.*sys=read"
[ "$(screen gold | awk '$2 == "cat" && $4 == "read"' | wc -l)" = 2 ] || fail "comm=cat sys=read: $(screen gold)"
keys gold F
wait_for gold "filters: comm=cat *$"
[ "$(screen gold | awk '$2 == "cat"' | wc -l)" = 7 ] || fail "comm=cat shows: $(screen gold)"
[ "$(screen gold | awk '$2 ~ /^(sh|mv|rm)$/' | wc -l)" = 0 ] || fail "comm=cat lets others through"
keys gold e
wait_for gold "wrote 7 rows to riot-top-events-"
ev=$(tail -n +2 "$IT_TMP"/gold/riot-top-events-*.csv | cut -d, -f2,5 | sort | uniq -c | awk '{print $1 $2}' | tr '\n' ' ')
# the log's calls of the threads while their comm was cat
exp=$("$RIOT" dump --format jsonl "$GOLD" | python3 -c '
import collections, json, sys
c, comm = collections.Counter(), {}
for l in sys.stdin:
    e = json.loads(l)
    if e["type"] in ("snap_proc", "proc") and "comm" in e:
        comm[e.get("tid", e["pid"])] = e["comm"]
    if e["type"] == "proc" and e["kind"] == "fork":
        comm[e["child_tid"]] = comm.get(e["tid"])
    if e["type"] == "syscall" and comm.get(e["tid"]) == "cat":
        c[e["op"]] += 1
print(" ".join("%d\"cat\",%s" % (n, s) for s, n in sorted(c.items())) + " ")')
[ "$ev" = "$exp" ] || fail "events CSV under comm=cat: '$ev', the log has '$exp'"
# a bad filter is refused, in one message, and adds nothing
keys gold f 'lat>fast' Enter
wait_for gold "filter 'lat>fast'"
wait_for gold "filters: comm=cat *$"
[ "$(quit gold)" = 0 ] || fail "riot top on the golden log exited $(cat "$IT_TMP/gold.rc")"

# --- live: a command of known counts, with the log written beside it ---
W=$IT_TMP/w
mkdir -p "$W" && echo hello >"$W/f"
start live -- -o "$IT_TMP/live.riot" --path "$W" -- "$BIN/sysloop" openclose 500 "$W/f"
wait_for live "exited 0; q quits"
keys live 2
wait_for live "^SYSCALL +COUNT"
expect_count live openat 501
expect_count live close 500
keys live 3
wait_for live "^FILE +COUNT"
expect_count live "$W/f" 1001
keys live 6
wait_for live "^stacks process;syscall;path, weighted by time"
wait_for live "^ +sysloop( |$)"
wait_for live "^ .*openat"
keys live 5
wait_for live "think time"
[ "$(quit live)" = 0 ] || fail "riot top -- sysloop exited $(cat "$IT_TMP/live.rc")"
"$RIOT" dump --format jsonl "$IT_TMP/live.riot" >"$IT_TMP/live.jsonl" || fail "the log riot top wrote does not read"
[ "$(grep -c '"op":"openat"' "$IT_TMP/live.jsonl")" = 501 ] || fail "the log's openat calls: $(grep -c '"op":"openat"' "$IT_TMP/live.jsonl")"

# --- live past TOP_DETAIL_RATE: 400,000 preads at full speed, sampled.
# Every call still counts in its syscall's row (the log's count); the
# status says the details are a sample; the file's count is the sample's,
# each call counted N times: within 2 % of the calls. ---
start fast -- -o "$IT_TMP/fast.riot" --path "$W" -- "$BIN/sysloop" pread 400000 "$W/f"
wait_for fast "exited 0; q quits" 120
wait_for fast "\| 1 in [0-9]+"
keys fast 2
wait_for fast "^SYSCALL +COUNT"
expect_count fast pread64 400000
keys fast 3
wait_for fast "^FILE +COUNT"
fc=$(row fast "$W/f" | awk '{print $1}')
case $fc in
*k) fc=$((${fc%k} * 1000)) ;;
esac
[ "$fc" -ge 392000 ] && [ "$fc" -le 408000 ] || fail "sampled: $W/f's count is $(row fast "$W/f"), not within 2 % of 400000"
[ "$(quit fast)" = 0 ] || fail "riot top -- a fast sysloop exited $(cat "$IT_TMP/fast.rc")"
[ "$("$RIOT" dump --format jsonl "$IT_TMP/fast.riot" | grep -c '"op":"pread64"')" = 400000 ] ||
	fail "the log riot top wrote while sampling misses calls"

# --- riot replay --top: the replay's own operations, then its summary ---
"$RIOT" replay "$IT_TMP/live.riot" --root "$IT_TMP/rr0" --top </dev/null >"$IT_TMP/rt.out" 2>"$IT_TMP/rt.err"
rc=$?
[ "$rc" = 1 ] && [ "$(wc -l <"$IT_TMP/rt.err")" = 1 ] && grep -q "not a terminal" "$IT_TMP/rt.err" ||
	fail "replay --top without a terminal: exit $rc, $(cat "$IT_TMP/rt.err")"
"$RIOT" replay "$IT_TMP/live.riot" --root "$IT_TMP/rr0" --top --json >/dev/null 2>&1
[ $? = 2 ] || fail "replay --top --json is not a usage error"
mkdir -p "$IT_TMP/rtop"
tm new-session -d -s rtop -x 120 -y 40 "cd '$IT_TMP/rtop' && '$RIOT' replay '$IT_TMP/live.riot' --root '$IT_TMP/rr1' --timing captured --top; echo \$? >'$IT_TMP/rtop.rc'; sleep 600"
wait_for rtop "replayed in [0-9.]+ s; q quits"
screen rtop | grep -Eq "^issue delay: p50 [0-9.]+.?s, p99 [0-9.]+.?s, max [0-9.]+.?s \(1001 operations\)" ||
	fail "replay --top: no issue delay over 1001 paced operations: $(screen rtop)"
keys rtop 2
wait_for rtop "^SYSCALL +COUNT"
expect_count rtop openat 501
expect_count rtop close 500
keys rtop 3
wait_for rtop "^FILE +COUNT"
expect_count rtop "$W/f" 1001
keys rtop 4
wait_for rtop "^PID COMM"
[ "$(screen rtop | awk '$2 == "sysloop" {print $3}')" = 1001 ] || fail "replay --top: processes: $(screen rtop)"
keys rtop q
n=300; while [ ! -s "$IT_TMP/rtop.rc" ] && [ "$n" -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
[ "$(cat "$IT_TMP/rtop.rc" 2>/dev/null)" = 0 ] || fail "replay --top exited $(cat "$IT_TMP/rtop.rc" 2>/dev/null)"
# the summary, after the view (with the window's history: it can be longer)
tm capture-pane -p -S -500 -t rtop | grep -Eq "^openat +501 +501 +0 " ||
	fail "replay --top: no summary after the view: $(tm capture-pane -p -S -500 -t rtop)"

# --- live without a log, for longer than a second: the counts still exact ---
start nolog -- --path "$W" -- "$BIN/sysloop" pread 3000 "$W/f" 1500
wait_for nolog "exited 0; q quits"
keys nolog 2
wait_for nolog "^SYSCALL +COUNT"
expect_count nolog pread64 3000
[ "$(quit nolog)" = 0 ] || fail "riot top without -o exited $(cat "$IT_TMP/nolog.rc")"

# --- the picker: a pacing pread loop, found by its pid ---
"$BIN/sysloop" pread 100000000 "$W/f" 2000 >/dev/null &
lp=$!
IT_PIDS+=("$lp")
start pick -- -o "$IT_TMP/pick.riot" -d 3
wait_for pick "sysloop"
keys pick "$lp"
wait_for pick "^ *$lp +sysloop"
[ "$(screen pick | grep -Ec '^ *[0-9]+ +[a-z]')" = 1 ] || fail "typing $lp leaves: $(screen pick)"
keys pick Enter
wait_for pick "pid $lp.*ended after.*stopped; q quits"
keys pick 2
wait_for pick "^SYSCALL +COUNT"
n=$(row pick pread64 | awk '{print $1}')
[ "${n:-0}" -gt 1000 ] || fail "3 s of a 2000/s pread loop shows $n preads"
[ "$(quit pick)" = 0 ] || fail "riot top with the picker exited $(cat "$IT_TMP/pick.rc")"
kill "$lp" 2>/dev/null
logn=$("$RIOT" dump --format jsonl "$IT_TMP/pick.riot" | grep -c '"op":"pread64"')
[ "$logn" = "$n" ] || fail "the view counted $n preads, the log has $logn"

# --- q while the command runs: the log is whole, the command stopped ---
start stop -- -o "$IT_TMP/stop.riot" -- "$BIN/sysloop" pread 100000000 "$W/f" 5000
wait_for stop "running [1-9]"
[ "$(quit stop)" = 0 ] || fail "q during a capture: exit $(cat "$IT_TMP/stop.rc")"
"$RIOT" info "$IT_TMP/stop.riot" >"$IT_TMP/stop.info" 2>&1 || fail "riot info on the log after q: $(cat "$IT_TMP/stop.info")"
grep -q "^complete: *yes$" "$IT_TMP/stop.info" || fail "the log after q: $(cat "$IT_TMP/stop.info")"
"$RIOT" dump --format jsonl "$IT_TMP/stop.riot" | grep -q '"op":"pread64"' || fail "the log after q has no pread64"
pgrep -f "sysloop pread 100000000 $W/f 5000" >/dev/null && fail "the command outlived riot top's q"

# --- q while a replay runs: it stops there, with one line and exit 1 ---
mkdir -p "$IT_TMP/rq"
tm new-session -d -s rq -x 120 -y 40 "cd '$IT_TMP/rq' && '$RIOT' replay '$IT_TMP/stop.riot' --root '$IT_TMP/rr2' --speed 0.05 --top 2>'$IT_TMP/rq.err'; echo \$? >'$IT_TMP/rq.rc'; sleep 600"
wait_for rq "running 0\.[1-9] s"
keys rq q
n=100; while [ ! -s "$IT_TMP/rq.rc" ] && [ "$n" -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
[ "$(cat "$IT_TMP/rq.rc" 2>/dev/null)" = 1 ] || fail "q during replay --top: exit $(cat "$IT_TMP/rq.rc" 2>/dev/null)"
[ "$(cat "$IT_TMP/rq.err")" = "riot: replay: stopped before the end (q): no summary, the root is as the replay left it" ] ||
	fail "q during replay --top said: $(cat "$IT_TMP/rq.err")"

# --- NO_COLOR: the same view with no colour; with colour, some ---
start col TERM=xterm-256color -- "$GOLD"
wait_for col "23 calls"
start mono TERM=xterm-256color NO_COLOR=1 -- "$GOLD"
wait_for mono "23 calls"
colours() { tm capture-pane -e -p -t "$1" | grep -Eo $'\e\\[[0-9;]*(3[0-7]|38;5;[0-9]+|4[0-7]|48;5;[0-9]+)m' | wc -l; }
[ "$(colours col)" -gt 0 ] || fail "no colour drawn with TERM=xterm-256color"
[ "$(colours mono)" = 0 ] || fail "NO_COLOR: $(colours mono) colour sequences drawn"
[ "$(screen col | sed -n 3,12p)" = "$(screen mono | sed -n 3,12p)" ] || fail "NO_COLOR changes the text"
[ "$(quit col)" = 0 ] && [ "$(quit mono)" = 0 ] || fail "NO_COLOR: riot top exited non-zero"

# --- resized to 80x24 while it runs, then back: the figures stay whole ---
start rs TERM=xterm-256color -- "$GOLD"
wait_for rs "23 calls \| drops 0"
keys rs 2
wait_for rs "^SYSCALL +COUNT"
tm resize-window -t rs -x 80 -y 24
wait_for rs "^SYSCALL +COUNT +ERRORS +BYTES +\*TIME +P50 +P99 +MAX$"
[ "$(screen rs | wc -l)" = 24 ] || fail "resized to 80x24, the screen has $(screen rs | wc -l) lines"
expect_count rs vfork 3
[ "$(screen rs | python3 -c 'import sys; print(sum(len(l.rstrip("\n")) > 80 for l in sys.stdin))')" = 0 ] ||
	fail "lines wider than 80 after a resize"
tm resize-window -t rs -x 120 -y 40
wait_for rs "23 calls \| drops 0"
expect_count rs newfstatat 4
[ "$(quit rs)" = 0 ] || fail "riot top after a resize exited $(cat "$IT_TMP/rs.rc")"

# --- a locale without UTF-8: ASCII only ---
start ascii TERM=xterm-256color LANG=C LC_ALL=C -- "$GOLD"
wait_for ascii "23 calls \| drops 0"
keys ascii 2
wait_for ascii "^SYSCALL +COUNT"
expect_count ascii execve 4
[ "$(screen ascii | LC_ALL=C grep -c $'[\x80-\xff]')" = 0 ] || fail "LC_ALL=C: bytes beyond ASCII drawn: $(screen ascii | LC_ALL=C grep $'[\x80-\xff]' | head -n 3)"
[ "$(row ascii write | awk '{print $5}')" = 7.44us ] || fail "LC_ALL=C: write's p50 is $(row ascii write | awk '{print $5}'), not 7.44us"
[ "$(quit ascii)" = 0 ] || fail "riot top in the C locale exited $(cat "$IT_TMP/ascii.rc")"

# --- a terminal this host's terminfo does not know ---
start unk TERM=riot-no-such-terminal -- "$GOLD"
wait_for unk "23 calls \| drops 0"
keys unk 2
wait_for unk "^SYSCALL +COUNT"
expect_count unk execve 4
[ "$(quit unk)" = 0 ] || fail "riot top on an unknown terminal exited $(cat "$IT_TMP/unk.rc")"
echo "PASS: riot top: golden counts and CSV, filters, live counts = log, picker, q, NO_COLOR, unknown terminal"
