#!/usr/bin/env bash
# tests/fuzz/run.sh BUILD_DIR SECONDS: seeds the corpora with small logs of
# every shape from genlog, the golden logs of every format version and the
# hostile cases under tests/hostile, then
# runs each fuzz target (log reader, strace importer, replay and init
# planners, the same from mklog text) for SECONDS. Exits non-zero when a fuzzer finds a crash, leak or
# sanitizer report (the input is kept as BUILD_DIR/fuzz/crash-*).
set -eu
build=${1:?usage: run.sh BUILD_DIR SECONDS}
seconds=${2:?usage: run.sh BUILD_DIR SECONDS}
fuzzer=$build/fuzz/fuzz_reader
genlog=$build/bin/genlog
hostile=$(cd "$(dirname "$0")/../hostile" && pwd)
corpus=$build/fuzz/corpus
[ -x "$fuzzer" ] || { echo "run.sh: $fuzzer is not built" >&2; exit 1; }
[ -x "$genlog" ] || { echo "run.sh: $genlog is not built" >&2; exit 1; }
mkdir -p "$corpus"
seed=1
for shape in seqread mixed all; do
	for n in 5 60 300; do
		for bb in 0 400; do
			"$genlog" -o "$corpus/seed-$shape-$n-$bb.riot" -n $n --shape $shape \
				--seed $seed --block-bytes $bb
			# nearly uncompressed blocks: mutations land on record bytes
			"$genlog" -o "$corpus/raw-$shape-$n-$bb.riot" -n $n --shape $shape \
				--seed $seed --block-bytes $bb --zstd-level -100000
			seed=$((seed + 1))
		done
	done
done
# the hostile and extreme logs of tests/hostile (huge counts, fifos, the
# root's marker, symlinks out of the root)
mklog=$build/bin/mklog
[ -x "$mklog" ] || { echo "run.sh: $mklog is not built" >&2; exit 1; }
for f in "$hostile"/*.mklog; do
	"$mklog" -o "$corpus/hostile-$(basename "$f" .mklog).riot" "$f"
done
# the golden logs: every format version a reader still reads (1.5 to 2.0)
for f in "$hostile"/../golden/*.riot; do
	cp "$f" "$corpus/golden-$(basename "$f")"
done
# a log cut inside its last block, and one cut before its end record
head -c 1500 "$corpus/seed-mixed-300-400.riot" >"$corpus/cut-inside.riot"
head -c 100 "$corpus/seed-seqread-5-0.riot" >"$corpus/cut-header.riot"
# the hostile logs made byte by byte: blocks swapped, a record-count bomb,
# terminal controls in the header
python3 "$hostile/mkhostile.py" swap "$corpus/hostile-swap.riot" "$corpus/seed-mixed-300-400.riot"
python3 "$hostile/mkhostile.py" bomb "$corpus/hostile-bomb.riot"
python3 "$hostile/mkhostile.py" rehead "$corpus/hostile-escape-header.riot" \
	"$corpus/hostile-escape.riot"
"$fuzzer" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 \
	-artifact_prefix="$build/fuzz/" -print_final_stats=1 "$corpus" 2>"$build/fuzz/log.txt" || {
	tail -n 60 "$build/fuzz/log.txt"
	echo "fuzz: the reader failed on an input, kept in $build/fuzz/" >&2
	exit 1
}
grep -E '^stat::number_of_executed_units|^Done' "$build/fuzz/log.txt" || true

# The strace importer's target: seeded with strace output of every shape
# the importer reads (prefixes, -yy notes, unfinished/resumed, exits).
strace_fuzzer=$build/fuzz/fuzz_strace
strace_corpus=$build/fuzz/corpus-strace
[ -x "$strace_fuzzer" ] || { echo "run.sh: $strace_fuzzer is not built" >&2; exit 1; }
mkdir -p "$strace_corpus"
cat >"$strace_corpus/seed-f-o.txt" <<'TRACE'
100 1700000000.000001 execve("/bin/sh", ["sh"], 0x7ffd /* 3 vars */) = 0 <0.000100>
100 1700000000.000200 openat(AT_FDCWD</w>, "a\"b\x41", O_RDWR|O_CREAT|O_TRUNC, 0644) = 3</w/aA> <0.000010>
100 1700000000.000300 pread64(3</w/aA>, "ab"..., 4096, 0) = 2 <0.000002>
100 1700000000.000400 read(5</dev/null<char 1:3>>, "", 10) = 0 <0.000001>
100 1700000000.000500 clone(child_stack=NULL, flags=CLONE_VM|CLONE_THREAD|CLONE_FILES|SIGCHLD, parent_tid=[101]) = 101 <0.000050>
101 1700000000.000600 write(3</w/aA>, "x", 1 <unfinished ...>
100 1700000000.000700 vfork( <unfinished ...>
102 1700000000.000800 chdir("/tmp") = 0 <0.000001>
100 1700000000.000900 <... vfork resumed>) = 102 <0.000200>
101 1700000000.001000 <... write resumed>) = 1 <0.000400>
102 1700000000.001100 unlinkat(AT_FDCWD</tmp>, "x", 0) = -1 ENOENT (No such file or directory) <0.000001>
102 1700000000.001200 --- SIGTERM {si_signo=SIGTERM, si_code=SI_USER} ---
102 1700000000.001300 +++ killed by SIGTERM +++
100 1700000000.001400 lseek(3</w/aA>, 0, SEEK_END) = 3 <0.000001>
100 1700000000.001500 close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) = 0 <0.000001>
100 1700000000.001600 exit_group(0) = ?
100 1700000000.001700 +++ exited with 0 +++
TRACE
cat >"$strace_corpus/seed-stderr.txt" <<'TRACE'
1700000000.000001 openat(AT_FDCWD, "x", O_RDONLY) = 3 <0.000010>
1700000000.000002 clone3({flags=CLONE_VM|CLONE_FS, exit_signal=SIGCHLD, stack=0x7f, stack_size=0x1000}, 88) = 7
[pid     7] 1700000000.000003 read(3, "abc", 3) = 3 <0.000001>
[pid     6] 1700000000.000004 set_tid_address(0x7f) = 6 <0.000001>
strace: Process 6 detached
TRACE
# many tasks, and clones pending while new tasks appear
python3 - "$strace_corpus/seed-tasks.txt" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for pid in range(200, 400):
        f.write(f"{pid} 1700000001.000000 close(7) = 0 <0.000001>\n")
    for pid in range(200, 300):
        f.write(f"{pid} 1700000002.000000 clone(child_stack=NULL, flags=SIGCHLD <unfinished ...>\n")
    for tid in range(1000, 1100):
        f.write(f"{tid} 1700000003.000000 close(8) = 0 <0.000001>\n")
    for pid in range(200, 400, 3):
        f.write(f"{pid} 1700000004.000000 +++ exited with 0 +++\n")
PY
"$strace_fuzzer" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 \
	-artifact_prefix="$build/fuzz/strace-" -print_final_stats=1 "$strace_corpus" \
	2>"$build/fuzz/log-strace.txt" || {
	tail -n 60 "$build/fuzz/log-strace.txt"
	echo "fuzz: the strace importer failed on an input, kept in $build/fuzz/" >&2
	exit 1
}
grep -E '^stat::number_of_executed_units|^Done' "$build/fuzz/log-strace.txt" || true

# The planners' target: log bytes through the model, the replay plan and
# the init plan (riot replay --dry-run). Seeded with the reader's logs and
# with record programs (inputs without the log magic, see fuzz_plan.c).
plan_fuzzer=$build/fuzz/fuzz_plan
plan_corpus=$build/fuzz/corpus-plan
[ -x "$plan_fuzzer" ] || { echo "run.sh: $plan_fuzzer is not built" >&2; exit 1; }
mkdir -p "$plan_corpus"
cp "$corpus"/seed-*-60-400.riot "$corpus"/hostile-*.riot "$plan_corpus/"
python3 - "$plan_corpus" <<'PY'
import random, sys
rng = random.Random(7)
for i in range(8):
    n = 64 << i % 5
    open(f"{sys.argv[1]}/program-{i}.bin", "wb").write(bytes(rng.randrange(256) for _ in range(n)))
PY
"$plan_fuzzer" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 \
	-artifact_prefix="$build/fuzz/plan-" -print_final_stats=1 "$plan_corpus" \
	2>"$build/fuzz/log-plan.txt" || {
	tail -n 60 "$build/fuzz/log-plan.txt"
	echo "fuzz: the replay or init planner failed on an input, kept in $build/fuzz/" >&2
	exit 1
}
grep -E '^stat::number_of_executed_units|^Done' "$build/fuzz/log-plan.txt" || true

# The mklog text target: the grammar of tests/bin/mklog.c built into logs
# for the model and the planners. Seeded with the hostile cases and a log
# of every record kind; its dictionary holds every record and syscall
# name, key and flag name, so mutations stay within the grammar.
text_fuzzer=$build/fuzz/fuzz_mklog
text_corpus=$build/fuzz/corpus-mklog
dict=$build/fuzz/mklog.dict
[ -x "$text_fuzzer" ] || { echo "run.sh: $text_fuzzer is not built" >&2; exit 1; }
mkdir -p "$text_corpus"
cp "$hostile"/*.mklog "$text_corpus/"
cat >"$text_corpus/seed-kinds.txt" <<'TEXT'
#!host\x1b]52;c;eA==\x07 6.1\xff riot\x00x
snap_proc pid=100 cwd=/w ppid=1 comm=sh
snap_fd pid=100 fd=3 path=/w/in flags=O_RDWR pos=10 size=8192 ftype=reg perm=644
proc_fork pid=100 child=101 flags=0x11
proc_exec pid=101 path=/bin/cat comm=cat
openat dirfd=AT_FDCWD path=../w/./a//b flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644 ret=4 size=0 ftype=reg created=1
pwrite64 fd=4 off=4096 count=4096 ret=4096
readlink path=/w/l path2=../../\{300*ab/} ret=900
symlink path=/w/s path2=/etc ret=0
rename path=/w/a path2=/w/b flags=RENAME_EXCHANGE ret=0
io_uring:read ctx=1 fd=3 off=0 count=4096 flags=IOSQE_IO_LINK ret=4096
stat path=/proc/self/fd/3 ret=-ENOENT
close fd=4 ret=0
drop count=5 cpu=1
proc_exit pid=101 code=0
TEXT
python3 - "$(dirname "$0")/../../bpf/syscalls.def" "$(dirname "$0")/../bin/mklog_text.h" >"$dict" <<'PY'
import re, sys
words = set(re.findall(r"RIOT_SYSCALL\((\w+)", open(sys.argv[1]).read()))
words |= set(re.findall(r'RIOT_ASYNC_OP\(\w+,\s*"([^"]+)"', open(sys.argv[1]).read()))
text = open(sys.argv[2]).read()
words |= set(re.findall(r'\{ "(\w+)", ', text))
words |= set(re.findall(r'strcmp\(k, "(\w+)"\)', text))
words |= set(re.findall(r'NUM\("(\w+)"', text))
words |= {"snap_proc", "snap_fd", "proc_fork", "proc_exec", "proc_exit", "drop",
          "=", "|", "-E", "\\x", "\\{", "*", "}", "!", "#!", "\n"}
for w in sorted(words):
    print('"%s"' % "".join("\\x%02x" % ord(ch) if ch in '\\"' or not ch.isprintable()
                           else ch for ch in w))
PY
"$text_fuzzer" -max_total_time="$seconds" -max_len=8192 -rss_limit_mb=2048 -dict="$dict" \
	-artifact_prefix="$build/fuzz/mklog-" -print_final_stats=1 "$text_corpus" \
	2>"$build/fuzz/log-mklog.txt" || {
	tail -n 60 "$build/fuzz/log-mklog.txt"
	echo "fuzz: a reader failed on a log made from text, kept in $build/fuzz/" >&2
	exit 1
}
grep -E '^stat::number_of_executed_units|^Done' "$build/fuzz/log-mklog.txt" || true
