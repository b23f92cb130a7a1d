# shellcheck shell=bash
# scripts/loopfs.sh: fresh filesystems on loop devices, for scripts that
# compare filesystems (sourced, never run by itself). Needs root.
#
#   loopfs_make TYPE IMG MNT MB   a sparse IMG of MB MiB with a fresh TYPE
#                                 (ext4, xfs, btrfs) filesystem with its
#                                 default options, mounted at MNT
#   loopfs_cleanup                unmounts every MNT loopfs_make mounted
#                                 (mount -o loop frees the loop device)
loopfs_mounted=()

loopfs_make() {
	local type=$1 img=$2 mnt=$3 mb=$4
	truncate -s "${mb}M" "$img" || return 1
	case $type in
	ext4) mkfs.ext4 -q -F "$img" ;;
	xfs) mkfs.xfs -q -f "$img" ;;
	btrfs) mkfs.btrfs -q -f "$img" >/dev/null ;;
	*) echo "loopfs_make: unknown filesystem $type" >&2; return 1 ;;
	esac || return 1
	mkdir -p "$mnt" && mount -o loop "$img" "$mnt" || return 1
	loopfs_mounted+=("$mnt")
}

loopfs_cleanup() {
	local m
	for m in "${loopfs_mounted[@]}"; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
	done
	loopfs_mounted=()
}
