#!/usr/bin/env bash
# test_report_html: `riot compare --html` writes one self-contained page and
# a real browser draws its charts. Headless Chromium renders the page twice,
# as written and with every data series removed; the series colours must
# cover many more pixels in the first screenshot (the legends alone are in
# both). The page must name no external resource. Skips without chromium
# (`make deps` installs it).
set -u
: "${RIOT:?RIOT must name the riot binary}" "${BIN:?BIN must name the test tools directory}"
T=$(mktemp -d /tmp/riot-report-html.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
	[ "${CI:-}" = true ] && fail "chromium is missing (make deps installs it)"
	echo "SKIP: chromium is not installed (make deps installs it)"
	exit 77
fi

"$BIN/genlog" --shape mixed -n 300000 --seed 11 -o "$T/a.riot" || fail "genlog a"
"$BIN/genlog" --shape mixed -n 300000 --seed 12 -o "$T/b.riot" || fail "genlog b"
"$RIOT" report "$T/a.riot" -o "$T/r.db" --label alpha >/dev/null || fail "report a"
"$RIOT" report "$T/b.riot" -o "$T/r.db" --label beta >/dev/null || fail "report b"
"$RIOT" compare "$T/r.db" --html "$T/page.html" || fail "compare --html"

# self-contained: no URL but the SVG namespace, no script, no link, no img
grep -Eo '(src|href)=|<script|<link|<img|@import|url\(' "$T/page.html" && fail "the page loads external assets"
[ "$(grep -Eo 'https?://[^"]*' "$T/page.html" | sort -u)" = "http://www.w3.org/2000/svg" ] ||
	fail "the page names URLs: $(grep -Eo 'https?://[^"]*' "$T/page.html" | sort -u | tr '\n' ' ')"
[ "$(grep -c '<svg class="chart latency"' "$T/page.html")" -eq 2 ] || fail "expected 2 latency charts"
[ "$(grep -c '<svg class="chart throughput"' "$T/page.html")" -eq 2 ] || fail "expected 2 throughput charts"
grep -q 'alpha' "$T/page.html" && grep -q '<pre class="compare">' "$T/page.html" ||
	fail "the comparison tables are missing"
sed 's/<polyline class="series"[^>]*>//g' "$T/page.html" >"$T/bare.html"

shoot() { # HTML PNG
	local profile
	profile=$(mktemp -d "$T/profile.XXXXXX")
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
		--hide-scrollbars --window-size=1000,5000 --screenshot="$2" "file://$1" \
		>"$T/chromium.log" 2>&1
	[ -s "$2" ] || fail "chromium made no screenshot of $1: $(tail -n 3 "$T/chromium.log")"
}
shoot "$T/page.html" "$T/page.png"
shoot "$T/bare.html" "$T/bare.png"

python3 - "$T/page.png" "$T/bare.png" <<'PY' || fail "the charts are not drawn"
import struct, sys, zlib

def pixels(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    assert depth == 8 and ctype in (2, 6), f"PNG depth {depth} type {ctype}"
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    prev, out, i = bytearray(stride), [], 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.append(bytes(line))
        prev = line
    return out, bpp

def count(path, rgb):
    rows, bpp = pixels(path)
    n = 0
    for r in rows:
        for x in range(0, len(r), bpp):
            if all(abs(r[x + k] - rgb[k]) < 40 for k in range(3)):
                n += 1
    return n

blue, red = (0x1f, 0x77, 0xb4), (0xd6, 0x27, 0x28)
for name, rgb in (("blue", blue), ("red", red)):
    drawn, bare = count(sys.argv[1], rgb), count(sys.argv[2], rgb)
    print(f"{name}: {drawn} pixels with the series, {bare} without")
    if drawn < bare + 300:
        sys.exit(1)
PY
echo ok
