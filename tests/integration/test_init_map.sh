#!/usr/bin/env bash
# test_init_map: --map sends a captured subtree to another directory, by
# whole components (/mnt/data never takes /mnt/data10), longest prefix
# first; each directory gets riot's marker. Needs no privilege.
# test-unit: needs neither root nor BPF
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/test_init_lib.bash"

LOG=$IT_TMP/map.riot
"$BIN/mklog" -o "$LOG" <<'EOF' || fail "mklog"
stat path=/etc/app.conf ret=0 size=100 ftype=reg
stat path=/mnt/data/db/table ret=0 size=8192 ftype=reg
stat path=/mnt/data10/other ret=0 size=10 ftype=reg
stat path=/mnt/data/db/wal/seg ret=0 size=4096 ftype=reg
readlink path=/mnt/data/latest path2=/mnt/data/db/table ret=18
stat path=/mnt/data ret=0 size=4096 ftype=dir
EOF
R=$IT_TMP/root D=$IT_TMP/data W=$IT_TMP/wal
"$RIOT" init "$LOG" --root "$R" --map /mnt/data="$D" --map /mnt/data/db/wal/="$W" \
	>"$IT_TMP/out" 2>"$IT_TMP/err" || fail "init exited $?: $(cat "$IT_TMP/err")"
expect_summary "$IT_TMP/out" 'init: 6 dirs, 4 files, 12398 bytes (12.1 KiB), 1 symlinks; removed 0; skipped: pseudo 0 special 0 truncated 0 no_target 0 hostile 0; failed 0;'

tree_of "$R" >"$IT_TMP/got"
diff -u - "$IT_TMP/got" <<'EOF' || fail "main root tree"
dir /etc
dir /mnt
dir /mnt/data10
file /etc/app.conf 100
file /mnt/data10/other 10
EOF
tree_of "$D" >"$IT_TMP/got"
diff -u - "$IT_TMP/got" <<'EOF' || fail "--map /mnt/data tree"
dir /db
file /db/table 8192
symlink /latest -> db/table
EOF
tree_of "$W" >"$IT_TMP/got"
diff -u - "$IT_TMP/got" <<'EOF' || fail "--map /mnt/data/db/wal tree"
file /seg 4096
EOF
for d in "$R" "$D" "$W"; do
	[ "$(head -n 1 "$d/.riot-root")" = "riot replay root" ] || fail "$d has no marker"
done
# the mapped dirs are not also made beneath the main root
[ ! -e "$R/mnt/data" ] || fail "$R/mnt/data exists: the map was not used"

# a map directory gets the same refusals as the root
N=$IT_TMP/notempty
mkdir -p "$N" && echo keep >"$N/file"
"$RIOT" init "$LOG" --root "$R" --map /mnt/data="$N" >"$IT_TMP/out" 2>"$IT_TMP/err" &&
	fail "init onto an unmarked, non-empty map dir succeeded"
grep -q "^riot: init: $N is not empty" "$IT_TMP/err" || fail "error: $(cat "$IT_TMP/err")"
[ "$(ls -A "$N")" = file ] || fail "$N was changed"
echo PASS
