#!/usr/bin/env bash
# tests/fuzz/run.sh BUILD_DIR SECONDS: seeds a corpus with small logs of
# every shape from genlog, then runs the log-reader fuzz target for SECONDS.
# Exits non-zero when the fuzzer finds a crash, leak or sanitizer report
# (the input is kept as BUILD_DIR/fuzz/crash-*).
set -eu
build=${1:?usage: run.sh BUILD_DIR SECONDS}
seconds=${2:?usage: run.sh BUILD_DIR SECONDS}
fuzzer=$build/fuzz/fuzz_reader
genlog=$build/bin/genlog
corpus=$build/fuzz/corpus
[ -x "$fuzzer" ] || { echo "run.sh: $fuzzer is not built" >&2; exit 1; }
[ -x "$genlog" ] || { echo "run.sh: $genlog is not built" >&2; exit 1; }
mkdir -p "$corpus"
seed=1
for shape in seqread mixed all; do
	for n in 5 60 300; do
		for bb in 0 400; do
			"$genlog" -o "$corpus/seed-$shape-$n-$bb.riot" -n $n --shape $shape \
				--seed $seed --block-bytes $bb
			# nearly uncompressed blocks: mutations land on record bytes
			"$genlog" -o "$corpus/raw-$shape-$n-$bb.riot" -n $n --shape $shape \
				--seed $seed --block-bytes $bb --zstd-level -100000
			seed=$((seed + 1))
		done
	done
done
# a log cut inside its last block, and one cut before its end record
head -c 1500 "$corpus/seed-mixed-300-400.riot" >"$corpus/cut-inside.riot"
head -c 100 "$corpus/seed-seqread-5-0.riot" >"$corpus/cut-header.riot"
"$fuzzer" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 \
	-artifact_prefix="$build/fuzz/" -print_final_stats=1 "$corpus" 2>"$build/fuzz/log.txt" || {
	tail -n 60 "$build/fuzz/log.txt"
	echo "fuzz: the reader failed on an input, kept in $build/fuzz/" >&2
	exit 1
}
grep -E '^stat::number_of_executed_units|^Done' "$build/fuzz/log.txt" || true
