#!/usr/bin/env bash
# test_init_refuse: init never writes where it could damage data: not /
# (however it is spelled), not a non-empty directory without riot's marker,
# not one whose marker riot did not write. One line on stderr, exit 1;
# usage errors exit 2. A missing root is created. Needs no privilege.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/test_init_lib.bash"

LOG=$IT_TMP/r.riot
"$BIN/mklog" -o "$LOG" <<'EOF' || fail "mklog"
stat path=/riot-refuse-test/file ret=0 size=10 ftype=reg
EOF

refused() { # WHY EXPECTED-MESSAGE-START ARGS...
	local why=$1 msg=$2 rc
	shift 2
	"$RIOT" init "$LOG" "$@" >"$IT_TMP/out" 2>"$IT_TMP/err"
	rc=$?
	[ $rc -eq 1 ] || fail "$why: exit $rc, want 1"
	[ "$(wc -l <"$IT_TMP/err")" -eq 1 ] || fail "$why: stderr is not one line: $(cat "$IT_TMP/err")"
	grep -q "^riot: init: $msg" "$IT_TMP/err" || fail "$why: $(cat "$IT_TMP/err")"
}

refused "/" "/ is /" --root /
refused "/ spelled otherwise" "$IT_TMP/../../.. is /" --root "$IT_TMP/../../.."
ln -s / "$IT_TMP/slash"
refused "a symlink to /" "$IT_TMP/slash is /" --root "$IT_TMP/slash"
[ ! -e /riot-refuse-test ] || fail "something was written to /"

N=$IT_TMP/notempty
mkdir -p "$N/sub" && echo keep >"$N/file"
snapshot "$N" >/dev/null
before=$(snapshot "$N")
refused "non-empty without marker" "$N is not empty and has no .riot-root marker" --root "$N"
[ "$(snapshot "$N")" = "$before" ] || fail "$N was changed"

F=$IT_TMP/foreign
mkdir -p "$F" && echo "not riot" >"$F/.riot-root"
refused "a foreign marker" "$F/.riot-root was not written by riot" --root "$F"
[ "$(ls -A "$F")" = .riot-root ] || fail "$F was changed"

echo x >"$IT_TMP/plainfile"
refused "a file as root" "$IT_TMP/plainfile: Not a directory" --root "$IT_TMP/plainfile"

# a fresh file system's mount point holds lost+found: that is empty enough
L=$IT_TMP/fresh
mkdir -p "$L/lost+found"
"$RIOT" init "$LOG" --root "$L" >"$IT_TMP/out" 2>"$IT_TMP/err" || fail "lost+found only: $(cat "$IT_TMP/err")"
[ -s "$L/riot-refuse-test/file" ] || fail "lost+found only: tree not made"

# a missing root (and its parents) is made, marked, filled
M=$IT_TMP/new/deeper/root
"$RIOT" init "$LOG" --root "$M" >"$IT_TMP/out" 2>"$IT_TMP/err" || fail "missing root: $(cat "$IT_TMP/err")"
[ "$(stat -c %s "$M/riot-refuse-test/file")" = 10 ] || fail "missing root: tree not made"
[ -f "$M/.riot-root" ] || fail "missing root: no marker"

usage() { # WHY ARGS...
	local why=$1 rc
	shift
	"$RIOT" init "$@" >/dev/null 2>"$IT_TMP/err"
	rc=$?
	[ $rc -eq 2 ] || fail "$why: exit $rc, want 2 ($(cat "$IT_TMP/err"))"
}
usage "no --root" "$LOG"
usage "no LOG" --root "$IT_TMP/u"
# several LOGs are the segments of one rotated capture: two whole logs
# are refused in one line, before the root is made
"$RIOT" init "$LOG" "$LOG" --root "$IT_TMP/u" >/dev/null 2>"$IT_TMP/err"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$IT_TMP/err")" -eq 1 ] &&
	grep -q "not a segment of a rotated capture" "$IT_TMP/err" ||
	fail "two LOGs: exit $rc, want 1 and one line ($(cat "$IT_TMP/err"))"
[ -e "$IT_TMP/u" ] && fail "two LOGs: the root was made"
usage "bad --fill" "$LOG" --root "$IT_TMP/u" --fill ones
usage "relative --map prefix" "$LOG" --root "$IT_TMP/u" --map data="$IT_TMP/d"
usage "--map without =" "$LOG" --root "$IT_TMP/u" --map /data
[ ! -e "$IT_TMP/u" ] || fail "a usage error created the root"

"$RIOT" init "$IT_TMP/missing.riot" --root "$IT_TMP/u2" >/dev/null 2>"$IT_TMP/err" &&
	fail "a missing log succeeded"
[ "$(wc -l <"$IT_TMP/err")" -eq 1 ] && grep -q '^riot: init: ' "$IT_TMP/err" ||
	fail "missing log: $(cat "$IT_TMP/err")"
# the temporary marker a killed init left (the writer's pid after its
# name, so the replays of a fleet can mark one root at once) does not make
# a root non-empty; eight inits marking one fresh root at once all succeed
mkdir "$IT_TMP/left"
echo partial >"$IT_TMP/left/.riot-root.tmp.12345"
"$RIOT" init "$LOG" --root "$IT_TMP/left" >/dev/null 2>"$IT_TMP/err" ||
	fail "a leftover temporary marker refused the root: $(cat "$IT_TMP/err")"
grep -q '^riot replay root$' "$IT_TMP/left/.riot-root" || fail "no marker after a leftover one"
pids=()
for i in 1 2 3 4 5 6 7 8; do
	"$RIOT" init "$LOG" --root "$IT_TMP/together" >/dev/null 2>"$IT_TMP/err.$i" &
	pids+=($!)
done
for i in 1 2 3 4 5 6 7 8; do
	wait "${pids[$((i - 1))]}" || fail "init $i of 8 at once: $(cat "$IT_TMP/err.$i")"
done
left=$(find "$IT_TMP/together" -mindepth 1 -maxdepth 1 ! -name .riot-root ! -name riot-refuse-test)
[ -z "$left" ] ||
	fail "inits at once left: $(ls -A "$IT_TMP/together")"
echo PASS
