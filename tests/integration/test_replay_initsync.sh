#!/usr/bin/env bash
# riot replay writes back what its init made before the first op (syncfs
# of the root's filesystem, and once more for a --map on another one), so
# the replay does not start with init's dirty pages, which the captured
# program never had; --no-init writes nothing back. Init writes a file's
# content a page (4 KiB) per call: the page cache keeps a file in folios as
# large as the writes that made it, and a replayed 4 KiB overwrite of a
# file init wrote 1 MiB at a time cost 4x what it cost the program.
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || fail "strace is not installed (make deps)"
# riot runs under strace here, where an ASan build's leak checker cannot
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

cat >"$IT_TMP/w.mklog" <<'LOG'
snap_proc pid=100 cwd=/w
openat dirfd=AT_FDCWD path=/w/data flags=O_RDWR ret=3 size=1048576 ftype=reg created=0
pread64 fd=3 off=0 count=4096 ret=4096
close fd=3 ret=0
openat dirfd=AT_FDCWD path=/m/other flags=O_RDONLY ret=3 size=8192 ftype=reg created=0
close fd=3 ret=0
LOG
"$BIN/mklog" -o "$IT_TMP/w.riot" "$IT_TMP/w.mklog" || fail "mklog"

M=$IT_TMP/tmpfs
mkdir -p "$M" && mount -t tmpfs -o size=16m tmpfs "$M" || fail "mount tmpfs"
IT_MOUNTS+=("$M")

# syncfs_calls ARGS...: the syncfs calls riot replay makes, as strace saw
# them, the device view left out (its window ends with one more, below)
syncfs_calls() {
	strace -f -qq -e trace=syncfs -o "$IT_TMP/st" "$RIOT" replay "$IT_TMP/w.riot" --no-block \
		"$@" >"$IT_TMP/out" 2>&1 || fail "replay $*: $(cat "$IT_TMP/out")"
	grep -c 'syncfs(.*= 0' "$IT_TMP/st"
}

for e in sync uring; do
	n=$(syncfs_calls --root "$IT_TMP/r-$e" --engine "$e")
	[ "$n" = 1 ] || fail "$e: $n syncfs calls after init, want 1 (one filesystem)"
	n=$(syncfs_calls --root "$IT_TMP/m-$e" --map "/m=$M/m-$e" --engine "$e")
	[ "$n" = 2 ] || fail "$e: $n syncfs calls with a map on tmpfs, want 2"
	n=$(syncfs_calls --root "$IT_TMP/r-$e" --engine "$e" --no-init)
	[ "$n" = 0 ] || fail "$e: $n syncfs calls with --no-init, want 0"
	grep -q '^divergences: *0$' "$IT_TMP/out" || fail "$e: $(cat "$IT_TMP/out")"
done
# with the device view (a root on a block device): init's syncfs, then the
# one that ends the window after the last op
strace -f -qq -e trace=syncfs -o "$IT_TMP/st" "$RIOT" replay "$IT_TMP/w.riot" \
	--root "$IT_TMP/r-dev" >"$IT_TMP/out" 2>&1 || fail "replay: $(cat "$IT_TMP/out")"
want=1
grep -q '^device ' "$IT_TMP/out" && want=2
n=$(grep -c 'syncfs(.*= 0' "$IT_TMP/st")
[ "$n" = $want ] || fail "$n syncfs calls with the device view, want $want: $(cat "$IT_TMP/out")"

# init of the 1 MiB file: 256 pwrite64 calls of 4096 bytes, all aligned
# (one strace output per thread: init writes files from several threads)
mkdir -p "$IT_TMP/sti"
strace -ff -qq -s 0 -e trace=pwrite64 -o "$IT_TMP/sti/t" "$RIOT" init "$IT_TMP/w.riot" \
	--root "$IT_TMP/i" >"$IT_TMP/out" 2>&1 || fail "init: $(cat "$IT_TMP/out")"
cat "$IT_TMP"/sti/t.* >"$IT_TMP/st"
python3 - "$IT_TMP/st" <<'PY' || fail "init's writes"
import re, sys
calls = [(int(m.group(1)), int(m.group(2)), int(m.group(3))) for m in
         re.finditer(r'pwrite64\(\d+, ""\.\.\., (\d+), (\d+)\) += (\d+)', open(sys.argv[1]).read())]
big = [c for c in calls if c[0] == 4096 and c[2] == 4096]
want = set(range(0, 1048576, 4096))
offs = sorted(c[1] for c in big)
if len(big) < 256 or not want <= set(offs) or any(c[0] > 4096 for c in calls):
    print("init wrote %d calls, sizes %s, offsets %s..%s" % (len(calls), sorted(set(c[0] for c in calls)), offs[:2], offs[-2:]), file=sys.stderr)
    sys.exit(1)
PY
[ "$(stat -c %s "$IT_TMP/i/w/data")" = 1048576 ] || fail "init made data of $(stat -c %s "$IT_TMP/i/w/data") bytes"

echo "syncfs after init: once per filesystem, never with --no-init; init writes 4 KiB per call"
