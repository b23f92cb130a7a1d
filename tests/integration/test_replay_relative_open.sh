#!/usr/bin/env bash
# test_replay_relative_open: an open of a path relative to a directory (the
# cwd or a dirfd) walks in the clock what the program's walked: the path's
# last components, beneath a confined O_PATH fd of the directory before
# them (openat2 RESOLVE_BENEATH); a path with ".." walks whole from the
# root (RESOLVE_IN_ROOT), and so does one whose walk leaves its directory
# (an absolute symlink: -EXDEV, then the whole path). strace shows each
# openat2 riot makes; the tree and the results are the program's.
. "$(dirname "$0")/lib.sh"
require_capture
command -v strace >/dev/null || unavailable "no strace (make deps-test)"

D=$IT_TMP/w/d
mkdir -p "$D/a/b"
"$RIOT" capture -q --path "$IT_TMP/w" -o "$IT_TMP/r.riot" -- python3 -c '
import os, sys
os.chdir(sys.argv[1])
open("a/b/f", "w").write("x")
open("./a/b/g", "w").write("yy")
open("a/b/../b/k", "w").write("zzz")
fd = os.open("a", os.O_RDONLY | os.O_DIRECTORY)
os.close(os.open("b/m", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
os.mkdir("abs")
os.symlink(os.path.join(sys.argv[1], "abs"), "a/l")
open("a/l/h", "w").write("wwww")
' "$D" >/dev/null 2>"$IT_TMP/c.err" || fail "capture: $(cat "$IT_TMP/c.err")"

# under strace an ASan build's leak checker cannot run: a second replay
# without it (its results and tree checked too) keeps the check
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -e trace=openat2 -o "$IT_TMP/st" "$RIOT" replay "$IT_TMP/r.riot" --root "$IT_TMP/root" \
	--no-block --json >"$IT_TMP/r.json" 2>"$IT_TMP/r.err" || fail "replay: $(cat "$IT_TMP/r.err")"
"$RIOT" replay "$IT_TMP/r.riot" --root "$IT_TMP/root2" --no-block --json >"$IT_TMP/r2.json" \
	2>"$IT_TMP/r.err" || fail "replay without strace: $(cat "$IT_TMP/r.err")"
for j in r r2; do
python3 - "$IT_TMP/$j.json" <<'PY' || fail "replay results ($j.json)"
import json, sys
r = json.load(open(sys.argv[1]))
# python's fstat of the fds it started with are skipped: unresolved, or
# pipes where the call's own record says so
if r["divergences"] != 0 or set(r.get("skip_reasons", {})) - {"unresolved fd or cwd",
                                                            "pipe or socket"}:
    sys.exit("divergences %d, skips %s, want 0 and none but unresolved fds and pipes"
             % (r["divergences"], r.get("skip_reasons")))
PY
done

# the opens of the workload's files, as riot issued them: "dirfd path resolve = result"
rel=${D#/}
grep -E 'openat2\([0-9]+, "[^"]*(/|^|")(f|g|k|m|h)", \{flags=O_WRONLY' "$IT_TMP/st" |
	sed -E 's/^[0-9]+ +//; s/openat2\(([0-9]+), "([^"]*)", \{flags=[^,]*, mode=[0-9]+, resolve=([A-Z_|]+)\}, 24\) = (-1 [A-Z]+|[0-9]+).*/\1 \2 \3 \4/' |
	awk -v root="$rel" '{ fd = ($2 ~ "^" root) ? "ROOT" : "DIR"; r = ($4 ~ /^-1/) ? $4 " " $5 : "ok"; print fd, $2, $3, r }' \
	>"$IT_TMP/opens"
cat >"$IT_TMP/want" <<WANT
DIR a/b/f RESOLVE_NO_MAGICLINKS|RESOLVE_BENEATH ok
DIR a/b/g RESOLVE_NO_MAGICLINKS|RESOLVE_BENEATH ok
ROOT $rel/a/b/k RESOLVE_NO_MAGICLINKS|RESOLVE_IN_ROOT ok
DIR b/m RESOLVE_NO_MAGICLINKS|RESOLVE_BENEATH ok
DIR a/l/h RESOLVE_NO_MAGICLINKS|RESOLVE_BENEATH -1 EXDEV
ROOT $rel/a/l/h RESOLVE_NO_MAGICLINKS|RESOLVE_IN_ROOT ok
WANT
diff "$IT_TMP/want" "$IT_TMP/opens" >&2 || fail "riot's opens differ from the expected (want, got above)"

# the tree: what the program made, each file its captured size
cat >"$IT_TMP/want" <<'WANT'
./a/b/f f 1
./a/b/g f 2
./a/b/k f 3
./a/b/m f 0
./a/l l
./abs/h f 4
WANT
for r in root root2; do
	(cd "$IT_TMP/$r/$rel" && find . \( -type f -printf '%p %y %s\n' \) -o \( -type l -printf '%p %y\n' \) |
		sort) >"$IT_TMP/tree"
	diff "$IT_TMP/want" "$IT_TMP/tree" >&2 || fail "the tree replayed in $r differs (want, got above)"
done
echo PASS
