#!/usr/bin/env bash
# benchmarks/paths_memory.sh: memory of every reader on logs of many
# distinct paths. genlog (--shape paths) writes logs of 1M paths of 210
# bytes and 4M paths of 60 bytes (failed stats, so init makes no files);
# each command runs under /usr/bin/time -v and its maximum resident set is
# printed, in MiB and as (RSS - 64 MiB) / path text: docs/limits.md promises at
# most 1.5. Path text counts each distinct path with its NUL. The 4M log
# stays under the 256 MiB of path text every reader refuses beyond.
# Environment: RIOT, BIN (genlog), PATHS_LOGS ("N:BYTES ..." to measure,
# default "1000000:210 4000000:60"), ENGINE (default sync).
set -eu
: "${RIOT:?RIOT must name the riot binary}" "${BIN:?BIN must name the directory of genlog}"
logs=${PATHS_LOGS:-"1000000:210 4000000:60"}
engine=${ENGINE:-sync}
[ -x /usr/bin/time ] || { echo "paths_memory: needs /usr/bin/time (GNU time)" >&2; exit 1; }
dir=$(mktemp -d /var/tmp/riot-bench-paths.XXXXXX)
trap 'rm -rf "$dir"' EXIT
status=0

# rss_kb CMD...: the maximum resident set of CMD in KiB; fails with it
rss_kb() {
	/usr/bin/time -f %M -o "$dir/rss" "$@" >/dev/null 2>"$dir/err" ||
		{ echo "paths_memory: $* failed: $(head -c 300 "$dir/err")" >&2; return 1; }
	cat "$dir/rss"
}

echo "paths_memory: engine $engine; MiB of maximum RSS, ratio (RSS - 64 MiB) / path text"
printf '%-10s %9s  %-16s %9s %7s\n' paths "text MiB" command "RSS MiB" ratio
for spec in $logs; do
	n=${spec%%:*} bytes=${spec#*:}
	log=$dir/p$n.riot
	"$BIN/genlog" -o "$log" -n "$n" --shape paths --path-bytes "$bytes"
	# every path is distinct; the cwd / and the root are the only others
	text=$((n * (bytes + 1) + 2))
	for cmd in info dump report replay-dry-run replay; do
		case $cmd in
		info) args=(info "$log") ;;
		dump) args=(dump "$log") ;;
		report) rm -f "$dir/r.db"; args=(report "$log" -o "$dir/r.db") ;;
		replay-dry-run) args=(replay "$log" --dry-run) ;;
		replay) rm -rf "$dir/root"; args=(replay "$log" --root "$dir/root" --engine "$engine") ;;
		esac
		kb=$(rss_kb "$RIOT" "${args[@]}") || { status=1; continue; }
		awk -v n="$n" -v t="$text" -v kb="$kb" -v c="$cmd" -v out="${BENCH_OUT:-}" 'BEGIN {
			mib = kb / 1024; tmib = t / 1048576; r = (mib - 64) / tmib
			printf "%-10d %9.1f  %-16s %9.1f %7.2f\n", n, tmib, c, mib, r
			if (out != "") {
				gsub("-", "_", c)
				printf "paths_%dk_%s_rss_mib %.1f\npaths_%dk_%s_ratio %.3f\n",
				       n / 1000, c, mib, n / 1000, c, r >>out
			}
		}'
	done
	rm -f "$log"
done
exit $status
