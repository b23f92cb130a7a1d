#!/usr/bin/env bash
# test_report_html_controls: the HTML pages of `riot report show --html`
# and `riot compare --html` hold no raw control byte, whatever a log's
# header (host, kernel), its paths or a run's label carry: an OSC 52
# clipboard write, a screen clear, a C1 CSI, a BEL. Each shows as the
# terminal output shows it, \x1b-style text. Needs no root.
# test-unit: needs neither root nor BPF
set -u
: "${RIOT:?RIOT must name the riot binary}" "${BIN:?BIN must name the test tools directory}"
T=$(mktemp -d /tmp/riot-html-controls.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# raw_controls FILE: the count of lines holding a byte that is neither
# printable ASCII nor a tab (newlines end the lines)
raw_controls() {
	LC_ALL=C grep -c -P '[\x00-\x08\x0b-\x1f\x7f-\xff]' "$1"
}

OSC='\x1b]52;c;cHduZWQ=\x07'	# mklog's escapes: the bytes themselves in the log
"$BIN/mklog" -o "$T/h.riot" --host "host$OSC" --kernel 'k\xc2\x9b2J\x1b[2J' \
	--cmdline 'cmd\x07' <<EOF || fail "mklog"
snap_proc pid=100 cwd=/
openat dirfd=AT_FDCWD path=/data/$OSC flags=O_RDONLY ret=3 size=10 ftype=reg created=0
read fd=3 count=10 ret=10
close fd=3 ret=0
EOF
label=$(printf 'run\033]0;title\a')
"$RIOT" report "$T/h.riot" -o "$T/r.db" --label "$label" >"$T/out" 2>&1 ||
	fail "report: $(cat "$T/out")"
"$RIOT" report "$T/h.riot" -o "$T/r.db" --label plain >"$T/out" 2>&1 ||
	fail "report plain: $(cat "$T/out")"
"$RIOT" report show "$T/r.db" --html "$T/show.html" >"$T/out" 2>&1 ||
	fail "report show --html: $(cat "$T/out")"
"$RIOT" compare "$T/r.db" --html "$T/compare.html" >"$T/out" 2>&1 ||
	fail "compare --html: $(cat "$T/out")"
for page in show compare; do
	n=$(raw_controls "$T/$page.html")
	[ "$n" = 0 ] || fail "$page.html: $n lines with raw control bytes"
	grep -qF 'run\x1b]0;title\x07' "$T/$page.html" || fail "$page.html: the label is not shown escaped"
done
grep -qF 'host\x1b]52;c;cHduZWQ=\x07, kernel k\xc2\x9b2J\x1b[2J' "$T/show.html" ||
	fail "show.html: host and kernel are not shown escaped"
echo "report show and compare pages: 0 raw control bytes; label, host and kernel shown as \\xNN"
