#!/usr/bin/env bash
# what reached the storage: a replay onto a loop-mounted ext4 records the
# bytes and requests the loop device's /sys/block/<dev>/stat says moved
# during it (within 5 %: the stat window also holds riot's set-up before
# the recording starts), stores them per run with the write amplification
# against the bytes the workload wrote, and `report show`, `compare` and
# the HTML page show the device rows (ext4 against xfs).
. "$(dirname "$0")/lib.sh"
require_capture
for p in losetup mkfs.ext4 mkfs.xfs dd sqlite3; do
	command -v $p >/dev/null || fail "$p is required"
done

LOOPS=()
device_cleanup() {
	local m l
	for m in "$IT_TMP"/mnt-*; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done
	for l in "${LOOPS[@]}"; do
		losetup -d "$l" 2>/dev/null
	done
	it_cleanup
}
trap device_cleanup EXIT

# make_fs TYPE: a 512 MiB (sparse) TYPE filesystem on a loop device of our own,
# mounted at $IT_TMP/mnt-TYPE; sets LOOP
make_fs() {
	local type=$1 img=$IT_TMP/$1.img
	truncate -s 512M "$img" || fail "truncate"
	case $type in
	# inode tables and journal written now, not by a lazy thread later
	ext4) mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$img" ;;
	xfs) mkfs.xfs -q -f "$img" ;;
	esac || fail "mkfs.$type"
	LOOP=$(losetup -f --show "$img") || fail "losetup"
	LOOPS+=("$LOOP")
	mkdir -p "$IT_TMP/mnt-$type" && mount "$LOOP" "$IT_TMP/mnt-$type" || fail "mount $type"
}

# the workload: 8 MiB written 4 KiB at a time with O_DIRECT and fsync'ed,
# 16 MiB through the page cache, then a 4 MiB file that existed before read
# back with O_DIRECT: thousands of requests, so riot's own set-up (the
# root's marker, rewritten and fsync'ed) is far below 5 %
W=$IT_TMP/w
mkdir -p "$W"
head -c $((4 << 20)) /dev/urandom >"$W/in"
"$RIOT" capture -q -o "$IT_TMP/w.riot" -- sh -c \
	"dd if=/dev/zero of=$W/direct bs=4k count=2048 oflag=direct conv=fsync status=none &&
	 dd if=/dev/zero of=$W/out bs=64k count=256 conv=fsync status=none &&
	 dd if=$W/in of=/dev/null bs=4k iflag=direct status=none" >/dev/null 2>"$IT_TMP/cap.err" </dev/null ||
	{ cat "$IT_TMP/cap.err" >&2; fail "capture"; }

stat_of() { cat "/sys/block/$(basename "$1")/stat"; }

# replay_on TYPE: init, then a replay with the page cache dropped, between
# two reads of the device's stat; its output in $IT_TMP/TYPE.out
replay_on() {
	local type=$1 root=$IT_TMP/mnt-$1/root
	"$RIOT" init "$IT_TMP/w.riot" --root "$root" >/dev/null || fail "init on $type"
	sync
	stat_of "$LOOP" >"$IT_TMP/$type.stat0"
	"$RIOT" replay "$IT_TMP/w.riot" --root "$root" --no-init --drop-caches \
		--report "$IT_TMP/r.db" --label "$type" >"$IT_TMP/$type.out" 2>"$IT_TMP/$type.err" ||
		{ cat "$IT_TMP/$type.err" >&2; fail "replay on $type"; }
	stat_of "$LOOP" >"$IT_TMP/$type.stat1"
	grep -q 'device view not recorded' "$IT_TMP/$type.err" && fail "$type: $(cat "$IT_TMP/$type.err")"
	check_device "$type" "$(basename "$LOOP")"
}

# check_device TYPE NAME: the stored figures against the stat deltas
check_device() {
	python3 - "$IT_DIR" "$IT_TMP/r.db" "$1" "$2" "$IT_TMP/$1.stat0" "$IT_TMP/$1.stat1" \
		"$(stat -c %t:%T "$LOOP")" <<'PY' || fail "$1: device figures"
import sqlite3, sys
sys.path.insert(0, sys.argv[1])
from devstat import stat_moved, check_within
db, label, name, s0, s1, majmin = sys.argv[2:]
c = sqlite3.connect(db)
c.row_factory = sqlite3.Row
rows = c.execute("SELECT d.*, r.bytes_written AS wl_written FROM devices d "
                 "JOIN runs r ON r.id = d.run_id WHERE r.label = ?", (label,)).fetchall()
bad = []
if len(rows) != 1:
    sys.exit("%s: %d device rows, expected 1" % (label, len(rows)))
r = rows[0]
ma, mi = (int(x, 16) for x in majmin.split(":"))
if r["name"] != name or r["kind"] != "loop" or "loop device backed by" not in (r["note"] or ""):
    bad.append("device %s/%s/%s, expected %s, loop" % (r["name"], r["kind"], r["note"], name))
if r["dev"] != (ma << 8 | (mi & 0xff) | (mi & ~0xff) << 12):
    bad.append("dev %d is not %s" % (r["dev"], majmin))
check_within(r, stat_moved(s0, s1), label, bad)
# the workload wrote 24 MiB and read 4 MiB: the device saw them
if r["write_bytes"] < 24 << 20 or r["read_bytes"] < 4 << 20:
    bad.append("device bytes %d written, %d read: less than the workload's" %
               (r["write_bytes"], r["read_bytes"]))
if r["wl_written"] != 24 << 20:
    bad.append("the workload wrote %d, expected %d" % (r["wl_written"], 24 << 20))
if abs(r["write_amplification"] - r["write_bytes"] / r["wl_written"]) > 1e-9:
    bad.append("write amplification %r" % r["write_amplification"])
if not (0 < r["write_p50_ns"] <= r["write_p99_ns"] <= r["write_max_ns"]):
    bad.append("write latency p50 %r p99 %r max %r" % (r["write_p50_ns"], r["write_p99_ns"], r["write_max_ns"]))
if not (0 < r["read_p50_ns"] <= r["read_p99_ns"] <= r["read_max_ns"]):
    bad.append("read latency p50 %r p99 %r max %r" % (r["read_p50_ns"], r["read_p99_ns"], r["read_max_ns"]))
if r["flush_ns"] is None or r["depth_peak"] < 1 or r["depth_mean"] <= 0:
    bad.append("flush_ns %r depth peak %r mean %r" % (r["flush_ns"], r["depth_peak"], r["depth_mean"]))
pts = c.execute("SELECT count(*), max(depth_max), min(step_ns) FROM device_depth "
                "WHERE run_id = ? AND dev = ?", (r["run_id"], r["dev"])).fetchone()
if pts[0] < 1 or pts[1] > r["depth_peak"] or pts[2] < 10_000_000:
    bad.append("depth series %r against peak %d" % (tuple(pts), r["depth_peak"]))
for x in bad:
    print("  " + x, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

make_fs ext4
EXT4_LOOP=$LOOP
replay_on ext4
make_fs xfs
XFS_LOOP=$LOOP
replay_on xfs

# the replay's summary shows the device
grep -q "^device $(basename "$EXT4_LOOP") (loop; loop device backed by $IT_TMP/ext4.img" "$IT_TMP/ext4.out" ||
	fail "replay summary without the device: $(cat "$IT_TMP/ext4.out")"
grep -q '^write amplification: [0-9.]* (' "$IT_TMP/ext4.out" || fail "replay summary without write amplification"

# report show: the device section with the stored numbers
"$RIOT" report show "$IT_TMP/r.db" --run ext4 >"$IT_TMP/show.out" || fail "report show"
wreq=$(sqlite3 "$IT_TMP/r.db" "SELECT write_reqs FROM devices JOIN runs ON runs.id = run_id WHERE label = 'ext4'")
grep -q '^what reached the storage (block layer)$' "$IT_TMP/show.out" || fail "report show: no device section"
grep -Eq "^  write +$wreq +" "$IT_TMP/show.out" || fail "report show: write requests $wreq not shown"

# compare: the device rows of both runs, with their device names
"$RIOT" compare "$IT_TMP/r.db" ext4 xfs >"$IT_TMP/cmp.out" || fail "compare"
python3 - "$IT_TMP/cmp.out" "$IT_TMP/r.db" "$(basename "$EXT4_LOOP")" "$(basename "$XFS_LOOP")" <<'PY' || fail "compare device rows"
import sqlite3, sys
out = open(sys.argv[1]).read().split("\n")
c = sqlite3.connect(sys.argv[2])
i = out.index("what reached the storage (block layer; ratios against ext4)")
rows = {l[2:22].strip(): l[22:].split() for l in out[i + 2:] if l.startswith("  ")}
assert rows["devices"] == [sys.argv[3], sys.argv[4]], rows["devices"]
w = [c.execute("SELECT write_reqs, read_reqs FROM devices JOIN runs ON runs.id = run_id "
               "WHERE label = ?", (l,)).fetchone() for l in ("ext4", "xfs")]
assert rows["write requests"][:2] == [str(w[0][0]), str(w[1][0])], rows["write requests"]
assert rows["write requests"][2] == "x%.3f" % (w[1][0] / w[0][0]), rows["write requests"]
assert rows["read requests"][:2] == [str(w[0][1]), str(w[1][1])], rows["read requests"]
for k in ("bytes written", "bytes read", "write p50", "write p99", "read p99",
          "queue depth mean", "queue depth peak", "write amplification"):
    assert k in rows and "-" not in rows[k][:2], (k, rows.get(k))
PY

# --json of show and compare: the same devices
"$RIOT" report show "$IT_TMP/r.db" --run ext4 --json >"$IT_TMP/show.json" || fail "report show --json"
"$RIOT" compare "$IT_TMP/r.db" ext4 xfs --json >"$IT_TMP/cmp.json" || fail "compare --json"
python3 - "$IT_TMP/show.json" "$IT_TMP/cmp.json" "$IT_TMP/r.db" <<'PY' || fail "device JSON"
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[3])
want = {l: c.execute("SELECT name, write_reqs, read_bytes, write_amplification FROM devices "
                     "JOIN runs ON runs.id = run_id WHERE label = ?", (l,)).fetchone()
        for l in ("ext4", "xfs")}
show = json.load(open(sys.argv[1]))["runs"][0]
d = show["devices"]
assert len(d) == 1 and (d[0]["name"], d[0]["write_reqs"], d[0]["read_bytes"]) == want["ext4"][:3], d
assert abs(show["write_amplification"] - want["ext4"][3]) < 1e-9, show["write_amplification"]
for r in json.load(open(sys.argv[2]))["runs"]:
    d = r["devices"]
    assert len(d) == 1 and (d[0]["name"], d[0]["write_reqs"]) == want[r["label"]][:2], (r["label"], d)
PY

# the HTML page: the device table and a queue depth chart per run
"$RIOT" report show "$IT_TMP/r.db" --html "$IT_TMP/r.html" >/dev/null || fail "report --html"
grep -q '<table class="devices">' "$IT_TMP/r.html" || fail "HTML: no device table"
[ "$(grep -c '<svg class="depth"' "$IT_TMP/r.html")" = 2 ] || fail "HTML: not one depth chart per run"

# --no-block records nothing; a root on no block device says so and goes on
"$RIOT" replay "$IT_TMP/w.riot" --root "$IT_TMP/mnt-ext4/root2" --no-block \
	--report "$IT_TMP/r.db" --label none >"$IT_TMP/none.out" 2>&1 || fail "replay --no-block"
[ "$(sqlite3 "$IT_TMP/r.db" "SELECT count(*) FROM devices JOIN runs ON runs.id = run_id WHERE label = 'none'")" = 0 ] ||
	fail "--no-block stored devices"
grep -q '^device ' "$IT_TMP/none.out" && fail "--no-block printed a device"
echo ok
