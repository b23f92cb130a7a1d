#!/usr/bin/env bash
# test_report_html: `riot compare --html` writes one self-contained page
# that overlays the runs, and a real browser draws it. Three runs: two
# generated logs and a sub-second one (mklog, 200 us). Headless Chromium
# parses the page (--dump-dom): one latency chart per class that some run
# has, with one CDF line per run that has the class, all on the same axis;
# ops/s and MiB/s over time with one line per run, the sub-second run in
# buckets of 10 us (one step each), not one flat second; the comparison as
# three HTML tables, no <pre>. Then it renders the page twice, as written
# and with every data series removed: the first run's and the second's
# colours must cover many more pixels in the first screenshot (the legends
# are in both). The page must name no external resource.
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
# 200 reads completing 1 us apart: 200 us
{
	echo "snap_proc pid=100 cwd=/d"
	echo "openat dirfd=AT_FDCWD path=/d/f flags=O_RDONLY ret=3 size=819200 ftype=reg created=0 dur=500"
	for _ in $(seq 200); do echo "read fd=3 count=4096 ret=4096 dur=500"; done
} | "$BIN/mklog" -o "$T/s.riot" || fail "mklog"
"$RIOT" report "$T/s.riot" -o "$T/r.db" --label short >/dev/null || fail "report short"
"$RIOT" compare "$T/r.db" --html "$T/page.html" || fail "compare --html"

# self-contained: no URL but the SVG namespace, no script but inline ones
# (the flamegraphs'), no link, no img, nothing fetched
grep -Eo '(src|href)=|<script[^>]|<link|<img|@import|url\(|fetch\(|XMLHttpRequest|import\(' \
	"$T/page.html" && fail "the page loads external assets"
[ "$(grep -Eo 'https?://[^"]*' "$T/page.html" | sort -u)" = "http://www.w3.org/2000/svg" ] ||
	fail "the page names URLs: $(grep -Eo 'https?://[^"]*' "$T/page.html" | sort -u | tr '\n' ' ')"
grep -q '<pre' "$T/page.html" && fail "the comparison is <pre> text"

chromium_run() { # ARGS...: headless, a fresh profile
	local profile
	profile=$(mktemp -d "$T/profile.XXXXXX")
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
		--hide-scrollbars "$@" 2>"$T/chromium.log"
}
shoot() { # HTML PNG
	chromium_run --window-size=1000,5000 --screenshot="$2" "file://$1" >/dev/null
	[ -s "$2" ] || fail "chromium made no screenshot of $1: $(tail -n 3 "$T/chromium.log")"
}

chromium_run --dump-dom "file://$T/page.html" >"$T/dom.html"
[ -s "$T/dom.html" ] || fail "chromium dumped no DOM: $(tail -n 3 "$T/chromium.log")"
python3 - "$T/dom.html" "$T/r.db" <<'PY' || fail "the overlays as Chromium parsed them"
import sqlite3, sys
from html.parser import HTMLParser

class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.charts, self.tables, self.svg = [], [], None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg":
            self.svg = {"class": a.get("class", ""), "series": [], "text": []}
            self.charts.append(self.svg)
        elif tag == "polyline" and self.svg is not None:
            self.svg["series"].append((a.get("class", ""), a.get("points", "").split()))
        elif tag == "table":
            self.tables.append(a.get("class", ""))
    def handle_data(self, data):
        if self.svg is not None and data.strip():
            self.svg["text"].append(data.strip())
    def handle_endtag(self, tag):
        if tag == "svg":
            self.svg = None

p = Page()
p.feed(open(sys.argv[1]).read())
db = sqlite3.connect(sys.argv[2])
ids = [r[0] for r in db.execute("SELECT id FROM runs ORDER BY id")]
bad = []
def eq(what, got, want):
    if got != want:
        bad.append(f"{what}: got {got!r}, want {want!r}")

order = ["data_read", "data_write", "sync", "metadata", "all"]
have = {c: [i for i, rid in enumerate(ids) if db.execute(
            "SELECT count FROM classes WHERE run_id = ? AND class = ?", (rid, c)).fetchone()]
        for c in order}
want = [c for c in order if have[c]]
lat = [c for c in p.charts if c["class"] == "chart latency"]
eq("latency charts (one per class some run has)", len(lat), len(want))
for chart, cls in zip(lat, want):
    eq(f"{cls}: one CDF per run that has it", [s[0] for s in chart["series"]],
       [f"series run-{i}" for i in have[cls]])
# one axis for every class chart: the same labels (ticks and legend)
if len({tuple(c["text"]) for c in lat}) != 1:
    bad.append(f"latency charts with different axes: {[c['text'] for c in lat]}")
for what in ("ops", "bytes"):
    ch = [c for c in p.charts if c["class"] == f"chart throughput {what}"]
    eq(f"{what} charts", len(ch), 1)
    if not ch:
        continue
    eq(f"{what}: one line per run", [s[0] for s in ch[0]["series"]],
       [f"series run-{i}" for i in range(len(ids))])
    # the short run (200 us): 10 us buckets, two points a step
    short = dict(ch[0]["series"]).get(f"series run-{len(ids) - 1}", [])
    if len(short) < 2 * 19:
        bad.append(f"{what}: the 200 us run has {len(short) // 2} steps, want 20 or more")
eq("comparison tables", p.tables.count("compare"), 3)
if bad:
    print("\n".join(bad)); sys.exit(1)
PY

sed 's/<polyline class="series[^"]*"[^>]*>//g' "$T/page.html" >"$T/bare.html"
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
