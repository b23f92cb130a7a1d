#!/usr/bin/env bash
# test_commit_subjects: every commit subject since the rule was made
# (after commit 5538e17) is under 72 characters, so `git log --oneline`
# and mail subjects show it whole. Outside a git checkout (a release
# tarball) there is no history to check.
# test-unit: needs neither root nor BPF
. "$(dirname "$0")/lib.sh"
TOP=$(cd "$IT_DIR/../.." && pwd)
BASE=5538e1748df0e8f6354b0e3895e2759a505335c1
command -v git >/dev/null || fail "git is missing (make deps-test)"
if ! git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
	echo "PASS (not a git checkout: no commits to check)"
	exit 0
fi
git -C "$TOP" cat-file -e "$BASE^{commit}" 2>/dev/null || fail "commit $BASE is not in this history (a shallow clone?)"
long=$(git -C "$TOP" log --no-merges --format='%h %s' "$BASE..HEAD" | awk 'length($0) - length($1) - 1 >= 72')
[ -z "$long" ] || fail "commit subjects of 72 characters or more:
$long"
echo PASS
