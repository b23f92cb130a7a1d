#!/usr/bin/env bash
# test_report_flame: flamegraph stacks and think time of a log of known
# content (mklog). riot report --folded writes exact folded lines by count,
# time and bytes, their count sum is riot info's syscalls; --max-stacks
# folds the lighter stacks into (other) frames, the sum kept; riot dump
# shows each call's gap_ns, riot info the I/O-bound rule's figures, the
# report the gaps per class; the HTML page holds the flamegraph data inline
# and names nothing outside it, and a browser draws its frames. Then a
# real capture (tar -xf of a small tree): its count-weighted stacks sum to
# its syscalls.
. "$(dirname "$0")/lib.sh"
T=$IT_TMP

# pid 100 (comm tar) reads /d/a twice and writes /d/b; its thread 101 stats
# /d/c; pid 200 (comm gz) reads /d/a once. t and dur are exact, so gaps are.
"$BIN/mklog" -o "$T/k.riot" <<'EOF' || fail "mklog"
snap_proc pid=100 cwd=/d comm=tar
snap_proc pid=200 cwd=/ comm=gz
openat pid=100 dirfd=AT_FDCWD path=a flags=O_RDONLY ret=3 size=8192 ftype=reg created=0 t=1000 dur=500
read pid=100 fd=3 count=4096 ret=4096 t=2000 dur=300
read pid=100 fd=3 count=4096 ret=100 t=3000 dur=200
newfstatat pid=100 tid=101 dirfd=AT_FDCWD path=/d/c ret=0 ftype=reg size=1 t=3100 dur=100
openat pid=100 dirfd=AT_FDCWD path=b flags=O_WRONLY|O_CREAT mode=420 ret=4 size=0 ftype=reg created=1 t=4000 dur=1000
write pid=100 fd=4 count=50 ret=50 t=6000 dur=400
openat pid=200 dirfd=AT_FDCWD path=/d/a flags=O_RDONLY ret=3 size=8192 ftype=reg created=0 t=7000 dur=100
read pid=200 fd=3 count=10 ret=10 t=7200 dur=50
EOF
"$RIOT" report "$T/k.riot" --folded "$T/count.folded" >"$T/out" 2>&1 || fail "report --folded: $(cat "$T/out")"
cat >"$T/want" <<'EOF'
gz;openat;d;a 1
gz;read;d;a 1
tar;newfstatat;d;c 1
tar;openat;d;a 1
tar;openat;d;b 1
tar;read;d;a 2
tar;write;d;b 1
EOF
diff -u "$T/want" "$T/count.folded" || fail "folded by count"
"$RIOT" report "$T/k.riot" --folded - --weight time >"$T/time.folded" || fail "--weight time"
printf '%s\n' "gz;openat;d;a 100" "gz;read;d;a 50" "tar;newfstatat;d;c 100" "tar;openat;d;a 500" \
	"tar;openat;d;b 1000" "tar;read;d;a 500" "tar;write;d;b 400" >"$T/want"
diff -u "$T/want" "$T/time.folded" || fail "folded by time"
"$RIOT" report "$T/k.riot" --folded - --weight bytes >"$T/bytes.folded" || fail "--weight bytes"
printf '%s\n' "gz;read;d;a 10" "tar;read;d;a 4196" "tar;write;d;b 50" >"$T/want"
diff -u "$T/want" "$T/bytes.folded" || fail "folded by bytes"
# count-weighted stacks sum to the syscalls riot info counts
sum=$(awk '{s += $NF} END {print s}' "$T/count.folded")
ops=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(d["ops"].values()), d["syscalls"])' <("$RIOT" info --json "$T/k.riot"))
[ "$ops" = "$sum $sum" ] || fail "stacks sum $sum, info says '$ops'"
# the cap: the 2 heaviest by count kept (tar;read;d;a 2, then by key), the
# others folded under the longest beginning they share with them
"$RIOT" report "$T/k.riot" --folded - --max-stacks 2 >"$T/cap.folded" || fail "--max-stacks"
[ "$(awk '{s += $NF} END {print s}' "$T/cap.folded")" = 8 ] || fail "the cap lost calls: $(cat "$T/cap.folded")"
grep -qx 'tar;read;d;a 2' "$T/cap.folded" || fail "the heaviest stack is not kept: $(cat "$T/cap.folded")"
[ "$(grep -c '(other)' "$T/cap.folded")" -ge 1 ] || fail "no (other) frame: $(cat "$T/cap.folded")"
[ "$(wc -l <"$T/cap.folded")" -le 6 ] || fail "the cap kept too many lines: $(cat "$T/cap.folded")"
"$RIOT" report "$T/k.riot" --folded - --max-stacks 1 >"$T/cap1.folded" || fail "--max-stacks 1"
printf '%s\n' "(other) 2" "tar;(other) 4" "tar;read;d;a 2" >"$T/want"
diff -u "$T/want" "$T/cap1.folded" || fail "folded with a cap of 1"
usage_error() { # a usage error: exit 2, its reason on stderr's first line
	"$@" >/dev/null 2>"$T/err.txt"
	[ $? -eq 2 ] || fail "$* did not exit 2"
	head -n 1 "$T/err.txt"
}
usage_error "$RIOT" report "$T/k.riot" --folded - --weight nope | grep -q 'count, time or bytes' ||
	fail "a bad --weight"
usage_error "$RIOT" report "$T/k.riot" --folded - --max-stacks 0 | grep -q 'max-stacks' ||
	fail "--max-stacks 0"

# think time: gap_ns since the same thread's previous call ended
"$RIOT" dump --type syscall "$T/k.riot" >"$T/dump.txt" || fail "dump"
got=$(awk '{g = "-"; for (i = 1; i <= NF; i++) if ($i ~ /^gap_ns=/) g = substr($i, 8); printf "%s ", g}' "$T/dump.txt")
[ "$got" = "- 500 700 - 800 1000 - 100 " ] || fail "gap_ns: '$got'"
"$RIOT" dump --format csv --type syscall "$T/k.riot" >"$T/dump.csv" || fail "dump csv"
python3 - "$T/dump.csv" <<'PY' || fail "gap_ns in CSV"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert rows[0][-1] == "gap_ns" and rows[0][:3] == ["type", "t", "op"], rows[0]
assert [r[-1] for r in rows[1:]] == ["", "500", "700", "", "800", "1000", "", "100"], rows
PY
"$RIOT" dump --format jsonl --type syscall "$T/k.riot" | python3 -c '
import json, sys
g = [json.loads(l).get("gap_ns") for l in sys.stdin]
assert g == [None, 500, 700, None, 800, 1000, None, 100], g' || fail "gap_ns in JSON lines"
# in calls: 500+300+200+100+1000+400+100+50 = 2650; between: 3100
"$RIOT" info "$T/k.riot" | grep -qx 'workload:    think-bound: 46.1 % of thread time in calls (2.6 us), 53.9 % between them (3.1 us)' ||
	fail "info's workload line: $("$RIOT" info "$T/k.riot" | grep workload)"
got=$("$RIOT" info --json "$T/k.riot" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["time_in_calls_ns"], d["time_between_calls_ns"], d["bound"])')
[ "$got" = "2650 3100 think" ] || fail "info --json: $got"

# the report: gaps per class (data_read: 500, 700, 100; data_write: 1000;
# metadata: 800), the stacks table
"$RIOT" report "$T/k.riot" -o "$T/r.db" --label k >/dev/null || fail "report"
got=$(sqlite3 "$T/r.db" "SELECT class || ':' || gap_count || ':' || gap_sum_ns FROM classes WHERE gap_count IS NOT NULL ORDER BY class" | tr '\n' ' ')
[ "$got" = "all:5:3100 data_read:3:1300 data_write:1:1000 metadata:1:800 " ] || fail "classes' gaps: $got"
got=$(sqlite3 "$T/r.db" "SELECT sum(count), sum(time_ns), sum(bytes), count(*) FROM stacks")
[ "$got" = "8|2650|4256|7" ] || fail "stacks table: $got"
"$RIOT" report show "$T/r.db" | grep -q 'think before' || fail "report show has no think time table"
"$RIOT" report show "$T/r.db" --html "$T/page.html" >/dev/null || fail "report show --html"
grep -qF '["tar;read;d;a",2,500,4196]' "$T/page.html" || fail "the page lacks the flamegraph data"
grep -Eo '(src|href)=|<script[^>]|<link|<img|@import|url\(|fetch\(|XMLHttpRequest|import\(' "$T/page.html" &&
	fail "the page loads external assets"
[ "$(grep -Eo 'https?://[^"]*' "$T/page.html" | sort -u)" = "http://www.w3.org/2000/svg" ] ||
	fail "the page names URLs"
# compare: one flamegraph per run, side by side
"$RIOT" report "$T/k.riot" -o "$T/r.db" --label k2 >/dev/null || fail "report k2"
"$RIOT" compare "$T/r.db" --html "$T/cmp.html" >/dev/null || fail "compare --html"
[ "$(grep -c 'riotFlame("fg' "$T/cmp.html")" = 2 ] || fail "compare's page lacks a run's flamegraph"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$CHROMIUM" ]; then
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$T/profile" --dump-dom "file://$T/page.html" >"$T/dom.html" 2>/dev/null ||
		fail "chromium"
	# all; tar, gz; their 6 syscalls; d under each; 7 files under those
	n=$(grep -o 'class="fr"' "$T/dom.html" | wc -l)
	[ "$n" = 22 ] || fail "the browser drew $n frames, not 22"
	grep -q '>8 calls<' "$T/dom.html" || fail "the flamegraph's total is not 8 calls"
fi

# a real capture: tar -xf of a small tree
if [ "$(id -u)" = 0 ]; then
	mkdir -p "$T/src/x/y" "$T/xout"
	for i in 1 2 3 4 5; do echo "file $i" >"$T/src/x/f$i"; echo "deep $i" >"$T/src/x/y/g$i"; done
	tar -cf "$T/t.tar" -C "$T/src" x || fail "tar -cf"
	"$RIOT" capture -q -o "$T/cap.riot" -- tar -xf "$T/t.tar" -C "$T/xout" >"$T/out.txt" 2>&1 ||
		fail "capture: $(cat "$T/out.txt")"
	"$RIOT" report "$T/cap.riot" --folded "$T/cap.folded" || fail "report of the capture"
	sum=$(awk '{s += $NF} END {print s}' "$T/cap.folded")
	ops=$("$RIOT" info --json "$T/cap.riot" | python3 -c 'import json,sys; print(sum(json.load(sys.stdin)["ops"].values()))')
	[ "$sum" = "$ops" ] || fail "the capture's stacks sum to $sum, info counts $ops"
	grep -q '^tar;openat;.*;xout;x;y;g3 1$' "$T/cap.folded" || fail "no stack of g3's open: $(grep g3 "$T/cap.folded")"
fi
echo PASS
