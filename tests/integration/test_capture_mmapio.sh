#!/usr/bin/env bash
# I/O through file mappings (tests/bin/mmapio): 1 MiB written through a
# shared mapping of a new file, then msync, is exactly its 256 pages of
# mmap:write (each page also read in once by its write fault: mmap:read);
# a 65-page-and-100-byte file read through a mapping from a cold cache is
# exactly its 66 pages of mmap:read, none twice. Every record names the
# file by path, ino and dev, and its mapping by the address mmap returned.
. "$(dirname "$0")/lib.sh"
require_capture
[ -x "$BIN/mmapio" ] || fail "$BIN/mmapio is missing (build tests/bin/mmapio.c)"
W=$IT_TMP/w
LOG=$IT_TMP/cap.riot
mkdir -p "$W"
head -c 266340 /dev/urandom >"$W/rd" || fail "cannot write $W/rd"
"$RIOT" capture -o "$LOG" -- "$BIN/mmapio" "$W/wr" 1048576 "$W/rd" \
	>"$IT_TMP/cap.out" 2>"$IT_TMP/cap.err" ||
	fail "riot capture -- mmapio exited $?: $(head -c 800 "$IT_TMP/cap.err")"
dump_log "$LOG"
python3 - "$IT_TMP/dump.jsonl" "$IT_TMP/info.json" "$W" <<'PY' || fail "mmap records differ from what mmapio did"
import json, os, sys
dump, info, w = sys.argv[1:4]
recs = [json.loads(l) for l in open(dump)]
info = json.load(open(info))
bad = []
def eq(what, got, want):
    if got != want:
        bad.append("%s: expected %r, got %r" % (what, want, got))
sys_ = [r for r in recs if r.get("type") == "syscall"]
def pages(rs):
    out = []
    for r in rs:
        out += range(r["off"] // 4096, (r["off"] + r["count"] + 4095) // 4096)
    return out
for name, op, npages in (("wr", "mmap:write", 256), ("wr", "mmap:read", 256), ("rd", "mmap:read", 66)):
    p = os.path.join(w, name)
    st = os.stat(p)
    maps = [r for r in sys_ if r["op"] == "mmap" and r.get("path") == p]
    mine = [r for r in sys_ if r["op"] == op and r.get("path") == p]
    what = "%s of %s" % (op, name)
    if not eq("mmap syscalls of " + name, len(maps), 1):
        continue
    pg = pages(mine)
    eq(what + ": pages (each once)", sorted(pg), list(range(npages)))
    eq(what + ": bytes", sum(r["count"] for r in mine), npages * 4096)
    # a page's result is the file's bytes in it: the last page of rd holds
    # 266340 - 65 * 4096 = 1700
    eq(what + ": ret is the file's bytes in the range",
       [r for r in mine if r["ret"] != max(0, min(r["count"], st.st_size - r["off"]))], [])
    eq(what + ": ret in all", sum(r["ret"] for r in mine), st.st_size)
    eq(what + ": off page-aligned", [r for r in mine if r["off"] % 4096], [])
    eq(what + ": ctx is the mapping's address", {r.get("ctx") for r in mine}, {maps[0]["ret"]})
    eq(what + ": ino, dev", {(r.get("ino"), r.get("dev")) for r in mine}, {(st.st_ino, st.st_dev)})
    eq(what + ": no fd", [r for r in mine if "fd" in r], [])
    eq(what + ": in the mapping's process", {r["pid"] for r in mine}, {maps[0]["pid"]})
    if op == "mmap:write":
        ms = [r for r in sys_ if r["op"] == "msync"]
        if eq("msync calls", len(ms), 1):
            eq(what + ": between mmap and msync", [r for r in mine if not maps[0]["t"] < r["t"] < ms[0]["t"]], [])
eq("info unresolved fds", info["unresolved_fds"], 0)
eq("info drops", info["drops"], 0)
eq("info ops mmap:write", info["ops"].get("mmap:write"), len([r for r in sys_ if r["op"] == "mmap:write"]))
eq("mmap:write records of other files", [r for r in sys_ if r["op"] == "mmap:write" and r.get("path") != os.path.join(w, "wr")], [])
for b in bad:
    print("FAIL: " + b)
if not bad:
    print("ok: mmap reads and writes as mmapio made them")
sys.exit(1 if bad else 0)
PY
