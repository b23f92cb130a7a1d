#!/bin/sh
# scripts/gen-vmlinux.sh: regenerates bpf/ARCH/vmlinux.h, the kernel type
# definitions the CO-RE programs in bpf/ compile against for one
# architecture (make picks the header with -I bpf/$(ARCH)). The files are
# committed so builds are reproducible; CO-RE relocations adapt the programs
# to the running kernel's layout at load time.
#
# Usage: scripts/gen-vmlinux.sh [ARCH [SOURCE]]
#   ARCH    x86 or arm64 (default: this machine's)
#   SOURCE  raw BTF (default /sys/kernel/btf/vmlinux, this machine's
#           kernel), or a kernel image whose .BTF section is cut out: an
#           uncompressed or gzip-compressed Image/vmlinuz, as Debian's
#           linux-image-*-arm64 packages ship in /boot.
# bpf/arm64/vmlinux.h comes from Debian 12's arm64 kernel:
#   dpkg-deb -x linux-image-6.1.0-*-arm64-unsigned_*_arm64.deb /tmp/k
#   scripts/gen-vmlinux.sh arm64 /tmp/k/boot/vmlinuz-6.1.0-*-arm64
set -eu
me=gen-vmlinux.sh
die() { echo "$me: $*" >&2; exit 1; }

case $(uname -m) in
x86_64) host=x86 ;;
aarch64) host=arm64 ;;
*) host=$(uname -m) ;;
esac
arch=${1:-$host}
case $arch in
x86 | arm64) ;;
*) die "unknown ARCH '$arch' (x86 or arm64)" ;;
esac
if [ $# -ge 2 ]; then
	src=$2
elif [ "$arch" = "$host" ]; then
	src=/sys/kernel/btf/vmlinux
else
	die "give the $arch kernel's image or BTF: $me $arch FILE"
fi
[ -r "$src" ] || die "cannot read $src (kernel built without CONFIG_DEBUG_INFO_BTF?)"

out=$(dirname "$0")/../bpf/$arch/vmlinux.h
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$out.tmp.$$"' EXIT

# u32 at byte offset $2 of file $1, little-endian.
u32() { od -An -t u4 --endian=little -j "$2" -N 4 "$1" | tr -d ' '; }

# The raw BTF of kernel image $1 into $2: the first place holding a valid
# BTF header (magic 0xeB9F, version 1, flags 0, hdr_len 24; the type
# section at offset 0, the string section right after it, both inside the
# file) and the sections it describes.
cut_btf() {
	size=$(wc -c <"$1")
	# byte offsets of the BTF magic with a 24-byte header: numbers, one per word
	offsets=$(LC_ALL=C grep -obUaP '\x9f\xeb\x01\x00\x18\x00\x00\x00' "$1" | cut -d: -f1)
	for at in $offsets; do
		type_off=$(u32 "$1" $((at + 8)))
		type_len=$(u32 "$1" $((at + 12)))
		str_off=$(u32 "$1" $((at + 16)))
		str_len=$(u32 "$1" $((at + 20)))
		len=$((24 + str_off + str_len))
		[ "$type_off" = 0 ] && [ "$str_off" = "$type_len" ] &&
			[ "$type_len" -gt 0 ] && [ "$str_len" -gt 0 ] &&
			[ $((at + len)) -le "$size" ] || continue
		tail -c +$((at + 1)) "$1" | head -c "$len" >"$2"
		echo "$me: BTF at byte $at of $src, $len bytes" >&2
		return 0
	done
	die "no BTF found in $src"
}

btf=$src
if [ "$(od -An -t x1 -N 2 "$src" | tr -d ' ')" != 9feb ]; then
	img=$src
	if [ "$(od -An -t x1 -N 2 "$src" | tr -d ' ')" = 1f8b ]; then
		img=$tmp/image
		gzip -dc "$src" >"$img"
	fi
	btf=$tmp/vmlinux.btf
	cut_btf "$img" "$btf"
fi
mkdir -p "$(dirname "$out")"
${BPFTOOL:-bpftool} btf dump file "$btf" format c >"$out.tmp.$$"
mv "$out.tmp.$$" "$out"
