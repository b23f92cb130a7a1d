#!/usr/bin/env bash
# A log that cannot be kept is a failure, said in one line, and the command
# riot started does not outlive it: on a full disk riot stops `-- CMD`
# (TERM, then KILL) and says so; a log whose directory is removed during
# the capture is reported lost instead of a success.
. "$(dirname "$0")/lib.sh"
require_capture

# one_line NAME PATTERN: exit status in $rc is 1, cap.err is one line
# matching PATTERN.
one_line() {
	[ "$rc" -eq 1 ] || fail "$1: riot capture exited $rc, expected 1: $(cat "$IT_TMP/cap.err")"
	[ "$(wc -l <"$IT_TMP/cap.err")" -eq 1 ] || fail "$1: not one line: $(cat "$IT_TMP/cap.err")"
	grep -qE "$2" "$IT_TMP/cap.err" || fail "$1: '$(cat "$IT_TMP/cap.err")' does not match '$2'"
	echo "$1: $(cat "$IT_TMP/cap.err")"
}

# -- a full disk under the log of `-- CMD`: CMD is stopped
SMALL=$IT_TMP/small
mkdir -p "$SMALL"
mount -t tmpfs -o size=1m riot-test "$SMALL" || fail "cannot mount a 1 MiB tmpfs on $SMALL"
IT_MOUNTS+=("$SMALL")
timeout 120 "$RIOT" capture -o "$SMALL/full.riot" -- sh -c \
	"echo \$\$ >'$IT_TMP/cmd.pid'; exec dd if=/dev/zero of=/dev/null bs=1 count=100000000000 status=none" \
	>"$IT_TMP/cap.out" 2>"$IT_TMP/cap.err"
rc=$?
one_line "full disk" '^riot: capture: writing .*/full\.riot: No space left on device \(the log holds what was written before\); stopped sh \(pid [0-9]+\) that riot started$'
pid=$(cat "$IT_TMP/cmd.pid")
grep -q "(pid $pid)" "$IT_TMP/cap.err" || fail "full disk: the pid named is not the command's ($pid)"
if kill -0 "$pid" 2>/dev/null; then
	kill -9 "$pid"
	fail "full disk: the command (pid $pid) still runs after riot exited"
fi
"$RIOT" info "$SMALL/full.riot" >/dev/null || fail "full disk: the log is not readable"

# -- the log's directory removed while the capture runs
D=$IT_TMP/gone
mkdir -p "$D"
"$RIOT" capture -o "$D/x.riot" -- sh -c "sleep 0.5; rm -rf '$D'; cat /etc/hostname" \
	>"$IT_TMP/cap.out" 2>"$IT_TMP/cap.err"
rc=$?
one_line "directory removed" "^riot: capture: $D/x\\.riot was removed or replaced during the capture \\(its directory or the file is gone\\): the log is lost\$"
echo ok
