#!/usr/bin/env bash
# How capture fails: without privileges one line and exit 1, and no log
# left; a usage error exit 2 and no log; a missing process exit 1.
. "$(dirname "$0")/lib.sh"
require_capture
command -v setpriv >/dev/null 2>&1 || fail "setpriv (util-linux) is missing"

# Unprivileged: nobody, no capabilities, in a directory it may write to.
U=$IT_TMP/u
mkdir -p "$U"
chmod 0755 "$IT_TMP"
chmod 1777 "$U"
setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	"$RIOT" capture -o "$U/x.riot" -- /bin/true >"$IT_TMP/u.out" 2>"$IT_TMP/u.err" </dev/null
rc=$?
[ "$rc" -eq 1 ] || fail "unprivileged capture exited $rc, expected 1 ($(cat "$IT_TMP/u.err"))"
lines=$(wc -l <"$IT_TMP/u.err")
[ "$lines" -eq 1 ] || fail "unprivileged capture printed $lines lines on stderr, expected 1: $(cat "$IT_TMP/u.err")"
grep -q '^riot: capture: ' "$IT_TMP/u.err" || fail "error line is not 'riot: capture: ...': $(cat "$IT_TMP/u.err")"
[ ! -e "$U/x.riot" ] || fail "unprivileged capture left a log file"
[ ! -s "$IT_TMP/u.out" ] || fail "unprivileged capture wrote to stdout: $(cat "$IT_TMP/u.out")"

# Usage errors: exit 2, nothing created.
usage() { # description, args...
	local what=$1 rc
	shift
	"$RIOT" capture "$@" >"$IT_TMP/use.out" 2>"$IT_TMP/use.err" </dev/null
	rc=$?
	[ "$rc" -eq 2 ] || fail "$what: exit $rc, expected 2 ($(cat "$IT_TMP/use.err"))"
	[ -s "$IT_TMP/use.err" ] || fail "$what: no message on stderr"
	[ ! -e "$IT_TMP/use.riot" ] || fail "$what: left $IT_TMP/use.riot"
}
usage "no -o" -- /bin/true
usage "unknown option" -o "$IT_TMP/use.riot" --no-such-option -- /bin/true
usage "non-numeric pid" -o "$IT_TMP/use.riot" -p abc
usage "non-numeric duration" -o "$IT_TMP/use.riot" -d soon -- /bin/true
usage "two targets" -o "$IT_TMP/use.riot" -p 1 -- /bin/true

"$RIOT" capture --help >"$IT_TMP/help.out" 2>&1 || fail "capture --help exited $?"
grep -q -- '-o' "$IT_TMP/help.out" || fail "capture --help does not describe -o"

# A process that does not exist: a runtime error, one line, no log.
"$RIOT" capture -o "$IT_TMP/none.riot" -p 2147483646 >/dev/null 2>"$IT_TMP/none.err" </dev/null
rc=$?
[ "$rc" -eq 1 ] || fail "capture -p <no such pid> exited $rc, expected 1"
[ "$(wc -l <"$IT_TMP/none.err")" -eq 1 ] || fail "capture -p <no such pid>: expected one line: $(cat "$IT_TMP/none.err")"
[ ! -e "$IT_TMP/none.riot" ] || fail "capture -p <no such pid> left a log"
echo ok
