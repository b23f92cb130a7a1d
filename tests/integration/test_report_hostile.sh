#!/usr/bin/env bash
# test_report_hostile: `riot report` on logs made to hurt it. A time span of
# months costs what its records cost (tests/hostile/span.mklog); a database
# another process holds locked gives one clear line, not a wait and a
# wrong reason. Needs no root.
set -u
: "${RIOT:?RIOT must name the riot binary}" "${BIN:?BIN must name the test tools directory}"
here=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d /tmp/riot-report-hostile.XXXXXX) || exit 1
lockpid=
trap '[ -n "$lockpid" ] && kill "$lockpid" 2>/dev/null; rm -rf "$T"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# expect_error PATTERN CMD...: exit 1, one line on stderr matching PATTERN.
expect_error() {
	local pat=$1; shift
	"$@" >"$T/err.out" 2>"$T/err.txt"
	local rc=$?
	[ $rc -eq 1 ] || fail "$* exited $rc, expected 1: $(cat "$T/err.txt")"
	[ "$(wc -l <"$T/err.txt")" -eq 1 ] || fail "$* printed more than one line: $(cat "$T/err.txt")"
	grep -qE "$pat" "$T/err.txt" || fail "$*: '$(cat "$T/err.txt")' does not match '$pat'"
}

# -- a span of 1e16 ns: three timeline rows, a page of bounded size
"$BIN/mklog" -o "$T/span.riot" "$here/hostile/span.mklog" || fail "mklog span"
"$RIOT" report "$T/span.riot" -o "$T/span.db" --label span >"$T/out" 2>&1 ||
	fail "report span: $(cat "$T/out")"
rows=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(
    "SELECT count(*) FROM timeline").fetchone()[0])' "$T/span.db")
[ "$rows" = 3 ] || fail "span: $rows timeline rows, expected 3 (seconds 0 and 10000000)"
"$RIOT" report show "$T/span.db" --html "$T/span.html" >"$T/out" 2>&1 ||
	fail "report show --html span: $(cat "$T/out")"
size=$(stat -c %s "$T/span.html")
[ "$size" -lt 1000000 ] || fail "span: the html page is $size bytes"
grep -q 'ops/s' "$T/span.html" || fail "span: no throughput chart in the page"

# -- a database locked by another process
python3 - "$T/span.db" "$T/locked" <<'PY' &
import os, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
open(sys.argv[2], "w").close()
time.sleep(120)
PY
lockpid=$!
for _ in $(seq 100); do [ -e "$T/locked" ] && break; sleep 0.1; done
[ -e "$T/locked" ] || fail "the locking helper did not start"
lockmsg='span\.db: database is locked by another process'
expect_error "$lockmsg" "$RIOT" report show "$T/span.db"
expect_error "$lockmsg" "$RIOT" report "$T/span.riot" -o "$T/span.db" --label again
expect_error "$lockmsg" "$RIOT" compare "$T/span.db" span span
kill "$lockpid"
wait "$lockpid" 2>/dev/null
lockpid=
"$RIOT" report show "$T/span.db" >/dev/null || fail "report show after the lock went"
echo "ok"
