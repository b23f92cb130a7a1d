#!/usr/bin/env bash
# Terminal controls in a log (tests/hostile/escape.mklog: paths with \e[2J,
# \e]0;title\a, a byte that is not UTF-8; a header whose every string holds
# controls) never reach a terminal raw: info, dump, report show, compare,
# init --dry-run and replay's divergence examples print them as \xNN.
# jsonl keeps /w/\xff and /w/\xc3\xbf apart: the byte that is not UTF-8 is
# the lone surrogate \udcff, the character U+00FF stays itself.
# test-unit: needs neither root nor BPF
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
T=$IT_TMP
"$BIN/mklog" -o "$T/e.riot" "$here/hostile/escape.mklog" || fail "mklog"
python3 "$here/hostile/mkhostile.py" rehead "$T/h.riot" "$T/e.riot" || fail "mkhostile rehead"

# no_controls NAME FILE: no byte below 0x20 but newline, no DEL, no ESC, no
# C1 control byte (0x80-0x9f) in FILE, and the escaped forms where expected.
no_controls() {
	python3 - "$1" "$2" <<'PY' || exit 1
import sys
name, data = sys.argv[1], open(sys.argv[2], "rb").read()
bad = [i for i, c in enumerate(data) if (c < 0x20 and c != 0x0a) or 0x7f <= c <= 0x9f]
if bad:
    i = bad[0]
    print(f"FAIL: {name}: control byte {data[i]:#04x} at {i}: {data[max(0, i - 40):i + 20]!r}",
          file=sys.stderr)
    sys.exit(1)
PY
}

"$RIOT" info "$T/h.riot" >"$T/info.txt" || fail "riot info"
no_controls info "$T/info.txt"
grep -qF 'host:        host\x1b]0;pwned\x07 (\x1b[2Jkernel, arch\x1b[31m)' "$T/info.txt" ||
	fail "info: host line: $(grep -a host: "$T/info.txt")"
grep -qF 'written by:  riot ver\x9b2J: riot capture \x1b[2J\xff' "$T/info.txt" ||
	fail "info: written by line: $(grep -a written "$T/info.txt")"
grep -qF 'target:      target\x0d\x1b[K' "$T/info.txt" || fail "info: target line"

"$RIOT" dump "$T/h.riot" >"$T/dump.txt" || fail "riot dump"
no_controls dump "$T/dump.txt"
grep -qF 'path=/w/\x1b]0;title\x07' "$T/dump.txt" || fail "dump: the title path"

"$RIOT" report "$T/h.riot" -o "$T/r.db" --label 'cap' >/dev/null || fail "riot report"
"$RIOT" report "$T/h.riot" -o "$T/r.db" --label $'cap\e[2J' >/dev/null || fail "riot report 2"
"$RIOT" report show "$T/r.db" >"$T/show.txt" || fail "report show"
no_controls "report show" "$T/show.txt"
grep -qF '  host        host\x1b]0;pwned\x07, kernel \x1b[2Jkernel, arch\x1b[31m' "$T/show.txt" ||
	fail "report show: host line"
grep -qF '/w/\x1b[2Jclear' "$T/show.txt" || fail "report show: files table"
grep -qF 'run 2: cap\x1b[2J (capture)' "$T/show.txt" || fail "report show: label"
"$RIOT" compare "$T/r.db" 1 2 >"$T/cmp.txt" || fail "compare"
no_controls compare "$T/cmp.txt"
grep -qF 'cap\x1b[2J' "$T/cmp.txt" || fail "compare: label"

mkdir -p "$T/root"
"$RIOT" init "$T/h.riot" --root "$T/root" >"$T/init.txt" || fail "riot init"
"$RIOT" replay "$T/h.riot" --root "$T/root" >"$T/replay.txt" 2>&1 || fail "riot replay"
no_controls replay "$T/replay.txt"
grep -qF 'op 8 /w/\x1b[2Jfull: captured -39 ENOTEMPTY, replayed -2 ENOENT' "$T/replay.txt" ||
	fail "replay: divergence example: $(grep -a -A3 diverg "$T/replay.txt")"

# jsonl: the bytes stay distinguishable and recoverable
"$RIOT" dump "$T/h.riot" --format jsonl >"$T/dump.jsonl" || fail "dump jsonl"
python3 - "$T/dump.jsonl" <<'PY' || exit 1
import json, sys
paths = [json.loads(l).get("path_raw") for l in open(sys.argv[1], encoding="utf-8")]
stats = [p for p in paths if p and p.startswith("/w/") and len(p) == 4]
raw = sorted(p.encode("utf-8", "surrogateescape") for p in stats)
if raw != sorted([b"/w/\xff", b"/w/\xc3\xbf"]):
    print(f"FAIL: jsonl: {stats!r} decode to {raw!r}", file=sys.stderr)
    sys.exit(1)
PY
echo "ok"
