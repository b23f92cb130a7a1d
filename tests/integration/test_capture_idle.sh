#!/usr/bin/env bash
# test_capture_idle: what a capture costs the host while the traced
# program is idle, and that an idle program's calls still reach the log.
#
# 1. While the command sleeps, riot wakes at most ten times a second and
#    visits no CPU (a kick: sched_setaffinity to each CPU) when nothing
#    waits in a batch or to be ordered: strace counts riot's poll and
#    sched_setaffinity calls over a 2 s sleep (a drain waking every 10 ms
#    and kicking every 100 ms made about 200 and 60).
# 2. The command's exit ends the capture's wait: poll returns with the
#    pidfd readable, not at its timeout.
# 3. Calls a program makes before it goes idle sit in its CPU's batch;
#    they are in the log on disk within the capture's flush interval
#    (1 s) and a kick's (100 ms), while the program still sleeps.
# 4. The summary states riot's own CPU: recording (ns per event) apart
#    from starting and stopping.
. "$(dirname "$0")/lib.sh"
require_capture
command -v strace >/dev/null || fail "strace is missing (make deps-test)"

# 1 and 2 (an ASan build's leak check cannot run under ptrace)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -o "$IT_TMP/st" -e trace=poll,sched_setaffinity,pidfd_open -T \
	"$RIOT" capture -o "$IT_TMP/s.riot" -- sleep 2 >/dev/null 2>"$IT_TMP/s.err" ||
	fail "capture of sleep 2: $(cat "$IT_TMP/s.err")"
polls=$(grep -c '^poll(' "$IT_TMP/st")
kicks=$(grep -c '^sched_setaffinity(' "$IT_TMP/st")
[ "$polls" -ge 10 ] && [ "$polls" -le 40 ] ||
	fail "riot polled $polls times over an idle 2 s (10 to 40 expected)"
# the start (calibration pins no CPU) and the first tick's kick of the
# command's start-up calls: one kick is a visit to each CPU and back
per_kick=$(($(nproc) + 1))
[ "$kicks" -le $((3 * per_kick)) ] ||
	fail "riot kicked $((kicks / per_kick)) times over an idle 2 s (at most 3 expected): $(grep -c . "$IT_TMP/st") calls"
grep -q '^pidfd_open(' "$IT_TMP/st" || fail "capture did not open a pidfd for the command"
# the last wait ends on the pidfd: its revents name both fds' slots
last=$(grep '^poll(' "$IT_TMP/st" | tail -n 1)
case $last in
*"= 1 (["*"revents=POLLIN"*) ;;
*) fail "the last wait did not end on the command's exit: $last" ;;
esac

# 3: a file read, then 3 s of sleep; the log on disk at 2 s has the read
"$RIOT" capture -o "$IT_TMP/b.riot" -- sh -c 'cat /etc/hostname >/dev/null; exec sleep 3' \
	>/dev/null 2>"$IT_TMP/b.err" &
CPID=$!
IT_PIDS+=("$CPID")
sleep 2
"$RIOT" dump "$IT_TMP/b.riot" --type syscall >"$IT_TMP/b.dump" 2>"$IT_TMP/b.dumperr" ||
	grep -q . "$IT_TMP/b.dump" || fail "dump of the log being written: $(cat "$IT_TMP/b.dumperr")"
grep -q 'op=openat .*path=/etc/hostname ' "$IT_TMP/b.dump" ||
	fail "cat's openat of /etc/hostname is not in the log 2 s later: $(head -c 2000 "$IT_TMP/b.dump")"
wait "$CPID" || fail "capture of the sleeping shell: $(cat "$IT_TMP/b.err")"

# 4
line=$(grep 'riot CPU' "$IT_TMP/s.err") || fail "no riot CPU line: $(cat "$IT_TMP/s.err")"
[[ $line =~ ^\ \ riot\ CPU\ \ \ [0-9]+\.[0-9]{3}\ s\ recording\ \([0-9]+\ ns/event\),\ [0-9]+\.[0-9]{3}\ s\ to\ start\ and\ stop$ ]] ||
	fail "riot CPU line: '$line'"
echo "ok: $polls waits, $((kicks / per_kick)) kicks over an idle 2 s; $line"
