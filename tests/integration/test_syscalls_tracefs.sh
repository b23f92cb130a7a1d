#!/usr/bin/env bash
# Every row of bpf/syscalls.def against the running kernel: its name and
# number are those of <asm/unistd_64.h> (where the installed headers know
# the syscall), and its tracepoint (sys_enter_NAME, or the event
# RIOT_SYSCALL_EVENT names) exists in tracefs. Tests that count syscalls
# with perf take the same event names.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || unavailable "mounting tracefs needs root"
DEF=$IT_DIR/../../bpf/syscalls.def
TP=/sys/kernel/tracing/events/syscalls
[ -d "$TP" ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
[ -d "$TP" ] || TP=/sys/kernel/debug/tracing/events/syscalls
[ -d "$TP" ] || unavailable "no syscall tracepoints in tracefs"
HDR=/usr/include/x86_64-linux-gnu/asm/unistd_64.h
[ -r "$HDR" ] || HDR=/usr/include/asm/unistd_64.h
[ -r "$HDR" ] || fail "no <asm/unistd_64.h> (Debian package linux-libc-dev)"
python3 "$IT_DIR/syscalls_def.py" "$DEF" rows >"$IT_TMP/rows" || fail "cannot read $DEF"
n=0 bad=0
while read -r name nr event; do
	n=$((n + 1))
	if [ ! -d "$TP/sys_enter_$event" ]; then
		echo "FAIL: $name: no tracepoint sys_enter_$event in $TP"
		bad=$((bad + 1))
	fi
	hnr=$(sed -n "s/^#define __NR_$name \([0-9]*\)$/\1/p" "$HDR")
	if [ -n "$hnr" ] && [ "$hnr" != "$nr" ]; then
		echo "FAIL: $name: number $nr, <asm/unistd_64.h> says $hnr"
		bad=$((bad + 1))
	fi
	if [ "$event" != "$name" ] && [ -d "$TP/sys_enter_$name" ]; then
		echo "FAIL: $name: RIOT_SYSCALL_EVENT says $event, but sys_enter_$name exists"
		bad=$((bad + 1))
	fi
done <"$IT_TMP/rows"
[ "$n" -gt 80 ] || fail "only $n rows read from $DEF"
[ "$bad" -eq 0 ] || fail "$bad of $n rows of syscalls.def disagree with the running kernel"
echo "ok: $n syscalls of the table have their tracepoint and number"
