#!/usr/bin/env bash
# riot replay writes back what its init made before the first op (syncfs
# of the root's filesystem, and once more for a --map on another one), so
# the replay does not start with init's dirty pages, which the captured
# program never had; --no-init writes nothing back.
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || fail "strace is not installed (make deps)"

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

# syncfs_calls ARGS...: the syncfs calls riot replay makes, as strace saw them
syncfs_calls() {
	strace -f -qq -e trace=syncfs -o "$IT_TMP/st" "$RIOT" replay "$IT_TMP/w.riot" "$@" \
		>"$IT_TMP/out" 2>&1 || fail "replay $*: $(cat "$IT_TMP/out")"
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
echo "syncfs after init: once per filesystem, never with --no-init"
