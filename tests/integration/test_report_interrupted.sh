#!/usr/bin/env bash
# test_report_interrupted: a `riot report` killed (SIGKILL) while it stores
# a run leaves the database as it was, and the next `riot report` says so
# in one line; the one after says nothing. Two kills: as soon as the run's
# rollback journal exists (the database not written yet), and once the
# journal holds its header (pages of the database already overwritten:
# SQLite rolls them back). The runs stored are exactly the finished ones.
# Needs no root.
# test-unit: needs neither root nor BPF
set -u
: "${RIOT:?RIOT must name the riot binary}" "${BIN:?BIN must name the test tools directory}"
T=$(mktemp -d /tmp/riot-report-killed.XXXXXX) || exit 1
pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$T"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

DB=$T/r.db
NOTE="riot: report: $DB: an earlier riot report (or replay) was stopped while storing a run; that run was not stored and is rolled back"
"$BIN/genlog" -o "$T/big.riot" -n 1000000 --shape mixed || fail "genlog"
"$RIOT" report "$T/big.riot" -o "$DB" --label first >/dev/null 2>"$T/err" || fail "report first: $(cat "$T/err")"
[ ! -s "$T/err" ] || fail "report first: stderr: $(cat "$T/err")"

# kill_when TEST LABEL: starts a report with --events (one transaction
# over the whole log) and kills it once TEST (a shell condition) holds
kill_when() {
	"$RIOT" report "$T/big.riot" -o "$DB" --events --label "$2" >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 20000); do
		eval "$1" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.001
	done
	kill -9 "$pid" 2>/dev/null || fail "$2: the report ended before it could be killed"
	wait "$pid" 2>/dev/null
	pid=
	[ -e "$DB-journal" ] || fail "$2: no journal left by the killed report"
}

n=1
for when in '[ -e "$DB-journal" ]' \
	'[ "$(head -c 8 "$DB-journal" 2>/dev/null | od -An -tx1 | tr -d " \n")" = d9d505f920a163d7 ]'; do
	kill_when "$when" "killed$n"
	"$RIOT" report "$T/big.riot" -o "$DB" --label "after$n" >/dev/null 2>"$T/err" ||
		fail "report after$n: $(cat "$T/err")"
	[ "$(cat "$T/err")" = "$NOTE" ] || fail "after kill $n: stderr is '$(cat "$T/err")', expected the note"
	"$RIOT" report "$T/big.riot" -o "$DB" --label "again$n" >/dev/null 2>"$T/err" ||
		fail "report again$n: $(cat "$T/err")"
	[ ! -s "$T/err" ] || fail "the report after the noted one says: $(cat "$T/err")"
	n=$((n + 1))
done
labels=$(python3 -c 'import sqlite3, sys
print(" ".join(r[0] for r in sqlite3.connect(sys.argv[1]).execute("SELECT label FROM runs ORDER BY id")))' "$DB")
[ "$labels" = "first after1 again1 after2 again2" ] || fail "runs stored: $labels"
echo "2 killed reports: each noted once by the next report, not after; runs: $labels"
