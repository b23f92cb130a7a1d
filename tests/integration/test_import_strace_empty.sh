#!/usr/bin/env bash
# test_import_strace_empty: input that gives no record (a file that is no
# strace output, an empty one, strace output without -ttt timestamps)
# is refused with one line saying what riot expected, exit 1, and no log
# is written. Needs no privilege.
# test-unit: needs neither root nor BPF
. "$(dirname "$0")/lib.sh"

WANT="expected the output of strace -f -ttt -T -yy -o LOG CMD"
refused() { # WHY INPUT MESSAGE
	local rc
	rm -f "$IT_TMP/out.riot"
	"$RIOT" import strace "$2" -o "$IT_TMP/out.riot" >"$IT_TMP/out" 2>"$IT_TMP/err" <"${STDIN:-/dev/null}"
	rc=$?
	[ $rc = 1 ] || fail "$1: exit $rc, want 1"
	[ "$(cat "$IT_TMP/err")" = "riot: import: $3" ] ||
		fail "$1: stderr '$(cat "$IT_TMP/err")', want 'riot: import: $3'"
	[ ! -s "$IT_TMP/out" ] || fail "$1: printed $(cat "$IT_TMP/out")"
	[ ! -e "$IT_TMP/out.riot" ] || fail "$1: wrote a log"
	echo "refused: $1"
}

printf 'root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\nbin:x:2:2:bin:/bin:/usr/sbin/nologin\n' \
	>"$IT_TMP/passwd"
refused "a passwd file" "$IT_TMP/passwd" \
	"$IT_TMP/passwd: none of its 3 lines is an strace line: $WANT"
: >"$IT_TMP/empty"
refused "an empty file" "$IT_TMP/empty" "$IT_TMP/empty: empty: $WANT"
cat >"$IT_TMP/nottt" <<'EOF2'
4242 openat(AT_FDCWD, "/etc/hostname", O_RDONLY|O_CLOEXEC) = 3 <0.000020>
4242 read(3, "vm\n", 4096) = 3 <0.000008>
4242 close(3) = 0 <0.000004>
EOF2
refused "strace -f -T without -ttt" "$IT_TMP/nottt" \
	"$IT_TMP/nottt: 3 of 3 lines are strace's but without -ttt timestamps: $WANT"
STDIN=$IT_TMP/passwd refused "a passwd file on stdin" - \
	"-: none of its 3 lines is an strace line: $WANT"

# the same lines with timestamps make a log
sed 's/^4242 /4242 1700000000.000001 /' "$IT_TMP/nottt" >"$IT_TMP/ttt"
"$RIOT" import strace "$IT_TMP/ttt" -o "$IT_TMP/ok.riot" >"$IT_TMP/out" 2>"$IT_TMP/err" ||
	fail "with -ttt: $(cat "$IT_TMP/err")"
grep -qx '  syscalls         3 imported' "$IT_TMP/out" || fail "with -ttt: $(cat "$IT_TMP/out")"
echo PASS
