#!/usr/bin/env bash
# riot info on damaged logs, as a user meets them: every corrupt sample is
# refused with exit 1 and exactly one line on stderr, never a signal; a log
# cut at or inside a block (a killed writer) is read up to its last complete
# block, exit 0, "complete": false, with exactly the records of those blocks.
# Offsets follow formats/FORMAT.md: the header is 16 bytes + TLV payload +
# a CRC32; each block has a 32-byte header (payload length at +4, payload
# CRC at +24, header CRC at +28) and its payload.
# test-unit: needs neither root nor BPF
set -u
: "${RIOT:?}" "${BIN:?}"
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/riot-corrupt.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

log=$tmp/good.riot
"$BIN/genlog" --shape mixed -n 20000 --seed 11 --block-bytes 16384 -o "$log" ||
	fail "genlog"
"$RIOT" info --json "$log" >"$tmp/good.json" || fail "riot info of the good log"

# Byte offsets of the first two blocks, from the header's payload length.
read -r hdr_end blk1 blk2 < <(python3 - "$log" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
L = struct.unpack_from('<I', b, 12)[0]
first = 16 + L + 4
c1 = struct.unpack_from('<I', b, first + 4)[0]
second = first + 32 + c1
assert b[first:first + 4] == b'RBLK' and b[second:second + 4] == b'RBLK'
print(first, first, second)
PY
) || fail "cannot find the blocks"

# flip FILE OFFSET: a copy of the good log with one byte inverted.
flip() {
	cp "$log" "$1"
	python3 - "$1" "$2" <<'PY'
import sys
p, off = sys.argv[1], int(sys.argv[2])
b = bytearray(open(p, 'rb').read())
b[off] ^= 0xff
open(p, 'wb').write(bytes(b))
PY
}

# refused NAME FILE WORDS: riot info exits 1, one line, naming WORDS.
refused() {
	local name=$1 file=$2 words=$3 rc lines
	"$RIOT" info "$file" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 1 ] || fail "$name: exit $rc, expected 1 ($(head -c 300 "$tmp/err"))"
	lines=$(wc -l <"$tmp/err")
	[ "$lines" -eq 1 ] || fail "$name: $lines lines on stderr, expected 1: $(cat "$tmp/err")"
	grep -q "^riot: info: " "$tmp/err" || fail "$name: not a riot error line: $(cat "$tmp/err")"
	grep -qi -- "$words" "$tmp/err" || fail "$name: the line does not say '$words': $(cat "$tmp/err")"
	[ ! -s "$tmp/out" ] || fail "$name: printed a summary of a corrupt log"
	echo "refused: $name: $(cat "$tmp/err")"
}

flip "$tmp/magic.riot" 0;                 refused "header magic" "$tmp/magic.riot" "not a riot log"
flip "$tmp/hdr.riot" 20;                  refused "header payload" "$tmp/hdr.riot" "checksum"
flip "$tmp/hdrcrc.riot" $((hdr_end - 1)); refused "header checksum" "$tmp/hdrcrc.riot" "checksum"
flip "$tmp/blkhdr.riot" $((blk1 + 5));    refused "block length" "$tmp/blkhdr.riot" "block 0"
flip "$tmp/blkcrc.riot" $((blk1 + 25));   refused "block checksum field" "$tmp/blkcrc.riot" "block 0"
flip "$tmp/payload.riot" $((blk2 + 40));  refused "block payload" "$tmp/payload.riot" "block 1"
: >"$tmp/empty.riot";                      refused "empty file" "$tmp/empty.riot" "empty"
printf 'this is not a riot log\n%.0s' {1..50} >"$tmp/text.riot"
refused "not a riot log" "$tmp/text.riot" "not a riot log"
# a newer major version: refused before the checksum is looked at
cp "$log" "$tmp/major.riot"
printf '\x03\x00' | dd of="$tmp/major.riot" bs=1 seek=8 conv=notrunc status=none
refused "newer major version" "$tmp/major.riot" "newer than this riot"
# blocks swapped: each checksum holds, the block sequence record does not
python3 "$here/hostile/mkhostile.py" swap "$tmp/swap.riot" "$log" || fail "mkhostile swap"
refused "blocks swapped" "$tmp/swap.riot" "block 0 at byte $blk1: holds block 1 (blocks moved or reordered)"
# blocks of a few hundred bytes that claim 8M records: refused unread
python3 "$here/hostile/mkhostile.py" bomb "$tmp/bomb.riot" || fail "mkhostile bomb"
refused "record-count bomb" "$tmp/bomb.riot" "impossible lengths (compressed [0-9]*, raw 16777210, records 8388600)"
cat "$log" "$log" >"$tmp/garbage.riot"
refused "bytes after the end record" "$tmp/garbage.riot" "after the end"

# Cuts: inside block 0 (nothing but the header is complete), at the start of
# block 1 (block 0 complete) and inside block 1 (the same).
cut_at() { # NAME BYTES
	local name=$1 n=$2 file=$tmp/cut-$1.riot rc
	head -c "$n" "$log" >"$file"
	"$RIOT" info --json "$file" >"$tmp/cut.json" 2>"$tmp/cut.err"
	rc=$?
	[ "$rc" -eq 0 ] || fail "cut $name: exit $rc ($(cat "$tmp/cut.err"))"
	python3 - "$tmp/cut.json" "$tmp/good.json" "$name" <<'PY' || exit 1
import json, sys
cut, good, name = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
def fail(m):
    print("FAIL: cut %s: %s" % (name, m), file=sys.stderr); sys.exit(1)
if cut["complete"] is not False: fail("complete is %r" % cut["complete"])
if not cut["incomplete_reason"]: fail("no reason given")
want = {"header": 0, "block1": None, "inside1": None}[name]
if want is not None and cut["events"] != want: fail("%d events, expected %d" % (cut["events"], want))
if cut["events"] >= good["events"]: fail("as many events as the whole log")
print("cut %s: %d of %d events, %s" % (name, cut["events"], good["events"], cut["incomplete_reason"]))
PY
}
cut_at header $((blk1 + 10))
cut_at block1 "$blk2"
cut_at inside1 $((blk2 + 100))
# a cut at a block boundary and one inside the next block read the same
a=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["events"])' "$tmp/cut.json")
"$RIOT" info --json "$tmp/cut-block1.riot" >"$tmp/b1.json"
b=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["events"])' "$tmp/b1.json")
[ "$a" = "$b" ] && [ "$a" -gt 0 ] || fail "cut inside block 1 read $a events, at its start $b"
echo "PASS"
