#!/usr/bin/env bash
# test_touches: ARCHITECTURE.md's table of the files each kind of change
# touches is true (scripts/touches.py): a row for a new syscall, engine,
# converter, report column and chart, every file it names there, at most
# three a row (the report column's row, report/'s own, may name more); the
# check finds a missing file, a row of too many and a missing kind.
# test-unit: needs neither root nor BPF
. "$(dirname "$0")/lib.sh"
TOP=$(cd "$IT_DIR/../.." && pwd)
TOUCHES=$TOP/scripts/touches.py
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

out=$(python3 "$TOUCHES" "$TOP" 2>&1) || fail "ARCHITECTURE.md's claims are false: $out"
[ -z "$out" ] || fail "touches.py printed on a true page: $out"
python3 "$TOUCHES" "$TOP" --list | grep -q 'a new syscall' || fail "no syscall row in --list"

mkdir -p "$T/a" "$T/b"
touch "$T/a/one.c" "$T/a/two.c" "$T/a/engine_x.c" "$T/b/r.c"
cat >"$T/ARCHITECTURE.md" <<'MD'
# a tree

<!-- touches -->
| change | files |
|---|---|
| a new syscall | `a/one.c`, `a/gone.c` |
| a new replay engine | `a/engine_NAME.c`, `a/two.c` |
| a new converter | `a/one.c`, `a/two.c`, `b/r.c`, `a/engine_x.c` |
| a new record field | `a/one.c`, `a/two.c`, `b/r.c`, `a/engine_x.c` |
| a new column of a report | `a/one.c`, `a/two.c`, `b/r.c`, `a/engine_x.c`, `b/missing.c` |
MD
out=$(python3 "$TOUCHES" "$T") && fail "touches.py passed false claims"
want="no row says what a new chart touches
a new syscall: a/gone.c does not exist
a new converter: 4 files, more than 3"
[ "$out" = "$want" ] || fail "touches.py said:
$out
want:
$want"
echo PASS
