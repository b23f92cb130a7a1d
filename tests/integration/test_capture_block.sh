#!/usr/bin/env bash
# riot capture --block: what reached the loop device holding --path
# PREFIX's filesystem during a capture is stored at the end of the log;
# its bytes and requests are those /sys/block/<dev>/stat says moved (within
# 5 %: the stat window also holds riot's start and end), `riot report`
# stores them with the write amplification against what the program wrote
# to files (not to /dev/null), `report show` prints them; a capture without
# --block, or with a bad --block-dev, records no device.
. "$(dirname "$0")/lib.sh"
require_capture
for p in losetup mkfs.ext4 dd sqlite3; do
	command -v $p >/dev/null || fail "$p is required"
done

LOOP=
block_cleanup() {
	umount "$IT_TMP/mnt" 2>/dev/null || umount -l "$IT_TMP/mnt" 2>/dev/null
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	it_cleanup
}
trap block_cleanup EXIT

truncate -s 256M "$IT_TMP/img" || fail "truncate"
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$IT_TMP/img" || fail "mkfs.ext4"
LOOP=$(losetup -f --show "$IT_TMP/img") || fail "losetup"
mkdir -p "$IT_TMP/mnt" && mount "$LOOP" "$IT_TMP/mnt" || fail "mount"
M=$IT_TMP/mnt
head -c $((2 << 20)) /dev/urandom >"$M/in"
sync
echo 3 >/proc/sys/vm/drop_caches

# 8 MiB written 4 KiB at a time with O_DIRECT, 8 MiB through the cache and
# copied to /dev/null, 2 MiB read with O_DIRECT
cat "/sys/block/$(basename "$LOOP")/stat" >"$IT_TMP/stat0"
"$RIOT" capture --block --path "$M" -o "$IT_TMP/b.riot" -- sh -c \
	"dd if=/dev/zero of=$M/direct bs=4k count=2048 oflag=direct status=none &&
	 dd if=/dev/zero of=$M/out bs=64k count=128 status=none &&
	 dd if=$M/out of=/dev/null bs=64k status=none &&
	 dd if=$M/in of=/dev/null bs=4k iflag=direct status=none" \
	>/dev/null 2>"$IT_TMP/cap.err" </dev/null || { cat "$IT_TMP/cap.err" >&2; fail "capture --block"; }
cat "/sys/block/$(basename "$LOOP")/stat" >"$IT_TMP/stat1"
grep -q "^device $(basename "$LOOP") (loop; loop device backed by $IT_TMP/img" "$IT_TMP/cap.err" ||
	fail "the capture summary does not show the device: $(cat "$IT_TMP/cap.err")"
"$RIOT" report "$IT_TMP/b.riot" -o "$IT_TMP/r.db" --label cap >/dev/null || fail "riot report"

python3 - "$IT_DIR" "$IT_TMP/r.db" "$(basename "$LOOP")" "$IT_TMP/stat0" "$IT_TMP/stat1" "$M" \
	<<'PY' || fail "device figures"
import sqlite3, sys
sys.path.insert(0, sys.argv[1])
from devstat import stat_moved, check_within
db, name, s0, s1, mnt = sys.argv[2:]
c = sqlite3.connect(db)
c.row_factory = sqlite3.Row
rows = c.execute("SELECT * FROM devices").fetchall()
if len(rows) != 1:
    sys.exit("%d device rows, expected 1" % len(rows))
r = rows[0]
bad = []
if r["name"] != name or r["kind"] != "loop" or r["flush_ns"] is None:
    bad.append("device %s %s flush %r" % (r["name"], r["kind"], r["flush_ns"]))
check_within(r, stat_moved(s0, s1), "capture", bad)
if r["write_bytes"] < 16 << 20 or r["read_bytes"] < 2 << 20:
    bad.append("device bytes %d written, %d read" % (r["write_bytes"], r["read_bytes"]))
# the program wrote 16 MiB to files (and 8 MiB more to /dev/null)
files = c.execute("SELECT sum(bytes_written) FROM files WHERE path LIKE ?", (mnt + "/%",)).fetchone()[0]
if files != 16 << 20:
    bad.append("files written %r" % files)
if abs(r["write_amplification"] - r["write_bytes"] / (16 << 20)) > 1e-9:
    bad.append("write amplification %r, expected %r" % (r["write_amplification"], r["write_bytes"] / (16 << 20)))
for x in bad:
    print("  " + x, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
"$RIOT" report show "$IT_TMP/r.db" >"$IT_TMP/show.out" || fail "report show"
grep -q "^device $(basename "$LOOP") (loop" "$IT_TMP/show.out" || fail "report show: no device"
grep -q '^write amplification: [0-9.]* (.*, the workload wrote 16.0 MiB to files)$' "$IT_TMP/show.out" ||
	fail "report show: write amplification line: $(grep amplification "$IT_TMP/show.out")"

# without --block: no device; a device that does not exist: refused, no log
"$RIOT" capture -q -o "$IT_TMP/n.riot" -- true || fail "capture"
"$RIOT" report "$IT_TMP/n.riot" -o "$IT_TMP/n.db" >/dev/null || fail "report"
[ "$(sqlite3 "$IT_TMP/n.db" 'SELECT count(*) FROM devices')" = 0 ] || fail "a device without --block"
"$RIOT" capture -q --block-dev nosuchdev -o "$IT_TMP/x.riot" -- true 2>"$IT_TMP/x.err"
[ $? -eq 1 ] || fail "--block-dev nosuchdev must exit 1"
grep -q 'no such block device' "$IT_TMP/x.err" || fail "--block-dev nosuchdev: $(cat "$IT_TMP/x.err")"
[ ! -e "$IT_TMP/x.riot" ] || fail "--block-dev nosuchdev left a log"
echo ok
