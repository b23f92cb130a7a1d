#!/bin/sh
# scripts/gen-vmlinux.sh: regenerates bpf/vmlinux.h, the kernel type
# definitions the CO-RE programs in bpf/ compile against. The file is
# committed so builds are reproducible; CO-RE relocations adapt the programs
# to the running kernel's layout at load time.
# Usage: scripts/gen-vmlinux.sh [BTF_FILE]   (default /sys/kernel/btf/vmlinux)
set -eu
btf=${1:-/sys/kernel/btf/vmlinux}
out=$(dirname "$0")/../bpf/vmlinux.h
[ -r "$btf" ] || { echo "gen-vmlinux.sh: cannot read $btf (kernel built without CONFIG_DEBUG_INFO_BTF?)" >&2; exit 1; }
tmp=$out.tmp.$$
trap 'rm -f "$tmp"' EXIT
${BPFTOOL:-bpftool} btf dump file "$btf" format c >"$tmp"
mv "$tmp" "$out"
trap - EXIT
