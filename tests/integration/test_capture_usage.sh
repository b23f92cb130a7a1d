#!/usr/bin/env bash
# riot capture refuses, before it loads anything, options that would
# capture nothing or fail later with a raw error: an --ops list that names
# nothing, a relative --path (the traced programs' paths are compared
# absolute), a --ring-size the kernel cannot make, a --nice outside -20..19.
# Exit 2, the reason on the
# first line, no log written.
. "$(dirname "$0")/lib.sh"
usage() { # WANT ARGS...
	local want=$1 rc
	shift
	rm -f "$IT_TMP/x.riot"
	"$RIOT" capture -o "$IT_TMP/x.riot" "$@" -- true >"$IT_TMP/out" 2>"$IT_TMP/err"
	rc=$?
	[ $rc -eq 2 ] || fail "capture $*: exit $rc, want 2 ($(cat "$IT_TMP/err"))"
	[ "$(head -n 1 "$IT_TMP/err")" = "riot: capture: $want" ] ||
		fail "capture $*: '$(head -n 1 "$IT_TMP/err")', want 'riot: capture: $want'"
	[ ! -e "$IT_TMP/x.riot" ] || fail "capture $*: wrote a log"
	echo "capture $*: $want"
}
usage "--ops: ',' names no syscall or class" --ops ,
usage "--ops: '' names no syscall or class" --ops ''
usage "--path: 'data/x' is not an absolute path" --path data/x
usage "--ring-size: '4096' is not a power of 2 from 1 to 2048 MiB" --ring-size 4096
usage "--ring-size: '3' is not a power of 2 from 1 to 2048 MiB" --ring-size 3
usage "--nice: '-21' is not a nice value from -20 to 19" --nice -21
usage "--nice: '1x' is not a nice value from -20 to 19" --nice 1x
# riot drains at its --nice; the command it starts keeps its own (0)
"$RIOT" capture -q -o "$IT_TMP/n.riot" -- sh -c 'cut -d" " -f19 /proc/self/stat' >"$IT_TMP/nice" ||
	fail "capture of the nice value failed"
[ "$(cat "$IT_TMP/nice")" = 0 ] || fail "the command ran at nice $(cat "$IT_TMP/nice"), want 0"
echo ok
