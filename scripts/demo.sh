#!/usr/bin/env bash
# `make demo`: the main job on a bundled workload. Capture a real program
# (tests/bin/demo_workload: 4 threads writing a tree of files, reading them
# back, renaming, fsyncing, deleting), look at the log, replay it as fast as
# possible and at the captured timing, check the replayed tree, then replay
# it onto ext4 and xfs and compare (scripts/demo_compare.sh).
# Env: RIOT (the binary), BIN (the test tools). Needs root (BPF, loop mounts).
set -euo pipefail
: "${RIOT:?}" "${BIN:?}"
if [ "$(id -u)" -ne 0 ]; then
	echo "demo: capture and replay need root: run 'make demo' as root (or with sudo)" >&2
	exit 1
fi
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /var/tmp/riot-demo.XXXXXX)
trap 'rm -rf "$work"' EXIT

. "$here/demo_lib.sh"

step "riot version"
"$RIOT" version

mkdir -p "$work/app"
step "riot capture -- demo_workload (4 threads writing, reading, renaming, fsyncing, deleting a tree)"
"$RIOT" capture -o "$work/app.riot" -- "$BIN/demo_workload" --dir "$work/app" --threads 4 --files 16

step "riot info"
"$RIOT" info "$work/app.riot"

step "riot dump --limit 8 (resolved paths and file ids beside the raw fds)"
"$RIOT" dump --limit 8 "$work/app.riot"

step "riot replay --speed 0: as fast as possible, into a temporary root"
"$RIOT" replay "$work/app.riot" --root "$work/root-fast"

step "riot replay --speed 1: at the captured timing"
"$RIOT" replay "$work/app.riot" --root "$work/root-timed" --speed 1

step "the replayed tree equals the original"
tree_of() { (cd "$1" && find . -mindepth 1 ! -type d -printf '%y %s %p\n' | LC_ALL=C sort); }
if diff <(tree_of "$work/app") <(tree_of "$work/root-fast$work/app") >/dev/null; then
	echo "yes: $(tree_of "$work/app" | wc -l) files, same names, types and sizes"
else
	echo "no: the trees differ" >&2
	exit 1
fi

bash "$here/demo_compare.sh" "$work/app.riot"
