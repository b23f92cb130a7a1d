#!/usr/bin/env bash
# test_golden: the logs kept in tests/golden read as they did when they were
# written: `riot dump`, `riot info` and `riot info --json` print exactly the
# files beside them, and each log is the one recorded (its SHA-256), so a writer
# change cannot quietly regenerate them.
# test-unit: needs neither root nor BPF
. "$(dirname "$0")/lib.sh"
G=$(cd "$IT_DIR/../golden" && pwd)
cd "$G" || fail "no $G"
n=0
while read -r sum name; do
	[ -f "$name" ] || fail "golden log $name is missing"
	[ "$(sha256sum "$name" | cut -d' ' -f1)" = "$sum" ] || fail "$name is not the golden log recorded"
	base=${name%.riot}
	"$RIOT" dump "$name" >"$IT_TMP/$base.dump" 2>"$IT_TMP/err" || fail "riot dump $name: $(cat "$IT_TMP/err")"
	diff -u "$base.dump" "$IT_TMP/$base.dump" >"$IT_TMP/diff" || fail "riot dump $name differs: $(head -n 20 "$IT_TMP/diff")"
	"$RIOT" info --json "$name" >"$IT_TMP/$base.info.json" 2>"$IT_TMP/err" || fail "riot info $name: $(cat "$IT_TMP/err")"
	diff -u "$base.info.json" "$IT_TMP/$base.info.json" >"$IT_TMP/diff" ||
		fail "riot info --json $name differs: $(head -n 20 "$IT_TMP/diff")"
	"$RIOT" info "$name" >"$IT_TMP/$base.info.txt" 2>"$IT_TMP/err" || fail "riot info $name: $(cat "$IT_TMP/err")"
	diff -u "$base.info.txt" "$IT_TMP/$base.info.txt" >"$IT_TMP/diff" ||
		fail "riot info $name differs: $(head -n 20 "$IT_TMP/diff")"
	n=$((n + 1))
done <<'EOF2'
bf3dc989b3786ff6dca45907d7e44cad3a76119547d6518cec47f7b8c2b292df capture-1.5.riot
a274fce233a75f866e1a16d865a69e4e80fea69eaf90dc43ff4c46a8d3f5d255 records-1.5.riot
0ac859f4ca58d1b69b08e9329fc8b4f31308f2157dc73202b6ec0bb9285bf113 segments-1.6.000001.riot
f9c883ba91b46effd3de7432d6c00ffe4517d868c39da5dcce6a9a0d771ab852 segments-1.6.000002.riot
74e6fcac72b0e9e557459a68086a7808839ca9e7bd3def67e8e75f619ebb8c02 segments-1.6.000003.riot
25d7496ee4a4c026f5065d5055b630d3a5250bb9cc8ee249dea059385fb26870 capture-1.7.riot
a373c05c755a90976d5d22c55c242cb7266fab351c31b15aefa9f29f04e826e7 capture-1.8.riot
0fa474521b7a71c46794f1b9802c4dfb809a83c5a434233b55721668c17350a9 capture-2.0.riot
EOF2
[ "$n" -ge 8 ] || fail "only $n golden logs checked"
# the segments of a rotated capture, read as one log
"$RIOT" info --json segments-1.6.00000[123].riot >"$IT_TMP/segments.info.json" 2>"$IT_TMP/err" ||
	fail "riot info of the segments: $(cat "$IT_TMP/err")"
diff -u segments-1.6.info.json "$IT_TMP/segments.info.json" >"$IT_TMP/diff" ||
	fail "riot info --json of the segments differs: $(head -n 20 "$IT_TMP/diff")"
"$RIOT" info segments-1.6.00000[123].riot >"$IT_TMP/segments.info.txt" 2>"$IT_TMP/err" ||
	fail "riot info of the segments: $(cat "$IT_TMP/err")"
diff -u segments-1.6.info.txt "$IT_TMP/segments.info.txt" >"$IT_TMP/diff" ||
	fail "riot info of the segments differs: $(head -n 20 "$IT_TMP/diff")"
echo PASS
