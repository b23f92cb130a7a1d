#!/usr/bin/env bash
# `make bench`: every benchmark in one run, figures side by side.
# Env: RIOT, BIN, BENCH (where benchmarks/*.c are built). Each
# benchmarks/*.sh prints its table and may append "name value" lines to
# $BENCH_OUT; they end up in bench-results.json. Each prints its settings;
# sizes are set by environment variables named in its header.
set -uo pipefail
: "${RIOT:?}" "${BIN:?}" "${BENCH:?}"
here=$(cd "$(dirname "$0")" && pwd)
export BENCH_OUT; BENCH_OUT=$(mktemp /tmp/riot-bench.XXXXXX)
trap 'rm -f "$BENCH_OUT"' EXIT
status=0
echo "riot benchmarks on $(uname -r), $(nproc) CPUs, $(awk -F': ' '/model name/{print $2; exit}' /proc/cpuinfo)"
for b in "$here"/[a-z]*.sh; do
	[ "$(basename "$b")" = run.sh ] && continue
	echo; echo "## $(basename "$b" .sh)"
	bash "$b" || { echo "benchmark $(basename "$b") failed"; status=1; }
done
python3 - "$BENCH_OUT" > bench-results.json <<'PY'
import json, sys
out = {}
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) == 2:
        try:
            out[parts[0]] = float(parts[1])
        except ValueError:
            pass
print(json.dumps(out, indent=1, sort_keys=True))
PY
python3 "$here/tables.py" bench-results.json --update "$here/README.md" \
	--note "make bench on $(uname -r), $(nproc) CPUs, $(date -u +%F)." || status=1
echo; echo "figures written to bench-results.json, their tables to benchmarks/README.md"
exit $status
