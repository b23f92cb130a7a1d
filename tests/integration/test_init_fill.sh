#!/usr/bin/env bash
# test_init_fill: what --fill writes. zero: zeros; random (the default):
# incompressible, no two 4 KiB blocks alike, the same bytes on a re-run,
# other bytes with another --seed; compress:PCT: shrinks by about PCT %.
# Needs no privilege.
# test-unit: needs neither root nor BPF
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/test_init_lib.bash"

LOG=$IT_TMP/fill.riot
"$BIN/mklog" -o "$LOG" <<'EOF' || fail "mklog"
stat path=/f/big ret=0 size=4194304 ftype=reg
stat path=/f/odd ret=0 size=10001 ftype=reg
stat path=/f/twin ret=0 size=10001 ftype=reg
EOF

# props FILE: "saved_pct distinct_blocks total_blocks zero" (zlib level 6)
props() {
	python3 - "$1" <<'PY'
import sys, zlib
d = open(sys.argv[1], 'rb').read()
blocks = [d[i:i + 4096] for i in range(0, len(d) - 4095, 4096)]
saved = 100.0 * (1 - len(zlib.compress(d, 6)) / len(d))
print('%d %d %d %d' % (round(saved), len(set(blocks)), len(blocks), d.count(0) == len(d)))
PY
}

init_with() { # DIR ARGS...
	local dir=$1
	shift
	"$RIOT" init "$LOG" --root "$dir" "$@" >"$IT_TMP/out" 2>"$IT_TMP/err" ||
		fail "init $* exited $?: $(cat "$IT_TMP/err")"
	expect_summary "$IT_TMP/out" 'init: 1 dirs, 3 files, 4214306 bytes (4.0 MiB), 0 symlinks; removed 0; skipped: pseudo 0 special 0 truncated 0 no_target 0 hostile 0; failed 0;'
}

init_with "$IT_TMP/zero" --fill zero
cmp -s -n 4194304 "$IT_TMP/zero/f/big" /dev/zero || fail "--fill zero wrote non-zero bytes"
[ "$(props "$IT_TMP/zero/f/big")" = "100 1 1024 1" ] || fail "zero props: $(props "$IT_TMP/zero/f/big")"

init_with "$IT_TMP/rnd"
# each file was read and each directory listed once after the tree was
# made: under relatime its atime is newer than its mtime and ctime, so a
# replay's first read of it does not write its atime (noatime: no read
# changes it; a file's three times stay equal, a directory's atime older)
case ",$(findmnt -no OPTIONS -T "$IT_TMP/rnd")," in
*,noatime,*) want_atime=equal ;;
*) want_atime=newer ;;
esac
python3 - "$IT_TMP/rnd" "$want_atime" <<'PY' || fail "init's atimes"
import os, sys
root, want = sys.argv[1], sys.argv[2]
names = ("f", "f/big", "f/odd", "f/twin")
for n in names:
    s = os.stat(os.path.join(root, n))
    newer = s.st_atime_ns > s.st_mtime_ns and s.st_atime_ns > s.st_ctime_ns
    if want == "equal" and n == "f":
        want_n = "older"
        ok = s.st_atime_ns < s.st_mtime_ns
    else:
        want_n = want
        ok = newer if want == "newer" else s.st_atime_ns == s.st_mtime_ns
    if not ok:
        sys.exit("%s: atime %d mtime %d ctime %d, want atime %s" %
                 (n, s.st_atime_ns, s.st_mtime_ns, s.st_ctime_ns, want_n))
PY
read -r saved distinct total _ <<<"$(props "$IT_TMP/rnd/f/big")"
[ "$saved" -le 0 ] || fail "random data compressed by $saved %"
[ "$distinct" -eq 1024 ] && [ "$total" -eq 1024 ] || fail "random: $distinct distinct of $total blocks"
cmp -s "$IT_TMP/rnd/f/odd" "$IT_TMP/rnd/f/twin" && fail "two files of one size have the same bytes"
sum1=$(cat "$IT_TMP/rnd/f/big" "$IT_TMP/rnd/f/odd" | md5sum)
init_with "$IT_TMP/rnd"
[ "$(cat "$IT_TMP/rnd/f/big" "$IT_TMP/rnd/f/odd" | md5sum)" = "$sum1" ] || fail "a re-run wrote other bytes"
init_with "$IT_TMP/rnd2" --fill random
[ "$(cat "$IT_TMP/rnd2/f/big" "$IT_TMP/rnd2/f/odd" | md5sum)" = "$sum1" ] || fail "--fill random is not the default"
init_with "$IT_TMP/seed" --seed 7
[ "$(cat "$IT_TMP/seed/f/big" "$IT_TMP/seed/f/odd" | md5sum)" != "$sum1" ] || fail "--seed 7 changed nothing"

for pct in 25 50 75; do
	init_with "$IT_TMP/c$pct" --fill compress:$pct
	read -r saved distinct total _ <<<"$(props "$IT_TMP/c$pct/f/big")"
	[ "$saved" -ge $((pct - 10)) ] && [ "$saved" -le $((pct + 10)) ] ||
		fail "compress:$pct saved $saved %"
	[ "$distinct" -eq 1024 ] || fail "compress:$pct: $distinct distinct of 1024 blocks"
done

"$RIOT" init "$LOG" --root "$IT_TMP/bad" --fill compress:101 >/dev/null 2>"$IT_TMP/err"
[ $? -eq 2 ] || fail "--fill compress:101 is not a usage error"
[ ! -e "$IT_TMP/bad" ] || fail "a usage error created the root"
echo PASS
