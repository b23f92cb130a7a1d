#!/usr/bin/env bash
# test_shellcheck: shellcheck finds nothing in any shell script of the
# project: the *.sh and *.bash files and every file whose first line runs
# sh or bash, outside build/. The project's settings, and the few checks
# it turns off with the reason for each, are in .shellcheckrc. Not in
# make test-unit: it takes a minute.
. "$(dirname "$0")/lib.sh"
TOP=$(cd "$IT_DIR/../.." && pwd)
command -v shellcheck >/dev/null || fail "shellcheck is missing (make deps-test)"
cd "$TOP" || fail "no $TOP"
[ -f .shellcheckrc ] || fail "no .shellcheckrc"
scripts=()
while IFS= read -r -d '' f; do
	case $f in
	*.sh | *.bash) scripts+=("$f") ;;
	*) head -n 1 "$f" 2>/dev/null | grep -qE '^#! ?(/usr/bin/env |/bin/busybox )?(/bin/|/usr/bin/)?(ba)?sh( |$)' &&
		scripts+=("$f") ;;
	esac
done < <(find . \( -path ./build -o -path ./.git -o -name 'riot-*' \) -prune -o -type f -print0 | sort -z)
# the ones this test must not miss: the runner, a sourced helper, the CI script
for want in ./tests/run.sh ./tests/integration/lib.sh ./.ci/run ./tests/kernels/init; do
	[[ " ${scripts[*]} " == *" $want "* ]] || fail "$want is not among the scripts checked"
done
[ "${#scripts[@]}" -gt 100 ] || fail "only ${#scripts[@]} scripts found"
shellcheck -f gcc "${scripts[@]}" >"$IT_TMP/sc.txt" 2>&1 ||
	fail "shellcheck: $(wc -l <"$IT_TMP/sc.txt") findings:
$(head -n 40 "$IT_TMP/sc.txt")"
# every check the settings turn off says why, on the line above
awk '/^disable=/ { if (prev !~ /^#/) { print "no reason for " $0; bad = 1 } } { prev = $0 } END { exit bad }' \
	.shellcheckrc || fail ".shellcheckrc turns a check off without a reason"
echo PASS
