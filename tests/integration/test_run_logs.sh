#!/usr/bin/env bash
# test_run_logs: tests/run.sh keeps the log of a failed test and prints its
# path, and removes the logs of the tests that passed. Two stand-in unit
# tests, one failing with a known line, one passing; TEST_ONLY runs only
# them.
# test-unit: needs neither root nor BPF
. "$(dirname "$0")/lib.sh"
mkdir -p "$IT_TMP/t" "$IT_TMP/tmp"
export TMPDIR=$IT_TMP/tmp
printf '#!/bin/sh\necho "riot-run-logs: the failing line"\nexit 1\n' >"$IT_TMP/t/test_riotfake_fail"
printf '#!/bin/sh\necho "riot-run-logs: passing"\n' >"$IT_TMP/t/test_riotfake_pass"
chmod +x "$IT_TMP/t"/test_*
out=$(TESTS=$IT_TMP/t TEST_ONLY=unit/test_riotfake UNIT_ONLY=1 CI='' bash "$IT_DIR/../run.sh" 2>&1) &&
	fail "run.sh passed with a failing test: $out"
[ "$(tail -n 1 <<<"$out")" = "1 passed, 1 failed" ] || fail "run.sh said: $out"
log=$(sed -n 's/^        log: //p' <<<"$out")
[ -n "$log" ] || fail "no log path printed: $out"
[ "$(grep -c . <<<"$log")" -eq 1 ] || fail "more than one log path: $log"
[ -f "$log" ] || fail "the failed test's log $log is gone"
[ "$(cat "$log")" = "riot-run-logs: the failing line" ] || fail "the log holds: $(cat "$log")"
grep -qxF "failed: unit/test_riotfake_fail (log: $log)" <<<"$out" || fail "summary: $out"
dir=$(dirname "$log")
[ "$dir" != "${dir#"$TMPDIR"/riot-tests.}" ] || fail "the log is not under TMPDIR: $log"
[ "$(ls "$dir")" = "$(basename "$log")" ] || fail "logs kept beside it: $(ls "$dir")"
rm -rf "$dir"
# all passing: no log directory is left
out=$(TESTS=$IT_TMP/t TEST_ONLY=unit/test_riotfake_pass UNIT_ONLY=1 bash "$IT_DIR/../run.sh" 2>&1) ||
	fail "run.sh failed with a passing test: $out"
[ "$(tail -n 1 <<<"$out")" = "1 passed, 0 failed" ] || fail "run.sh said: $out"
grep -q 'log:' <<<"$out" && fail "a log path printed for a passing run: $out"
[ -z "$(ls "$TMPDIR")" ] || fail "a passing run left $(ls "$TMPDIR")"
echo PASS
