#!/usr/bin/env bash
# test_readme: README.md is what a user reads: under 600 lines, with its
# sections (what riot is, set-up with `make demo` and `make check`, a
# worked example with the HTML picture, commands, kernel support, known
# limits); every relative link of README.md, docs/*.md, ARCHITECTURE.md
# and benchmarks/README.md leads to a file that exists; and every page of
# docs/ is linked from README.md, so nothing moved there is lost.
# test-unit: needs neither root nor BPF
. "$(dirname "$0")/lib.sh"
TOP=$(cd "$IT_DIR/../.." && pwd)
R=$TOP/README.md
n=$(wc -l <"$R")
[ "$n" -lt 600 ] || fail "README.md has $n lines, 600 or more"
for s in "## What riot is" "## Set up" "## A worked example: tar onto ext4 and xfs" "## Commands" \
	"## Fleets" "## Kernel support" "## Known limits"; do
	grep -qxF "$s" "$R" || fail "README.md has no section '$s'"
done
for c in "make demo" "make check"; do
	sed -n '/^## Set up$/,/^## /p' "$R" | grep -q "^$c " || fail "Set up does not give '$c'"
done
grep -qF '](docs/compare-ext4-xfs.png)' "$R" || fail "README.md does not show docs/compare-ext4-xfs.png"
python3 - "$TOP" <<'PY' || fail "broken links (above)"
import os, re, sys, glob
top = sys.argv[1]
pages = [f"{top}/README.md", f"{top}/ARCHITECTURE.md", f"{top}/benchmarks/README.md"] + sorted(glob.glob(f"{top}/docs/*.md"))
bad = 0
for page in pages:
    text = open(page).read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = os.path.normpath(os.path.join(os.path.dirname(page), target.split("#")[0]))
        if not os.path.exists(path):
            print(f"{os.path.relpath(page, top)}: {target} does not exist")
            bad = 1
readme = open(f"{top}/README.md").read()
for doc in sorted(glob.glob(f"{top}/docs/*.md")):
    name = "docs/" + os.path.basename(doc)
    if f"]({name})" not in readme:
        print(f"README.md does not link {name}")
        bad = 1
sys.exit(bad)
PY
echo PASS
