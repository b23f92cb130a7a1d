#!/usr/bin/env bash
# test_dump_names: summaries a person can read. `riot dump` names open
# flags, file types and errnos beside the raw numbers, `--type` keeps the
# record types asked for and `--limit` counts only the records shown; a
# replay's divergence examples name both errnos; `report show` of a replay
# as fast as possible prints no issue-delay table (it had no schedule), only
# the syscalls that diverged, and a paced replay keeps its issue delays.
# test-unit: needs neither root nor BPF
. "$(dirname "$0")/lib.sh"

LOG=$IT_TMP/d.riot
"$BIN/mklog" -o "$LOG" <<'EOF2' || fail "mklog"
snap_proc pid=100 cwd=/data
snap_fd pid=100 fd=5 path=/data/old flags=O_WRONLY|O_APPEND size=3 ftype=reg
openat dirfd=AT_FDCWD path=/data/in flags=O_RDWR|O_CREAT|O_CLOEXEC mode=420 ret=3 size=8192 ftype=reg created=0
openat dirfd=AT_FDCWD path=/data/s flags=0x4111042 ret=4
pread64 fd=3 off=0 count=4096 ret=4096
newfstatat dirfd=AT_FDCWD path=/data/l ret=0 ftype=lnk size=3
openat dirfd=AT_FDCWD path=/data/missing flags=O_RDONLY ret=-ENOENT
proc_exit pid=100 code=0
EOF2

"$RIOT" dump --type syscall,snap_fd "$LOG" >"$IT_TMP/dump.txt" || fail "dump --type"
cat >"$IT_TMP/want.txt" <<'EOF2'
snap_fd t=2000 pid=100 fd=5 file=1 path=/data/old flags=1025 flag_names=O_WRONLY|O_APPEND pos=0 size=3 ftype=32768 ftype_name=S_IFREG ino=0 dev=0
syscall t=3000 op=openat pid=100 tid=100 dur=500 ret=3 file=2 dirfd=-100 path=/data/in path_raw=/data/in flags=524354 flag_names=O_RDWR|O_CREAT|O_CLOEXEC mode=420 size=8192 ftype=32768 ftype_name=S_IFREG created=0
syscall t=4000 op=openat pid=100 tid=100 dur=500 gap_ns=500 ret=4 file=3 dirfd=-100 path=/data/s path_raw=/data/s flags=68227138 flag_names=O_RDWR|O_CREAT|O_DIRECTORY|O_SYNC|0400000000
syscall t=5000 op=pread64 pid=100 tid=100 dur=500 gap_ns=500 ret=4096 fd=3 file=2 path=/data/in off=0 count=4096
syscall t=6000 op=newfstatat pid=100 tid=100 dur=500 gap_ns=500 ret=0 dirfd=-100 path=/data/l path_raw=/data/l size=3 ftype=40960 ftype_name=S_IFLNK
syscall t=7000 op=openat pid=100 tid=100 dur=500 gap_ns=500 ret=-2 errno=ENOENT dirfd=-100 path=/data/missing path_raw=/data/missing flags=0 flag_names=O_RDONLY
EOF2
diff "$IT_TMP/want.txt" "$IT_TMP/dump.txt" || fail "dump --type syscall,snap_fd"

# --limit counts what is shown: the first two syscalls, not two records
"$RIOT" dump --type syscall --limit 2 "$LOG" >"$IT_TMP/lim.txt" || fail "dump --limit"
diff <(sed -n 2,3p "$IT_TMP/want.txt") "$IT_TMP/lim.txt" || fail "dump --type syscall --limit 2"
[ "$("$RIOT" dump --limit 3 "$LOG" | wc -l)" = 3 ] || fail "dump --limit 3"
[ "$("$RIOT" dump --type proc "$LOG")" = "proc kind=exit t=8000 pid=100 tid=100 exit_code=0" ] ||
	fail "dump --type proc: $("$RIOT" dump --type proc "$LOG")"
[ "$("$RIOT" dump --type string "$LOG" | wc -l)" = 6 ] || fail "dump --type string"

# the same names in CSV and JSON lines
"$RIOT" dump --format csv --type syscall --limit 1 "$LOG" >"$IT_TMP/d.csv" || fail "dump csv"
python3 - "$IT_TMP/d.csv" <<'PY' || fail "dump csv columns"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 1, rows
r = rows[0]
assert (r["flags"], r["flag_names"], r["ftype"], r["ftype_name"]) == \
    ("524354", "O_RDWR|O_CREAT|O_CLOEXEC", "32768", "S_IFREG"), r
PY
"$RIOT" dump --format jsonl --type syscall "$LOG" | tail -n 1 >"$IT_TMP/last.json"
python3 - "$IT_TMP/last.json" <<'PY' || fail "dump jsonl errno"
import json, sys
r = json.load(open(sys.argv[1]))
assert (r["ret"], r["errno"], r["flag_names"]) == (-2, "ENOENT", "O_RDONLY"), r
PY

usage() { # WHY ARGS...
	local rc
	"$RIOT" dump "${@:2}" >/dev/null 2>"$IT_TMP/err"
	rc=$?
	[ $rc = 2 ] || fail "$1: exit $rc, want 2"
}
usage "an unknown type" --type sycall "$LOG"
usage "an empty type list" --type , "$LOG"

# replays: a divergence names both errnos; a speed-0 run has no delay table
V=$IT_TMP/v.riot
"$BIN/mklog" -o "$V" <<'EOF2' || fail "mklog v"
openat dirfd=AT_FDCWD path=/w/secret/x flags=O_RDONLY ret=-ENOTDIR
openat dirfd=AT_FDCWD path=/w/gone flags=O_RDONLY ret=-ENOENT
stat path=/w/file ret=0 size=10 ftype=reg
EOF2
"$RIOT" replay "$V" --root "$IT_TMP/root" --report "$IT_TMP/v.db" --label fast >"$IT_TMP/fast.txt" ||
	fail "replay fast"
grep -qxF '    op 1 /w/secret/x: captured -20 ENOTDIR, replayed -2 ENOENT' "$IT_TMP/fast.txt" ||
	fail "divergence example: $(grep -A3 diverg "$IT_TMP/fast.txt")"
"$RIOT" replay "$V" --root "$IT_TMP/root" --report "$IT_TMP/v.db" --label paced --speed 1 \
	>/dev/null || fail "replay paced"
"$RIOT" report show "$IT_TMP/v.db" --run fast >"$IT_TMP/show_fast.txt" || fail "show fast"
grep -q 'issue delay' "$IT_TMP/show_fast.txt" && fail "speed 0: an issue-delay table"
diff <(grep -A2 '^  divergences' "$IT_TMP/show_fast.txt") - <<'EOF2' || fail "speed 0: divergences"
  divergences          result    bytes  skipped    other
  openat                    1        0        0        0

EOF2
"$RIOT" report show "$IT_TMP/v.db" --run paced >"$IT_TMP/show_paced.txt" || fail "show paced"
[ "$(grep -A3 '^  issue delay' "$IT_TMP/show_paced.txt" | awk 'NR > 1 && NF {print $1, $2, $(NF-3)}')" = \
  "openat 2 1
stat 1 0" ] || fail "paced: issue delays: $(grep -A3 'issue delay' "$IT_TMP/show_paced.txt")"

# a replay as fast as possible without divergences prints neither table
W=$IT_TMP/w.riot
"$BIN/mklog" -o "$W" <<'EOF2' || fail "mklog w"
stat path=/w/file ret=0 size=10 ftype=reg
EOF2
"$RIOT" replay "$W" --root "$IT_TMP/root2" --report "$IT_TMP/w.db" >/dev/null || fail "replay w"
"$RIOT" report show "$IT_TMP/w.db" >"$IT_TMP/show_w.txt" || fail "show w"
grep -qE 'issue delay|divergences' "$IT_TMP/show_w.txt" && fail "speed 0, no divergence: a table"
echo PASS
