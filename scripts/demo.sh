#!/usr/bin/env bash
# `make demo`: the main job on a bundled workload.
# Env: RIOT (the binary), BIN (the test tools: genlog, workload).
set -euo pipefail
: "${RIOT:?}" "${BIN:?}"
work=$(mktemp -d /tmp/riot-demo.XXXXXX)
trap 'rm -rf "$work"' EXIT

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "riot version"
"$RIOT" version

step "a log of a synthetic workload (tests/bin/genlog: mixed file I/O of several processes)"
"$BIN/genlog" --shape mixed -n 20000 --seed 7 -o "$work/mixed.riot"
ls -l "$work/mixed.riot"

step "riot info"
"$RIOT" info "$work/mixed.riot"

step "riot dump --limit 12"
"$RIOT" dump --limit 12 "$work/mixed.riot"
