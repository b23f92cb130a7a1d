#!/usr/bin/env bash
# benchmarks/predict.sh: does a replay predict the program?
#
# Users replay a capture to learn how their program would fare on other
# storage. Here real programs run on fresh loop mounts of ext4, xfs and
# btrfs (sparse images of FS_MB MiB in a directory of IMG_DIR, which
# must be on a disk, not tmpfs), and riot predicts their time there:
# tar -xf of a tarball of the first TREE_FILES files of TREE, cp -a and
# rsync -a of the same tree (tarball and tree outside the mounts, as
# users copy onto a filesystem), git (init, add, commit, gc) on GIT_FILES
# of them, sqlite3 in WAL mode with synchronous=FULL (SQL_TX
# transactions), a dense fio --ioengine=psync --rw=randrw run (FIO_IOS
# I/Os on FIO_MB MiB) and a PostgreSQL server from its start to its stop
# around pgbench (4 clients, 2 threads, PG_TX transactions per client,
# scale PG_SCALE; left out where PostgreSQL is not installed: make
# deps-bench).
#
# The program: REPS runs on each filesystem, the filesystems taking turns,
# each run in a fresh directory (the program's files copied in first,
# inputs read into the page cache, then sync), timed from its start to
# its exit.
# riot: the program captured on ext4, as users capture it
# (riot capture --path DIR -o LOG -- CMD), CAPTURES times (default: once
# a round) in the first rounds beside the program's runs (one capture
# taken at a noisy moment would move every prediction made from it: the
# captures are sampled as the program's runs are), each round's log
# (round i: capture (i - 1) % CAPTURES + 1) replayed onto each filesystem
# with the program's own time between calls
# (riot replay LOG --root DIR --timing think --json: riot init, then the
# calls) in the same turns, its predicted_ns the prediction. Where this
# riot has no --timing, the replays keep the captured schedule (--speed 1)
# and elapsed_ns is taken instead (said in the output).
#
# Per program and filesystem: the medians of both and their spread
# ((max - min) / median), the prediction's error; the xfs/ext4 and
# btrfs/ext4 ratios of the program and of riot; each replay's
# divergences per syscall (result: another error, or success against
# failure, which riot counts apart as flips; bytes: another byte count),
# skipped and unreplayable calls. Targets (PASS/MISS): each prediction
# within 10 % of the program's time, each ratio within 10 % of the
# program's, the same winner for each pair of filesystems the program's
# runs tell apart (medians further apart than either's max - min), no
# call that succeeded where the capture's failed or the reverse.
#
# Env: RIOT, BIN; CAPTURES (REPS), REPS (7: the machine is shared, and a run of a
# program here spreads by 30-150 %), IMG_DIR (/var/tmp), FS_MB (1536),
# TREE (/usr/share/doc), TREE_FILES (4000), GIT_FILES (1000), SQL_TX
# (600), FIO_IOS (40000), FIO_MB (64), PG_TX (200), PG_SCALE (2),
# PROGRAMS (all: tar cp rsync git sqlite fio pgbench). About 7 minutes
# with the defaults. Run as root.
set -uo pipefail
: "${RIOT:?}" "${BIN:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/_lib.sh"
need_root predict.sh "BPF capture, loop mounts"

REPS=${REPS:-7}
CAPTURES=${CAPTURES:-$REPS}
[ "$CAPTURES" -ge 1 ] && [ "$CAPTURES" -le "$REPS" ] || { echo "predict.sh: CAPTURES must be 1..REPS" >&2; exit 1; }
IMG_DIR=${IMG_DIR:-/var/tmp}
FS_MB=${FS_MB:-1536}
TREE=${TREE:-/usr/share/doc}
TREE_FILES=${TREE_FILES:-4000}
GIT_FILES=${GIT_FILES:-1000}
SQL_TX=${SQL_TX:-600}
FIO_IOS=${FIO_IOS:-40000}
FIO_MB=${FIO_MB:-64}
PG_TX=${PG_TX:-200}
PG_SCALE=${PG_SCALE:-2}
PROGRAMS=${PROGRAMS:-tar cp rsync git sqlite fio pgbench}
PG_LOAD="-t $PG_TX"
settings="REPS=$REPS CAPTURES=$CAPTURES IMG_DIR=$IMG_DIR FS_MB=$FS_MB TREE=$TREE TREE_FILES=$TREE_FILES GIT_FILES=$GIT_FILES"
settings+=" SQL_TX=$SQL_TX FIO_IOS=$FIO_IOS FIO_MB=$FIO_MB PG_TX=$PG_TX PG_SCALE=$PG_SCALE"
echo "settings: $settings"

# the images' directory: on a disk, or the filesystems compared are
# tmpfs's pages under three names
img_fs=$(findmnt -n -o FSTYPE -T "$IMG_DIR" 2>/dev/null)
case $img_fs in
"" | tmpfs | ramfs)
	echo "predict.sh: IMG_DIR=$IMG_DIR is ${img_fs:-missing}: images need a disk (set IMG_DIR)" >&2
	exit 1 ;;
esac
echo "images in $IMG_DIR ($img_fs on $(findmnt -n -o SOURCE -T "$IMG_DIR"))"

# (a riot that knows --timing names its values when given another)
if [[ $("$RIOT" replay /dev/null --root /nonexistent --timing '?' 2>&1) == *"--timing is"* ]]; then
	timing=(--timing think) key=predicted_ns
else
	timing=(--speed 1) key=elapsed_ns
	echo "this riot has no replay --timing: replays keep the captured schedule (--speed 1), elapsed_ns taken"
fi

. "$here/../scripts/loopfs.sh"
work=$(mktemp -d "$IMG_DIR/riot-predict.XXXXXX")
chmod 755 "$work"	# the postgres user reaches its data directory
PG_PORT=$((50000 + $$ % 10000))
PG_SOCK=$work/pgsock
out=$work/out
mkdir -p "$out"
fses=""
cleanup() {
	local fs
	for fs in $fses; do pg_stop "$work/$fs/run/pgbench/data"; done
	loopfs_cleanup
	rm -rf "$work"
}
trap cleanup EXIT

for fs in ext4 xfs btrfs; do
	if command -v "mkfs.$fs" >/dev/null && loopfs_make "$fs" "$work/$fs.img" "$work/$fs" "$FS_MB"; then
		fses+="${fses:+ }$fs"
	else
		echo "$fs: no loop mount (mkfs.$fs, loop devices): left out"
	fi
done
[[ "$fses" == ext4* ]] || { echo "predict.sh: no ext4 loop mount to capture on" >&2; exit 1; }
echo "filesystems: $fses (loop mounts of $FS_MB MiB, default options)"

# inputs on the disk, outside the mounts: what users copy from
in=$work/in
programs_inputs
echo "programs: $PROGRAMS"

# ready PROG DIR: DIR fresh for PROG, its inputs in the page cache, no
# dirty pages left to write back.
ready() {
	programs_prepare "$1" "$2"
	find "$in" "$2" -type f -exec cat {} + >/dev/null
	sync
}

# program_run PROG FS: one timed run of PROG on FS (ns to $out/PROG.times).
program_run() {
	local p=$1 fs=$2 dir=$work/$2/run/$1 t0 t1
	ready "$p" "$dir"
	programs_cmd "$p" "$dir"
	t0=$(date +%s%N)
	if "${cmd[@]}" >/dev/null 2>"$out/run.err"; then
		t1=$(date +%s%N)
		echo "$fs $((t1 - t0))" >>"$out/$p.times"
	else
		echo "$p on $fs failed: $(head -n 2 "$out/run.err" | tr '\n' ' ')"
	fi
	rm -rf "$dir"
}

# replay_run PROG FS I: the I-th replay of PROG's log onto FS (its --json
# to $out/PROG.FS.I.json), from capture (I - 1) % CAPTURES + 1.
replay_run() {
	local p=$1 fs=$2 root=$work/$2/root k=$((($3 - 1) % CAPTURES + 1))
	rm -rf "$root" && sync
	"$RIOT" replay "$work/$p.$k.riot" --root "$root" "${timing[@]}" --json \
		>"$out/$p.$fs.$3.json" 2>"$out/replay.err" ||
		{ echo "$p: replay on $fs failed: $(head -n 2 "$out/replay.err" | tr '\n' ' ')"; rm -f "$out/$p.$fs.$3.json"; }
	rm -rf "$root"
}

# capture PROG K: PROG's K-th capture on ext4, as users capture it (the
# first one's facts to $out/PROG.info.json and .capture_ns).
capture() {
	local p=$1 k=$2 dir=$work/ext4/run/$1 t0 t1
	ready "$p" "$dir"
	programs_cmd "$p" "$dir"
	t0=$(date +%s%N)
	if ! "$RIOT" capture -q --path "$dir" -o "$work/$p.$k.riot" -- "${cmd[@]}" >/dev/null 2>"$out/cap.err"; then
		echo "$p: capture failed: $(head -n 3 "$out/cap.err" | tr '\n' ' ')"
		rm -rf "$dir"
		return 1
	fi
	t1=$(date +%s%N)
	if [ "$k" = 1 ]; then
		echo "$((t1 - t0))" >"$out/$p.capture_ns"
		"$RIOT" info --json "$work/$p.1.riot" >"$out/$p.info.json"
	fi
	rm -rf "$dir"
}

for p in $PROGRAMS; do
	t_start=$(date +%s)
	for i in $(seq "$REPS"); do
		if [ "$i" -le "$CAPTURES" ]; then
			capture "$p" "$i" || continue 2
		fi
		for fs in $fses; do program_run "$p" "$fs"; done
		for fs in $fses; do replay_run "$p" "$fs" "$i"; done
	done
	echo "$p: $(($(date +%s) - t_start)) s"
done

read -ra progs <<<"$PROGRAMS"
python3 "$here/predict.py" --dir "$out" --key "$key" --fs "$fses" \
	--out "${BENCH_OUT:-/dev/null}" "${progs[@]}"
echo "reproduce: $settings PROGRAMS='$PROGRAMS' RIOT=./riot BIN=build/bin bash benchmarks/predict.sh"
