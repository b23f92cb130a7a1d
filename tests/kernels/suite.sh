#!/bin/sh
# tests/kernels/suite.sh OUT WORK: the capture-and-replay suite `make
# kernels` runs on every kernel of the matrix, inside a QEMU guest (busybox,
# the static riot and test tools) and on the running kernel alike. It only
# runs things and keeps what they left in OUT; tests/kernels/check.py
# judges the results on the host. WORK: a directory on a filesystem with
# user xattrs (ext4). Environment: RIOT, BIN (the test tools), LOOP_CALLS.
#
# Kept in OUT:
#   version.json, check.txt, check.rc   riot version --json; riot capture --check
#   formats/sys_enter_*/format          the kernel's syscall tracepoints
#   wl.riot wl.rc wl.cap.rc wl.err      workload `all` (every class riot records:
#                                       data, metadata, directories, xattrs, the
#                                       fsync family, mmap, io_uring, AIO, fork,
#                                       clone, threads), attached with -p
#   tree.riot tree.orig tree.replay     a tree written by 4 threads and a shell
#   tree.cap.rc tree.init.rc tree.rc    (files, a symlink, modes), replayed
#   block.riot block.rc                 4 MiB written and fsynced, --block
#   loop.riot loop.rc                   LOOP_CALLS preads at full speed
set -u
OUT=$1
WORK=$2
RIOT=${RIOT:-riot}
BIN=${BIN:-/bin}
LOOP_CALLS=${LOOP_CALLS:-100000}
mkdir -p "$OUT" "$WORK"
# The workload's forked child execs busybox's true on every kernel: its
# loader's calls are in the counts.
mkdir -p "$WORK/bb"
ln -sf "${BUSYBOX:-$(command -v busybox)}" "$WORK/bb/true"
export WORKLOAD_TRUE="$WORK/bb/true"

# waits up to $1 seconds for the command after it to succeed
wait_for() {
	n=$(($1 * 10)); shift
	while [ "$n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}

# one line per entry under $1: type, mode, size (not for directories),
# path; for a symlink, where it leads within the tree (replay rewrites a
# target so that it stays under the root: the text differs, the file it
# names must not)
tree_of() {
	top=$(cd "$1" && pwd -P)
	(cd "$1" && find . -mindepth 1 | LC_ALL=C sort | while read -r p; do
		if [ -L "$p" ]; then
			t=$(readlink -f "$p")
			echo "l $p -> ${t#"$top"}"
		elif [ -d "$p" ]; then
			echo "d $(stat -c %a "$p") $p"
		else
			echo "f $(stat -c '%a %s' "$p") $p"
		fi
	done)
}

"$RIOT" version --json >"$OUT/version.json" 2>"$OUT/version.err"
"$RIOT" capture --check >"$OUT/check.txt" 2>&1
echo $? >"$OUT/check.rc"

tp=/sys/kernel/tracing/events/syscalls
[ -d "$tp" ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
for d in "$tp"/sys_enter_*; do
	[ -f "$d/format" ] || continue
	mkdir -p "$OUT/formats/${d##*/}"
	cat "$d/format" >"$OUT/formats/${d##*/}/format"
done

# The workload waits for SIGUSR1 once ready; capture attaches to it first.
snap_written() {
	"$RIOT" dump --format jsonl "$OUT/wl.riot" 2>/dev/null | grep '"snap_proc"' |
		grep -qE "\"pid\": *$1[,}]"
}
mkdir -p "$WORK/w"
"$BIN/workload" --dir "$WORK/w" all >"$OUT/wl.out" 2>"$OUT/wl.err" </dev/null &
wpid=$!
wait_for 300 grep -q ' ready$' "$OUT/wl.out"
"$RIOT" capture -o "$OUT/wl.riot" -p "$wpid" >"$OUT/wl.cap.out" 2>"$OUT/wl.cap.err" </dev/null &
cpid=$!
# (or for the capture to have failed: it said why in wl.cap.err)
snap_or_gone() { snap_written "$wpid" || ! kill -0 "$cpid" 2>/dev/null; }
wait_for 600 snap_or_gone
kill -USR1 "$wpid"
wait "$wpid"
echo $? >"$OUT/wl.rc"
wait "$cpid"
echo $? >"$OUT/wl.cap.rc"

# A tree: demo_workload's 4 threads, then a shell's symlink, directory and
# modes; replayed as fast as possible under a root.
T=$WORK/tree
mkdir -p "$T/app"
"$RIOT" capture -q -o "$OUT/tree.riot" -- sh -c "'$BIN/demo_workload' --dir '$T/app' \
	--threads 4 --files 16 && cd '$T/app' && ln -s t0 latest && mkdir -p keep/deep && \
	chmod 700 keep && chmod 640 manifest && ln -s ../manifest keep/m" \
	>"$OUT/tree.cap.out" 2>&1
echo $? >"$OUT/tree.cap.rc"
tree_of "$T/app" >"$OUT/tree.orig"
"$RIOT" init "$OUT/tree.riot" --root "$T/root" >"$OUT/tree.init.out" 2>&1
echo $? >"$OUT/tree.init.rc"
"$RIOT" replay "$OUT/tree.riot" --root "$T/root" --json >"$OUT/tree.replay.json" 2>"$OUT/tree.replay.err"
echo $? >"$OUT/tree.rc"
tree_of "$T/root$T/app" >"$OUT/tree.replay"

# What reached the block device (the block programs): 4 MiB written and
# fsynced under --path, so the filesystem's device sees them.
mkdir -p "$WORK/blk"
"$RIOT" capture -q --block --path "$WORK/blk" -o "$OUT/block.riot" -- \
	dd if=/dev/zero of="$WORK/blk/f" bs=65536 count=64 conv=fsync >"$OUT/block.out" 2>&1
echo $? >"$OUT/block.rc"

# Full speed: one CPU's worth of preads, none lost.
"$RIOT" capture -q -o "$OUT/loop.riot" -- "$BIN/sysloop" pread "$LOOP_CALLS" "$OUT/check.txt" \
	>"$OUT/loop.out" 2>&1
echo $? >"$OUT/loop.rc"
echo "suite done"
