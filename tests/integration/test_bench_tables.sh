#!/usr/bin/env bash
# test_bench_tables: benchmarks/tables.py renders a bench-results.json (one
# flat object of named numbers, as benchmarks/run.sh writes it) as exactly
# these markdown tables: the grid of the peers' capture cost, the grid of
# capture.sh's, then a table per benchmark with each figure's unit; it
# rewrites only what lies between benchmarks/README.md's marker lines, and
# refuses a file that is not flat numbers. benchmarks/README.md has the
# markers, and run.sh renders into it.
# test-unit: needs neither root nor BPF
. "$(dirname "$0")/lib.sh"
TOP=$(cd "$IT_DIR/../.." && pwd)
T=$TOP/benchmarks/tables.py
cat >"$IT_TMP/r.json" <<'JSON'
{"peers_capture_pread_riot_added_ns": 85.2, "peers_capture_pread_strace_added_ns": 52000,
 "peers_capture_stat_riot_added_ns": 120, "peers_capture_pread_untraced_ns": 310.5,
 "report_events_per_s": 7500000, "report_rss_growth_ratio": 1.003, "report_rss_kib_big": 6068,
 "capture_pread_riot_added_ns": 90.1, "uring_capture_ns_per_request": 1500}
JSON
cat >"$IT_TMP/want.md" <<'MD'
a note.

### Capture: ns per syscall of a loop untraced, and ns added by riot and its peers (peers.sh)

| loop | untraced | riot | bpftrace | perf | strace |
|---|---:|---:|---:|---:|---:|
| pread | 310.5 | 85.2 | n/a | n/a | 52,000 |
| stat | n/a | 120 | n/a | n/a | n/a |

### Capture: ns per syscall of a loop, untraced and added (capture.sh)

| loop | untraced | floor_added | clock_floor_added | riot_added |
|---|---:|---:|---:|---:|
| pread | n/a | n/a | n/a | 90.1 |

### report

| figure | value | unit |
|---|---:|---|
| report_events_per_s | 7,500,000 | events/s |
| report_rss_growth_ratio | 1.003 |  |
| report_rss_kib_big | 6,068 | KiB |

### uring

| figure | value | unit |
|---|---:|---|
| uring_capture_ns_per_request | 1,500 | ns/request |
MD
python3 "$T" "$IT_TMP/r.json" --note "a note." >"$IT_TMP/got.md" || fail "tables.py exited $?"
diff -u "$IT_TMP/want.md" "$IT_TMP/got.md" || fail "tables differ"

# --update: only between the markers
B='<!-- bench-results: made by benchmarks/tables.py from bench-results.json; make bench rewrites it -->'
E='<!-- end of bench-results -->'
printf '# head\n\n%s\nold table\n%s\n\n## tail\n' "$B" "$E" >"$IT_TMP/README.md"
python3 "$T" "$IT_TMP/r.json" --note "a note." --update "$IT_TMP/README.md" || fail "--update exited $?"
{ printf '# head\n\n%s\n\n' "$B"; cat "$IT_TMP/want.md"; printf '\n%s\n\n## tail\n' "$E"; } >"$IT_TMP/want-readme.md"
diff -u "$IT_TMP/want-readme.md" "$IT_TMP/README.md" || fail "--update wrote other text"
python3 "$T" "$IT_TMP/r.json" --note "a note." --update "$IT_TMP/README.md" || fail "second --update exited $?"
diff -u "$IT_TMP/want-readme.md" "$IT_TMP/README.md" || fail "a second --update is not the same"

echo '{"a": {"b": 1}}' >"$IT_TMP/bad.json"
python3 "$T" "$IT_TMP/bad.json" >/dev/null 2>"$IT_TMP/err" && fail "a nested object was taken"
grep -q 'is not one flat object of numbers' "$IT_TMP/err" || fail "refusal: $(cat "$IT_TMP/err")"
printf '# no markers\n' >"$IT_TMP/plain.md"
python3 "$T" "$IT_TMP/r.json" --update "$IT_TMP/plain.md" 2>/dev/null && fail "a file without markers was updated"

# the page make bench writes into, and run.sh doing it
[ "$(grep -cxF "$B" "$TOP/benchmarks/README.md")" = 1 ] && [ "$(grep -cxF "$E" "$TOP/benchmarks/README.md")" = 1 ] ||
	fail "benchmarks/README.md lacks the marker lines"
grep -q 'tables.py" bench-results.json --update "$here/README.md"' "$TOP/benchmarks/run.sh" ||
	fail "benchmarks/run.sh does not render the tables"
echo PASS
