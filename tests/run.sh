#!/usr/bin/env bash
# tests/run.sh: runs every test with a timeout and prints "N passed, N failed".
# A test exits 0 (pass), 1 (fail) or 77 (skip). Under CI (CI=true) a skip
# counts as a failure: root and BPF are there, so nothing may be skipped.
# Environment (set by the Makefile): RIOT (the binary), BIN (test tools),
# TESTS (unit test binaries), FUZZ_SECONDS, MAKE_FUZZ, NO_FUZZ, MAKE_KERNELS
# (the kernel matrix, run last), UNIT_ONLY=1 (make test-unit: the unit
# tests and the integration tests that carry the line UNIT_TAG below).
# A failed test's log stays, and its path is printed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${RIOT:?}" "${BIN:?}" "${TESTS:?}"
export RIOT BIN TESTS
timeout_s=${TEST_TIMEOUT:-300}
only=${TEST_ONLY:-}
unit_only=${UNIT_ONLY:-}
UNIT_TAG='# test-unit: needs neither root nor BPF'
pass=0 fail=0 skip=0
failed=()
log_dir=$(mktemp -d "${TMPDIR:-/tmp}/riot-tests.XXXXXX")

run_one() { # name, command...
	local name=$1; shift
	if [ -n "$only" ] && [[ "$name" != *"$only"* ]]; then return; fi
	local out="$log_dir/${name//[^A-Za-z0-9._-]/_}.log" rc start end ok=1
	start=$(date +%s.%N)
	timeout -k 10 "$timeout_s" "$@" >"$out" 2>&1
	rc=$?
	end=$(date +%s.%N)
	local secs; secs=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.1f", b-a}')
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1)); printf '  PASS  %-44s %6ss\n' "$name" "$secs"
	elif [ $rc -eq 77 ] && [ "${CI:-}" != true ]; then
		skip=$((skip + 1)); printf '  SKIP  %-44s %s\n' "$name" "$(tail -n 1 "$out")"
	else
		ok=0; fail=$((fail + 1)); failed+=("$name (log: $out)")
		[ $rc -eq 124 ] && echo "  (timed out after ${timeout_s}s)" >>"$out"
		[ $rc -eq 77 ] && echo "  (skipped under CI: a skip is a failure here)" >>"$out"
		printf '  FAIL  %-44s rc=%d\n' "$name" "$rc"
		sed 's/^/        | /' "$out" | tail -n 40
		printf '        log: %s\n' "$out"
	fi
	# A test that made the kernel complain fails too.
	if [ -n "${dmesg_mark:-}" ] && dmesg 2>/dev/null | tail -n +"$dmesg_mark" | \
		grep -qE 'BUG:|WARNING:|Oops|general protection'; then
		{ echo "kernel log after $name:"; dmesg | tail -n +"$dmesg_mark" | tail -n 20; } >>"$out"
		echo "  kernel log after $name:"; dmesg | tail -n +"$dmesg_mark" | tail -n 20
		printf '        log: %s\n' "$out"
		ok=0; fail=$((fail + 1)); failed+=("$name (kernel log; log: $out)")
	fi
	dmesg_mark=$(( $(dmesg 2>/dev/null | wc -l) + 1 ))
	# Only the logs of failures stay.
	[ $ok -eq 0 ] || rm -f "$out"
}

dmesg_mark=$(( $(dmesg 2>/dev/null | wc -l) + 1 ))
echo "unit tests"
for t in "$TESTS"/test_*; do
	[ -x "$t" ] || continue
	run_one "unit/$(basename "$t")" "$t"
done
echo "integration tests"
for t in "$here"/integration/test_*.sh; do
	[ -f "$t" ] || continue
	if [ -n "$unit_only" ] && ! grep -qxF "$UNIT_TAG" "$t"; then continue; fi
	run_one "integration/$(basename "$t" .sh)" bash "$t"
done
if [ -z "${NO_FUZZ:-}" ] && [ -n "${MAKE_FUZZ:-}" ] && [ -z "$unit_only" ]; then
	echo "fuzz"
	run_one "fuzz/reader (${FUZZ_SECONDS:-20}s)" bash -c "FUZZ_SECONDS=${FUZZ_SECONDS:-20} $MAKE_FUZZ"
fi
if [ -n "${MAKE_KERNELS:-}" ] && [ -z "$unit_only" ]; then
	echo "kernels"
	timeout_s=${KERNELS_TIMEOUT:-2400} run_one "kernels (make kernels: capture on Debian's kernels)" \
		bash -c "$MAKE_KERNELS"
fi
echo
if [ ${#failed[@]} -gt 0 ]; then
	printf 'failed: %s\n' "${failed[@]}"
else
	rm -rf "$log_dir"
fi
if [ $skip -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ $fail -eq 0 ]
