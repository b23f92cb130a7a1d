#!/usr/bin/env bash
# scripts/demo_compare.sh CAPTURE: the end of `make demo`. Replays a capture
# onto two loop-mounted filesystems, ext4 and xfs, made here on sparse
# image files and removed afterwards, stores the capture and both replays
# in one report database, and compares them.
# Env: RIOT (the binary), BIN (test tools). Needs root (loop mounts).
# DEMO_REPORT_DIR: where report.db and report.html are kept (default: a
# directory under /tmp, printed at the end).
# DEMO_IMAGE_MB: size of each image (default 1024; sparse).
set -euo pipefail
: "${RIOT:?}" "${BIN:?}"
log=${1:?usage: demo_compare.sh CAPTURE.riot}
[ "$(id -u)" -eq 0 ] || { echo "demo_compare: needs root (loop mounts)" >&2; exit 1; }
for tool in mkfs.ext4 mkfs.xfs losetup; do
	command -v "$tool" >/dev/null || { echo "demo_compare: $tool is missing (make deps)" >&2; exit 1; }
done

work=$(mktemp -d /var/tmp/riot-demo-fs.XXXXXX)
out=${DEMO_REPORT_DIR:-$(mktemp -d /tmp/riot-demo-report.XXXXXX)}
mkdir -p "$out"
db=$out/report.db
rm -f "$db"
. "$(dirname "$0")/loopfs.sh"

cleanup() {
	loopfs_cleanup
	rm -rf "$work"
}
trap cleanup EXIT

. "$(dirname "$0")/demo_lib.sh"

# make_fs TYPE: a sparse image with a fresh TYPE filesystem, loop-mounted at
# $work/TYPE; the mount's options are the defaults.
make_fs() { loopfs_make "$1" "$work/$1.img" "$work/$1" "${DEMO_IMAGE_MB:-1024}"; }

step "the capture, summarised (latencies as seen on the capture host)"
"$RIOT" report "$log" -o "$db" --label capture

for fs in ext4 xfs; do
	step "replay onto a fresh $fs (loop device, sparse image)"
	make_fs "$fs"
	"$RIOT" replay "$log" --root "$work/$fs/root" --report "$db" --label "$fs"
done

step "riot report show $db --run xfs"
"$RIOT" report show "$db" --run xfs

step "riot compare: ext4 against xfs"
"$RIOT" compare "$db" ext4 xfs

step "riot compare: the capture against its replays (fidelity)"
"$RIOT" compare "$db" capture ext4 xfs --html "$out/report.html"
"$RIOT" compare "$db" capture ext4 xfs | sed -n '/^fidelity/,$p'

step "kept"
echo "report database: $db"
echo "charts:          $out/report.html (one self-contained page)"
