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
