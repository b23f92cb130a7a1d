// SPDX-License-Identifier: GPL-2.0
/* bpf/block.bpf.c: what reached the block devices under a replay root or a
 * capture's files (docs/reports.md: "What the storage saw").
 *
 * block_rq_issue and block_rq_complete, as BTF tracepoints so the request
 * itself pairs issue with completion. A request belongs to the partition
 * it was sent to (rq->part), else to its disk; only the devices in devs[]
 * are followed. Counts are taken at completion, as /sys/block/<dev>/stat
 * takes them, so the two agree.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "block.h"

char LICENSE[] SEC("license") = "GPL";

/* kernel dev_t encoding (MKDEV: major << 20 | minor), set before load */
const volatile __u32 ndevs = 0;
const volatile __u32 devs[BLOCK_MAX_DEVS] = { 0 };

struct block_dev_counts counts[BLOCK_MAX_DEVS];
/* [device][read, write][bucket] */
__u64 lat_hist[BLOCK_MAX_DEVS][BLOCK_LAT_OPS][BLOCK_HIST_BUCKETS];

struct inflight {
	__u64 issue_ns;
	__u32 slot;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);			/* struct request * */
	__type(value, struct inflight);
} issued SEC(".maps");

static __always_inline int slot_of(struct request *rq)
{
	struct block_device *part = BPF_CORE_READ(rq, part);
	__u32 dev;

	if (part) {
		dev = BPF_CORE_READ(part, bd_dev);
	} else {
		struct gendisk *disk = BPF_CORE_READ(rq, q, disk);

		if (!disk)
			return -1;
		dev = ((__u32)BPF_CORE_READ(disk, major) << 20) |
		      (__u32)BPF_CORE_READ(disk, first_minor);
	}
	for (__u32 i = 0; i < BLOCK_MAX_DEVS; i++) {
		if (i >= ndevs)
			break;
		if (devs[i] == dev)
			return (int)i;
	}
	return -1;
}

/* op_stat_group() of the kernel */
static __always_inline int op_group(struct request *rq)
{
	__u32 op = BPF_CORE_READ(rq, cmd_flags) & 0xff;	/* REQ_OP_MASK */

	if (op == REQ_OP_FLUSH)
		return BLOCK_FLUSH;
	if (op == REQ_OP_DISCARD || op == REQ_OP_SECURE_ERASE)
		return BLOCK_DISCARD;
	return op & 1 ? BLOCK_WRITE : BLOCK_READ;
}

static __always_inline void raise_max(__u64 *p, __u64 v)
{
	__u64 old = *p;

	/* a few tries: another CPU raising it meanwhile is rare */
	for (int i = 0; i < 8 && v > old; i++) {
		__u64 prev = __sync_val_compare_and_swap(p, old, v);

		if (prev == old)
			break;
		old = prev;
	}
}

/* lib/hist.c's hist_bucket() without __builtin_clzll */
static __always_inline __u32 hist_bucket(__u64 v)
{
	__u32 k = 0;
	__u64 x = v;

	if (v < (1 << BLOCK_HIST_SUB_BITS))
		return (__u32)v;
	if (x >> 32) { x >>= 32; k += 32; }
	if (x >> 16) { x >>= 16; k += 16; }
	if (x >> 8) { x >>= 8; k += 8; }
	if (x >> 4) { x >>= 4; k += 4; }
	if (x >> 2) { x >>= 2; k += 2; }
	if (x >> 1) { k += 1; }
	return (1 << BLOCK_HIST_SUB_BITS) + (k - BLOCK_HIST_SUB_BITS) * (1 << BLOCK_HIST_SUB_BITS) +
	       (__u32)((v >> (k - BLOCK_HIST_SUB_BITS)) & ((1 << BLOCK_HIST_SUB_BITS) - 1));
}

static __always_inline void leave_queue(struct block_dev_counts *c)
{
	__sync_fetch_and_add(&c->inflight, -1);
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(block_issue, struct request *rq)
{
	struct inflight in;
	__u64 key = (__u64)rq;
	struct block_dev_counts *c;
	__s64 depth;
	int slot = slot_of(rq);

	if (slot < 0 || slot >= BLOCK_MAX_DEVS)
		return 0;
	c = &counts[slot];
	in.issue_ns = bpf_ktime_get_ns();
	in.slot = (__u32)slot;
	/* a request issued again (after a requeue) is still in flight once */
	if (bpf_map_update_elem(&issued, &key, &in, BPF_NOEXIST) != 0) {
		bpf_map_update_elem(&issued, &key, &in, BPF_EXIST);
		return 0;
	}
	depth = __sync_fetch_and_add(&c->inflight, 1) + 1;
	if (depth > 0) {
		raise_max(&c->depth_max, (__u64)depth);
		raise_max(&c->depth_peak, (__u64)depth);
	}
	return 0;
}

SEC("tp_btf/block_rq_requeue")
int BPF_PROG(block_requeue, struct request *rq)
{
	__u64 key = (__u64)rq;
	struct inflight *in = bpf_map_lookup_elem(&issued, &key);
	__u32 slot;

	if (!in)
		return 0;
	slot = in->slot;
	if (bpf_map_delete_elem(&issued, &key) == 0 && slot < BLOCK_MAX_DEVS)
		leave_queue(&counts[slot]);
	return 0;
}

/* RQF_FLUSH_SEQ: an enum bit since Linux 6.5 (commit 9f87fc4d72f5), a
 * define of 1 << 4 before. Declared here for the vmlinux.h of kernels
 * before it (bpf/arm64/vmlinux.h, 6.1's); CO-RE matches the enum and its
 * value by their names before ___. */
enum rqf_flags___riot {
	__RQF_FLUSH_SEQ___riot = 1,
};

static __always_inline bool in_flush_sequence(struct request *rq)
{
	__u32 bit = 1u << 4;

	if (bpf_core_enum_value_exists(enum rqf_flags___riot, __RQF_FLUSH_SEQ___riot))
		bit = 1u << bpf_core_enum_value(enum rqf_flags___riot, __RQF_FLUSH_SEQ___riot);
	return BPF_CORE_READ(rq, rq_flags) & bit;
}

/* Counted as /sys/block/<dev>/stat counts: bytes at every completion; a
 * request once, when it ends. A PREFLUSH/FUA write's data completes inside
 * the kernel's flush sequence and the request ends later (the stat file
 * counts it then, and so does this); a flush of its own is a flush. */
SEC("tp_btf/block_rq_complete")
int BPF_PROG(block_complete, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	__u64 key = (__u64)rq, now = bpf_ktime_get_ns(), issue_ns;
	struct block_dev_counts *c;
	struct inflight *in;
	int slot = slot_of(rq), op;
	bool done;

	if (slot < 0 || slot >= BLOCK_MAX_DEVS)
		return 0;
	c = &counts[slot];
	op = op_group(rq);
	__sync_fetch_and_add(&c->bytes[op], nr_bytes);
	/* a request may complete in parts: it is done when the part covers
	 * what is left of it (__data_len is not yet reduced here) */
	done = nr_bytes >= BPF_CORE_READ(rq, __data_len);
	if (!done)
		return 0;
	if (op == BLOCK_FLUSH || !in_flush_sequence(rq))
		__sync_fetch_and_add(&c->reqs[op], 1);
	/* the device's part: from the issue it saw to this completion */
	in = bpf_map_lookup_elem(&issued, &key);
	if (!in) {
		__sync_fetch_and_add(&c->untimed, 1);
		return 0;
	}
	issue_ns = in->issue_ns;
	if (bpf_map_delete_elem(&issued, &key) == 0) {
		__u64 lat = now > issue_ns ? now - issue_ns : 0;

		leave_queue(c);
		__sync_fetch_and_add(&c->lat_sum_all, lat);
		if (op == BLOCK_READ || op == BLOCK_WRITE) {
			__u32 b = hist_bucket(lat);

			__sync_fetch_and_add(&c->lat_sum[op], lat);
			__sync_fetch_and_add(&c->lat_count[op], 1);
			raise_max(&c->lat_max[op], lat);
			if (b < BLOCK_HIST_BUCKETS)
				__sync_fetch_and_add(&lat_hist[slot][op][b], 1);
		}
	}
	return 0;
}
