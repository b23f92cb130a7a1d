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
