#!/usr/bin/env bash
# test_compare_layout: `riot compare` reads at a glance. On logs whose every
# latency is known (mklog): full labels in the column heads, one "ratio"
# column per run beside it, every line within 120 columns for two runs and
# in blocks for more; winners only beyond noise (5 % without repeats, the
# spread of repeats when a label repeats across databases), "within noise"
# below, "-" and no winner for a call one run lacks; times in one unit
# style; fidelity only against the capture of the replay's own log (two
# captures in one database). Needs no root.
# test-unit: needs neither root nor BPF
set -u
: "${RIOT:?RIOT must name the riot binary}" "${BIN:?BIN must name the test tools directory}"
T=$(mktemp -d /tmp/riot-compare-layout.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# mk NAME DUR [EXTRA]: 10 reads of 4096 bytes taking DUR ns each, 10 fsyncs
# of 10*DUR ns; EXTRA adds an lseek (a call the other logs lack).
mk() {
	{
		echo "snap_proc pid=100 cwd=/d"
		echo "openat dirfd=AT_FDCWD path=/d/f flags=O_RDWR ret=3 size=65536 ftype=reg created=0 dur=1000"
		for i in 0 1 2 3 4 5 6 7 8 9; do
			echo "read fd=3 count=4096 ret=4096 dur=$2"
			echo "fsync fd=3 dur=$(($2 * 10))"
		done
		[ -n "${3:-}" ] && echo "lseek fd=3 off=0 ret=0 dur=300"
		echo "close fd=3 dur=1000"
	} | "$BIN/mklog" -o "$T/$1.riot" || fail "mklog $1"
}
mk base 1000
mk near 1030		# 3 % slower: within noise
mk slow 2000 lseek	# twice as slow, and an lseek
"$RIOT" report "$T/base.riot" -o "$T/r.db" --label ext4-uring-s0 >/dev/null || fail "report base"
"$RIOT" report "$T/near.riot" -o "$T/r.db" --label ext4-uring-s1 >/dev/null || fail "report near"
"$RIOT" report "$T/slow.riot" -o "$T/r.db" --label xfs-uring-s0-with-a-longer-label >/dev/null ||
	fail "report slow"

"$RIOT" compare "$T/r.db" ext4-uring-s0 ext4-uring-s1 >"$T/two.txt" || fail "compare two"
"$RIOT" compare "$T/r.db" ext4-uring-s0 xfs-uring-s0-with-a-longer-label >"$T/slow.txt" ||
	fail "compare slow"
"$RIOT" compare "$T/r.db" ext4-uring-s0 xfs-uring-s0-with-a-longer-label --json >"$T/slow.json" ||
	fail "compare slow --json"

# two runs: every line within 120 columns, labels in full, one ratio column
for f in two slow; do
	awk -v f=$f 'length($0) > 120 { print f ": " length($0) " columns: " $0; bad = 1 } END { exit bad }' \
		"$T/$f.txt" || fail "lines over 120 columns"
done
grep -Eq '^  class +metric +ext4-uring-s0 +ext4-uring-s1 +ratio +winner$' "$T/two.txt" ||
	fail "class head: $(grep '^  class' "$T/two.txt")"
# a label longer than a column is named by its key there, in full above
grep -Eq '^  class +metric +ext4-uring-s0 +#2 +ratio +winner$' "$T/slow.txt" ||
	fail "class head with a 32-byte label: $(grep '^  class' "$T/slow.txt")"
grep -Eq '^  #2 xfs-uring-s0-with-a-longer-label: capture of log [0-9a-f]{12}, ' "$T/slow.txt" ||
	fail "the runs list: $(head -5 "$T/slow.txt")"

# the data_read rows of two: 3 % apart, within noise; p50 within noise too
sed -n '/^per class/,/^$/p' "$T/two.txt" >"$T/two-class.txt"
grep -A4 '^  data_read ' "$T/two-class.txt" | grep -Eq '^ +p50 +1\.0 us +1\.0 us +1\.0[0-9]{2} +within noise$' ||
	fail "data_read p50 row: $(cat "$T/two-class.txt")"
grep -A4 '^  data_read ' "$T/two-class.txt" | grep -Eq '^ +total time +10\.0 us +10\.3 us +1\.030 +within noise$' ||
	fail "data_read total time row: $(cat "$T/two-class.txt")"
grep -q 'tie' "$T/two.txt" && fail "a tie is called"

# slow: twice the time; the lseek only the slow log has gets "-" and no
# winner; the winner column names a label longer than the column by its key
sed -n '/^per syscall/,/^$/p' "$T/slow.txt" >"$T/slow-sys.txt"
grep -A4 '^  read ' "$T/slow-sys.txt" | grep -Eq '^ +total time +10\.0 us +20\.0 us +2\.000  ext4-uring-s0$' ||
	fail "read total time: $(cat "$T/slow-sys.txt")"
grep -Eq '^  read +ops/s +1000000\.0 +500000\.0 +0\.500  ext4-uring-s0$' "$T/slow-sys.txt" ||
	fail "read ops/s over the time in reads: $(cat "$T/slow-sys.txt")"
grep -A4 '^  fsync ' "$T/slow-sys.txt" | grep -Eq '^ +p50 +10\.[01] us +20\.[0-3] us +2\.0[0-9]{2}  ext4-uring-s0$' ||
	fail "fsync p50: $(cat "$T/slow-sys.txt")"
grep -Eq '^  lseek +ops/s +- +[0-9.]+ +-  -$' "$T/slow-sys.txt" ||
	fail "lseek, which one run lacks: $(grep -A4 '^  lseek' "$T/slow-sys.txt")"
python3 - "$T/slow.json" <<'PY' || fail "JSON verdicts"
import json, sys
c = json.load(open(sys.argv[1]))
bad = []
def eq(what, got, want):
    if got != want:
        bad.append(f"{what}: got {got!r}, want {want!r}")
eq("groups", [g["label"] for g in c["groups"]], ["ext4-uring-s0", "xfs-uring-s0-with-a-longer-label"])
l = c["syscalls"]["lseek"]
for m in ("ops/s", "p50", "p99", "total time"):
    eq(f"lseek {m} verdict", l[m]["verdict"], "not comparable")
    eq(f"lseek {m} winner", l[m]["winner"], None)
    eq(f"lseek {m} first value", l[m]["values"][0], None)
eq("read total time", c["syscalls"]["read"]["total time"]["values"], [10000, 20000])
eq("read total winner", c["syscalls"]["read"]["total time"]["winner"], "ext4-uring-s0")
eq("data_read MiB/s", c["classes"]["data_read"]["MiB/s"]["values"], [40960e9 / 1e4 / 1048576, 40960e9 / 2e4 / 1048576])
eq("no fidelity between captures", c["fidelity"], [])
if bad:
    print("\n".join(bad)); sys.exit(1)
PY

# times in one style: "812 ns", "12.3 us", "4.56 ms", "1.23 s"; nothing glued
# (the temporary directory's random name, where the output shows it, is
# not a time: "riot-compare-it.x5s/..." once failed this)
cat "$T/slow.txt" "$T/two.txt" | sed "s|$T||g" | grep -Eo '[0-9.]+ ?(ns|us|ms|s)\b' |
	grep -Ev '^([0-9]+ ns|[0-9]+\.[0-9] us|[0-9]+\.[0-9]{2} ms|[0-9]+\.[0-9]{2} s)$' &&
	fail "times not in the one style"

# repeats: the same label in three databases is one column, its median
# with its spread; its spread (10 %) is the noise
mk f1 1000; mk f2 1100; mk f3 1050; mk s1 1150; mk s2 1400
for i in 1 2 3; do
	"$RIOT" report "$T/f$i.riot" -o "$T/rep$i.db" --label fast >/dev/null || fail "report f$i"
done
"$RIOT" report "$T/s1.riot" -o "$T/rep1.db" --label close >/dev/null || fail "report s1"
"$RIOT" report "$T/s2.riot" -o "$T/rep2.db" --label slower >/dev/null || fail "report s2"
"$RIOT" compare "$T/rep1.db" fast close "$T/rep2.db" fast slower "$T/rep3.db" fast >"$T/rep.txt" ||
	fail "compare repeats"
awk 'length($0) > 120 { print length($0) ": " $0; bad = 1 } END { exit bad }' "$T/rep.txt" ||
	fail "repeats: lines over 120 columns"
grep -Eq '^  class +metric +fast +close +ratio +slower +ratio +winner$' "$T/rep.txt" ||
	fail "repeats head: $(grep '^  class' "$T/rep.txt")"
# read total time: fast 10.0/11.0/10.5 us -> 10.5 us ±10 %; close 11.5 us is
# 8.7 % off, within fast's spread: no winner among the three
grep -A4 '^  read ' "$T/rep.txt" | grep -Eq '^ +total time +10\.5 us ±10% +11\.5 us +1\.095 +14\.0 us +1\.333  within noise$' ||
	fail "repeats read row: $(grep -A5 '^  read' "$T/rep.txt")"
"$RIOT" compare "$T/rep1.db" fast close "$T/rep2.db" fast "$T/rep3.db" fast --json >"$T/rep2.json" ||
	fail "compare repeats --json"
python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
t = c["syscalls"]["read"]["total time"]
assert t["values"] == [10500, 11500], t
assert t["verdict"] == "within noise", t
assert [g["runs"] for g in c["groups"]] == [3, 1], c["groups"]
' "$T/rep2.json" || fail "repeats: close is within the noise"
# slower (14.0 us) is beyond the spread and fast's range: fast wins
"$RIOT" compare "$T/rep1.db" fast "$T/rep2.db" fast slower "$T/rep3.db" fast --json >"$T/rep3.json" ||
	fail "compare repeats 3"
python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["syscalls"]["read"]["total time"]
assert t["values"] == [10500, 14000] and t["winner"] == "fast", t
' "$T/rep3.json" || fail "repeats: slower is beyond the noise"

# more runs than fit: blocks, each with the baseline first, within 120
mk b4 1200; mk b5 1300; mk b6 1500
for n in 4 5 6; do
	"$RIOT" report "$T/b$n.riot" -o "$T/r.db" --label "filesystem-$n-nvme" >/dev/null || fail "report b$n"
done
"$RIOT" compare "$T/r.db" >"$T/all.txt" || fail "compare all"
awk 'length($0) > 120 { print length($0) ": " $0; bad = 1 } END { exit bad }' "$T/all.txt" ||
	fail "six runs: lines over 120 columns"
heads=$(grep -c '^  class ' "$T/all.txt")
[ "$heads" -ge 2 ] || fail "six runs in $heads block(s)"
[ "$(grep -Ec '^  class +metric +ext4-uring-s0 ' "$T/all.txt")" -eq "$heads" ] ||
	fail "a block without the baseline first: $(grep '^  class ' "$T/all.txt")"
for l in ext4-uring-s1 '#3' filesystem-4-nvme filesystem-5-nvme filesystem-6-nvme; do
	[ "$(grep '^  class ' "$T/all.txt" | grep -c -- " $l ")" = 1 ] || fail "$l not in one block head"
done

# fidelity: two captures in one database, a replay of the second is
# measured against it only
"$BIN/replay_gen" order -n 2 -o "$T/a.riot" || fail "replay_gen a"
"$BIN/replay_gen" order -n 3 -o "$T/b.riot" || fail "replay_gen b"
"$RIOT" report "$T/a.riot" -o "$T/f.db" --label cap-a >/dev/null || fail "report a"
"$RIOT" report "$T/b.riot" -o "$T/f.db" --label cap-b >/dev/null || fail "report b"
"$RIOT" replay "$T/b.riot" --root "$T/root" --report "$T/f.db" --label rep-b >"$T/out" 2>&1 ||
	fail "replay b: $(cat "$T/out")"
"$RIOT" compare "$T/f.db" --json >"$T/f.json" || fail "compare fidelity --json"
"$RIOT" compare "$T/f.db" >"$T/f.txt" || fail "compare fidelity"
python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
pairs = [(f["capture"], f["replay"]) for f in c["fidelity"]]
assert pairs == [("cap-b", "rep-b")], pairs
f = c["fidelity"][0]
assert f["classes"]["all"]["captured"] == f["classes"]["all"]["replayed"], f["classes"]["all"]
' "$T/f.json" || fail "fidelity pairs"
[ "$(grep -c '^fidelity of ' "$T/f.txt")" = 1 ] && grep -q '^fidelity of rep-b against cap-b ' "$T/f.txt" ||
	fail "fidelity text: $(grep '^fidelity' "$T/f.txt")"
# bytes humanized in the fidelity totals
grep -Eq '^  total: [0-9]+ of [0-9]+ operations replayed; read [0-9.]+ KiB of [0-9.]+ KiB, written [0-9.]+ KiB of [0-9.]+ KiB$' "$T/f.txt" ||
	fail "fidelity totals: $(grep '^  total' "$T/f.txt")"
echo ok
