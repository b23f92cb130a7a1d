#!/usr/bin/env bash
# benchmarks/fidelity.sh: self-replay fidelity and verdicts that do not flip.
#
# Real programs are captured on a fresh ext4 loop mount of their own (the
# filesystem of /var/tmp when loop devices or mkfs.ext4 are missing), so
# other users of /var/tmp are not in the figures: tar -xf of a
# tarball of the first TREE_FILES files of TREE, cp -a of the same tree,
# git (init, add, commit, gc) on GIT_FILES of them, sqlite3 in WAL mode (SQL_TX transactions), a
# multi-threaded writer (tests/bin/demo_workload), a dense fio
# --ioengine=psync --rw=randrw run (FIO_IOS I/Os) and a PostgreSQL server
# from its start to its stop around PG_SECONDS of pgbench (4 clients, 2
# threads, scale PG_SCALE; left out where PostgreSQL is not installed:
# make deps-bench). Each is captured REPS
# times (inputs in the page cache, dirty pages synced before each run),
# with --path on the work directory: the programs' I/O on its files, not
# on pipes, libraries or /etc, all of which replay skips or cannot see.
#
# Self-replay: the last capture of each program is replayed REPS times with
# each engine, as fast as possible, onto that same filesystem (riot init
# before each run, then sync: a warm cache and no dirty pages left over).
# riot's reports give, per class (data_read, data_write, sync, metadata),
# the total time spent in syscalls and the p50; medians over the runs,
# ratios to the capture's medians, spread = (max - min) / median. A
# capture's durations are less the probe time riot report takes off
# (printed: the median over the captures, fidelity_capture_probe_ns).
# Targets: each class within +-25 % of the capture with the default
# engine; the engines within 15 % of each other (elapsed and per class).
#
# Under the same probes: a capture's durations also hold what its probes
# cost the call's own path (caches and TLB the probes' code, maps and
# ring take), beyond the probe time taken off. The last capture is
# replayed REPS times more with the default engine, each replay captured
# by riot (--path on its root), and those captures' classes are compared
# with the program's: what separates the two is the replay, not the
# observer. The table gives them against the capture and against the
# replays nobody traced (what the probes add to the replay's calls), for
# data reads, data writes and sync: a capture of a replay also records the
# replay's lookups (an O_PATH open of a path's parent and its close), so
# its metadata holds calls the program did not make. They are compared in
# a database of their own with the captures: a class sums the calls every
# run made, and a replay issues read(2) and write(2) as pread64 and
# pwrite64 (a class whose calls the replay renames has no row there).
#
# Verdicts: the same logs replayed REPS times per engine onto fresh ext4
# and xfs loop mounts (sparse images of FS_MB MiB); per program and class
# the winner (less time in syscalls) for each engine. A case is decided
# when an engine sees the filesystems differ by more than its spread there;
# then both engines must name the same winner.
#
# Env: RIOT, BIN; REPS (5: three replays understate a class's spread,
# which decides a verdict), TREE (/usr/share/doc), TREE_FILES (2000),
# GIT_FILES (600),
# SQL_TX (400), FIO_IOS (40000), FIO_MB (64), WRITER_THREADS (8),
# WRITER_FILES (48), PG_SECONDS (5), PG_SCALE (5), FS_MB (1536), ENGINES
# (every engine riot has), PROGRAMS (all: tar cp git sqlite writer fio
# pgbench). Run as root.
set -uo pipefail
: "${RIOT:?}" "${BIN:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/_lib.sh"
need_root fidelity.sh "BPF capture, loop mounts, drop of dirty pages"

REPS=${REPS:-5}
TREE=${TREE:-/usr/share/doc}
TREE_FILES=${TREE_FILES:-2000}
GIT_FILES=${GIT_FILES:-600}
SQL_TX=${SQL_TX:-400}
FIO_IOS=${FIO_IOS:-40000}
FIO_MB=${FIO_MB:-64}
WRITER_THREADS=${WRITER_THREADS:-8}
WRITER_FILES=${WRITER_FILES:-48}
FS_MB=${FS_MB:-1536}
PG_SECONDS=${PG_SECONDS:-5}
PG_SCALE=${PG_SCALE:-5}
PROGRAMS=${PROGRAMS:-tar cp git sqlite writer fio pgbench}
PG_LOAD="-T $PG_SECONDS"
ENGINES=${ENGINES:-$(riot_engines)}
DEFAULT=$(riot_default_engine)
echo "settings: REPS=$REPS TREE=$TREE TREE_FILES=$TREE_FILES GIT_FILES=$GIT_FILES SQL_TX=$SQL_TX FIO_IOS=$FIO_IOS" \
	"FIO_MB=$FIO_MB WRITER_THREADS=$WRITER_THREADS WRITER_FILES=$WRITER_FILES FS_MB=$FS_MB"
echo "engines: $ENGINES (default: $DEFAULT); programs: $PROGRAMS"

. "$here/../scripts/loopfs.sh"
work=$(mktemp -d /var/tmp/riot-fidelity.XXXXXX)
chmod 755 "$work"	# the postgres user reaches its data directory
PG_PORT=$((50000 + $$ % 10000))
PG_SOCK=$work/pgsock
trap 'pg_stop "$work/ext4/fid/c/pgbench/data"; pg_stop "$work/c/pgbench/data"; loopfs_cleanup; rm -rf "$work"' EXIT

# ---- inputs, made once, outside any capture ----

make_fs() { loopfs_make "$1" "$work/$1.img" "$work/$1" "$FS_MB"; }

# where the programs run and are captured, and their self-replays go
base=$work
if command -v mkfs.ext4 >/dev/null && make_fs ext4; then
	base=$work/ext4/fid
	echo "captures and self-replays on an ext4 loop mount ($FS_MB MiB)"
else
	echo "captures and self-replays on $(stat -f -c %T "$work") ($work): no ext4 loop mount"
fi
in=$base/in
programs_inputs

# ---- captures ----

settle() { sync; }	# no dirty pages of an earlier phase left to write back

labels_of() { python3 -c 'import json,sys; print(" ".join(r["label"] for r in json.load(sys.stdin)["runs"]))'; }

t_start=$(date +%s)
for p in $PROGRAMS; do
	db=$work/$p.db
	dir=$base/c/$p
	for i in $(seq "$REPS"); do
		programs_prepare "$p" "$dir"
		find "$in" "$dir" -type f -exec cat {} + >/dev/null	# inputs cached
		settle
		programs_cmd "$p" "$dir"
		if ! "$RIOT" capture -q --path "$base" -o "$work/$p.riot" -- "${cmd[@]}" >/dev/null 2>"$work/$p.cap.err"; then
			echo "$p: capture failed: $(head -n 3 "$work/$p.cap.err")"
			continue 2
		fi
		"$RIOT" report "$work/$p.riot" -o "$db" --label "cap-$i" >/dev/null
		# and beside the captures of its replays (traced_runs), apart:
		# riot compare sums a class over the calls every run of a
		# database made, and a replay makes read(2) a pread64
		"$RIOT" report "$work/$p.riot" -o "$work/$p.traced.db" --label "cap-$i" >/dev/null
		"$RIOT" info --json "$work/$p.riot" | python3 -c 'import json,sys
print(json.load(sys.stdin)["header"].get("probe_ns", "n/a"))' >>"$work/probe_ns"
	done
	rm -rf "$dir"
done
echo "captures: $(($(date +%s) - t_start)) s"
# the probe time riot report took off each captured duration (riot info)
probe=$(grep -v n/a "$work/probe_ns" 2>/dev/null | sort -n)
if [ -n "$probe" ]; then
	echo "probe time taken off the captures' durations: median $(echo "$probe" | median) ns," \
		"$(echo "$probe" | head -n 1)-$(echo "$probe" | tail -n 1) ns over $(echo "$probe" | wc -l) captures"
	[ -z "${BENCH_OUT:-}" ] || echo "fidelity_capture_probe_ns $(echo "$probe" | median)" >>"$BENCH_OUT"
fi

# ---- replays ----

# replay_runs PROG FS ROOT: REPS replays per engine of PROG's log under ROOT.
replay_runs() {
	local p=$1 fs=$2 root=$3 e i
	for i in $(seq "$REPS"); do
		for e in $ENGINES; do
			"$RIOT" init "$work/$p.riot" --root "$root" >/dev/null 2>"$work/init.err" ||
				{ echo "$p: init on $fs failed: $(head -n 1 "$work/init.err")"; return; }
			settle
			"$RIOT" replay "$work/$p.riot" --root "$root" --no-init --speed 0 --engine "$e" \
				--report "$work/$p.db" --label "$fs-$e-$i" >/dev/null 2>"$work/replay.err" ||
				echo "$p: replay on $fs with $e failed: $(head -n 1 "$work/replay.err")"
		done
	done
	rm -rf "$root"
}

# traced_runs PROG ROOT: REPS replays with the default engine of PROG's
# log under ROOT, each captured by riot with --path ROOT: the replay's
# calls recorded by the same probes as the program's.
traced_runs() {
	local p=$1 root=$2 i
	for i in $(seq "$REPS"); do
		"$RIOT" init "$work/$p.riot" --root "$root" >/dev/null 2>"$work/init.err" ||
			{ echo "$p: init failed: $(head -n 1 "$work/init.err")"; return; }
		settle
		if "$RIOT" capture -q --path "$root" -o "$work/$p.traced.riot" -- \
			"$RIOT" replay "$work/$p.riot" --root "$root" --no-init --no-block --speed 0 \
			--engine "$DEFAULT" >/dev/null 2>"$work/replay.err"; then
			"$RIOT" report "$work/$p.traced.riot" -o "$work/$p.traced.db" --label "traced-$i" >/dev/null
		else
			echo "$p: traced replay failed: $(head -n 1 "$work/replay.err")"
		fi
	done
	rm -rf "$root" "$work/$p.traced.riot"
}

t_start=$(date +%s)
for p in $PROGRAMS; do
	[ -s "$work/$p.riot" ] && replay_runs "$p" same "$base/root"
done
echo "self-replays: $(($(date +%s) - t_start)) s"

t_start=$(date +%s)
for p in $PROGRAMS; do
	[ -s "$work/$p.riot" ] && traced_runs "$p" "$base/root"
done
echo "traced self-replays: $(($(date +%s) - t_start)) s"

t_start=$(date +%s)
verdicts=0
if mountpoint -q "$work/ext4" && command -v mkfs.xfs >/dev/null && make_fs xfs; then
	verdicts=1
	for p in $PROGRAMS; do
		[ -s "$work/$p.riot" ] || continue
		for fs in ext4 xfs; do
			replay_runs "$p" "$fs" "$work/$fs/root"
		done
	done
else
	echo "verdicts: no ext4 and xfs loop mounts here (mkfs.ext4, mkfs.xfs, loop devices): skipped"
fi
echo "verdict replays: $(($(date +%s) - t_start)) s"

# ---- tables ----

args=()
for p in $PROGRAMS; do
	[ -s "$work/$p.db" ] || continue
	"$RIOT" compare "$work/$p.db" --json >"$work/$p.cmp.json" 2>"$work/cmp.err" ||
		{ echo "$p: compare failed: $(head -n 1 "$work/cmp.err")"; continue; }
	traced=
	if [ -s "$work/$p.traced.db" ]; then
		if "$RIOT" compare "$work/$p.traced.db" --json >"$work/$p.traced.json" 2>"$work/cmp.err"; then
			traced=":$work/$p.traced.json"
		else
			echo "$p: compare of the traced replays failed: $(head -n 1 "$work/cmp.err")"
		fi
	fi
	args+=("$p=$work/$p.cmp.json$traced")
done
python3 "$here/fidelity.py" --default "$DEFAULT" --engines "$ENGINES" \
	--verdicts "$verdicts" --out "${BENCH_OUT:-/dev/null}" "${args[@]}"
echo "reproduce: make bench (or RIOT=./riot BIN=build/bin bash benchmarks/fidelity.sh)"
