# shellcheck shell=bash
# benchmarks/_lib.sh: what the benchmark scripts share; sourced, never run
# by itself (benchmarks/run.sh runs [a-z]*.sh).

# need_root SCRIPT WHY: exits 1 with one line unless running as root.
need_root() {
	[ "$(id -u)" = 0 ] || { echo "$1: needs root ($2)" >&2; exit 1; }
}

# bench_workdir NAME: a fresh directory under /var/tmp (in $work) with a
# 4 KiB file of random bytes ($target) for the syscall loops.
bench_workdir() {
	work=$(mktemp -d "/var/tmp/riot-$1.XXXXXX")
	target=$work/file
	head -c 4096 /dev/urandom >"$target"
}

# The median of the numbers on stdin, one a line; "n/a" for none.
median() { sort -g | awk '{a[NR] = $1} END {if (NR) print a[int((NR + 1) / 2)]; else print "n/a"}'; }

# The number before the word $1 on each line of stdin ("612 ns/syscall").
field_before() { awk -v u="$1" '{for (i = 1; i < NF; i++) if ($(i+1) == u) print $i}'; }

# The names of riot's replay engines, from its refusal of an unknown one
# ("uring sync" where riot does not list them).
riot_engines() {
	local names
	names=$("$RIOT" replay /dev/null --root /nonexistent --engine '?' 2>&1 |
		sed -n 's/.*none of the engines: //p' | tr -d ,)
	echo "${names:-uring sync}"
}

# The engine riot replays with when none is named: what its summary says.
riot_default_engine() {
	local d
	d=$(mktemp -d /var/tmp/riot-engine.XXXXXX)
	"$BIN/replay_gen" pacing -o "$d/p.riot" >/dev/null 2>&1
	"$RIOT" replay "$d/p.riot" --root "$d/root" --speed 0 --json 2>/dev/null |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["engine"])' 2>/dev/null || echo "?"
	rm -rf "$d"
}

# fio_randrw FILE MB IOS: sets fio_cmd to a dense fio run, the one the
# fidelity, floor and paced benchmarks capture: IOS 4 KiB random reads and
# writes, one thread of psync, on FILE (MB MiB, in the page cache).
fio_randrw() {
	fio_cmd=(fio --name=randrw --filename="$1" --size="$2m" --io_size=$(($3 * 4))k --bs=4k
		--rw=randrw --ioengine=psync --invalidate=0 --randrepeat=1 --output=/dev/null)
}

# ---- the real programs that fidelity.sh and predict.sh run ----
# The caller sets: in (the inputs' directory), PROGRAMS, TREE,
# TREE_FILES, GIT_FILES, SQL_TX, FIO_MB, FIO_IOS, WRITER_THREADS,
# WRITER_FILES, PG_SCALE, PG_LOAD (pgbench's options that say how long it
# runs: -T SECONDS or -t TRANSACTIONS per client), PG_PORT, PG_SOCK.

# programs_drop NAME WHY: NAME leaves PROGRAMS, with one line saying why.
programs_drop() {
	echo "$1: $2: left out"
	PROGRAMS=$(echo " $PROGRAMS " | sed "s/ $1 / /; s/^ //; s/ \$//")
}

# PostgreSQL's newest server here (postgresql-15: make deps-bench); it
# runs as the postgres user, never as root
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
pg() { runuser -u postgres -- "$PGBIN/$1" "${@:2}"; }
# pg_stop DATADIR: a server left running by an interrupted run stops
pg_stop() { [ -f "$1/postmaster.pid" ] && runuser -u postgres -- "$PGBIN/pg_ctl" -D "$1" -w -m immediate stop >/dev/null 2>&1; }

# files_of DIR N: the first N files of DIR (sorted), relative to DIR.
files_of() { (cd "$1" && find . -type f | sort | head -n "$2"); }

# programs_inputs: in $in, what the programs of PROGRAMS read, made once,
# outside any capture: a tarball of the first TREE_FILES files of TREE
# and the tree itself, GIT_FILES of them for git, SQL_TX sqlite
# transactions (WAL, synchronous=FULL: a sync per commit), FIO_MB MiB of
# random data for fio, a PostgreSQL data directory with pgbench's tables
# (scale PG_SCALE). pgbench leaves PROGRAMS where PostgreSQL is missing
# or fails to make the database.
programs_inputs() {
	local i p
	: "${in:?the sourcing script names the inputs directory, in}"
	for p in rsync git sqlite3 fio; do
		[[ " $PROGRAMS " != *" ${p%3} "* ]] || command -v "$p" >/dev/null ||
			programs_drop "${p%3}" "no $p here (make deps-test, make deps-bench)"
	done
	if [[ " $PROGRAMS " == *" pgbench "* ]] &&
		! { [ -x "$PGBIN/postgres" ] && [ -x "$PGBIN/pgbench" ] && id postgres >/dev/null 2>&1; }; then
		programs_drop pgbench "no PostgreSQL server and postgres user here (make deps-bench)"
	fi
	mkdir -p "$in"
	files_of "$TREE" "$TREE_FILES" | tar -cf "$in/tree.tar" -C "$TREE" -T -
	mkdir -p "$in/tree" && tar -xf "$in/tree.tar" -C "$in/tree"
	mkdir -p "$in/gittree"
	files_of "$in/tree" "$GIT_FILES" | tar -cf - -C "$in/tree" -T - | tar -xf - -C "$in/gittree"
	{
		echo "PRAGMA journal_mode=WAL;"
		echo "PRAGMA synchronous=FULL;"
		echo "CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, v BLOB);"
		echo "CREATE INDEX tk ON t(k);"
		for i in $(seq "$SQL_TX"); do
			echo "BEGIN; INSERT INTO t(k, v) VALUES($((i * 7919 % 1000)), randomblob(300));" \
				"INSERT INTO t(k, v) VALUES($i, randomblob(1200));" \
				"UPDATE t SET k = k + 1 WHERE id = $(((i + 1) / 2)); COMMIT;"
		done
		echo "SELECT count(*) FROM t;"
	} >"$in/sql.txt"
	[[ " $PROGRAMS " != *" fio "* ]] || head -c $((FIO_MB * 1048576)) /dev/urandom >"$in/fio.dat"
	# a server's data directory with pgbench's tables, copied before
	# each run: every run starts the server on the same files
	if [[ " $PROGRAMS " == *" pgbench "* ]]; then
		mkdir -p "$in/pg" "$PG_SOCK"
		chown postgres: "$in/pg" "$PG_SOCK"
		if ! { pg initdb -D "$in/pg/data" >"$in/pg.log" 2>&1 &&
			pg pg_ctl -D "$in/pg/data" -o "-p $PG_PORT -k $PG_SOCK" -w -l "$PG_SOCK/server.log" start >/dev/null &&
			pg pgbench -h "$PG_SOCK" -p "$PG_PORT" -i -q -s "$PG_SCALE" postgres >>"$in/pg.log" 2>&1 &&
			pg pg_ctl -D "$in/pg/data" -w stop >/dev/null; }; then
			pg_stop "$in/pg/data"
			programs_drop pgbench "no database made: $(tail -n 2 "$in/pg.log" | tr '\n' ' ')"
		fi
	fi
	echo "inputs: $(files_of "$in/tree" 999999 | wc -l) files, $(du -sm "$in/tree" | cut -f1) MiB in the tree;" \
		"$(files_of "$in/gittree" 999999 | wc -l) for git; $SQL_TX sqlite transactions; $FIO_IOS fio I/Os"
}

# programs_prepare PROG DIR: DIR as PROG expects to find it before a run
# (a fresh directory).
programs_prepare() {
	rm -rf "$2" && mkdir -p "$2"
	case $1 in
	git) cp -a "$in/gittree/." "$2/" ;;
	fio) cp "$in/fio.dat" "$2/data" ;;
	pgbench) cp -a "$in/pg/data" "$2/data" ;;
	esac
}

# programs_cmd PROG DIR: PROG's command line (in cmd), working in DIR:
# tar -xf, cp -a and rsync -a of the tree into DIR, git init, add,
# commit and gc, sqlite3, the multi-threaded writer, fio's randrw, a
# PostgreSQL server from its start to its stop around pgbench (4 clients,
# 2 threads, PG_LOAD).
programs_cmd() {
	# cmd is this function's answer, run by its caller
	# shellcheck disable=SC2034
	case $1 in
	tar) cmd=(tar -xf "$in/tree.tar" -C "$2") ;;
	cp) cmd=(cp -a "$in/tree" "$2/copy") ;;
	rsync) cmd=(rsync -a "$in/tree/" "$2/copy/") ;;
	git) cmd=(sh -c "cd $2 && git init -q && git add -A &&
		git -c user.name=riot -c user.email=riot@localhost commit -qm tree && git gc -q") ;;
	sqlite) cmd=(sqlite3 -batch "$2/db.sqlite" ".read $in/sql.txt") ;;
	writer) cmd=("$BIN/demo_workload" --dir "$2" --threads "$WRITER_THREADS" --files "$WRITER_FILES") ;;
	fio) fio_randrw "$2/data" "$FIO_MB" "$FIO_IOS"; cmd=("${fio_cmd[@]}") ;;
	pgbench) cmd=(runuser -u postgres -- sh -c "'$PGBIN/pg_ctl' -D '$2/data' -o '-p $PG_PORT -k $PG_SOCK' \
		-w -l '$PG_SOCK/server.log' start >/dev/null &&
		'$PGBIN/pgbench' -h '$PG_SOCK' -p $PG_PORT -c 4 -j 2 $PG_LOAD postgres >/dev/null; rc=\$?;
		'$PGBIN/pg_ctl' -D '$2/data' -w stop >/dev/null; exit \$rc") ;;
	esac
}

# make_big_tar OUT N: a tarball of N files of mixed sizes (0 to 64 KiB, the
# same ones each time) in 200 directories, for tar -xf.
make_big_tar() {
	local src
	src=$(mktemp -d "${TMPDIR:-/var/tmp}/riot-bigtar.XXXXXX")
	python3 - "$src" "$2" <<'PY'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
random.seed(1)
for i in range(n):
    d = os.path.join(root, "d%03d" % (i % 200))
    os.makedirs(d, exist_ok=True)
    size = random.choice([0, 100, 1000, 4096, 10000, 65536])
    with open(os.path.join(d, "f%06d" % i), "wb") as f:
        f.write(os.urandom(size))
PY
	tar -C "$src" -cf "$1" .
	rm -rf "$src"
}
