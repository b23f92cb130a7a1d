/* bpf/async.bpf.h: how riot.bpf.c records an asynchronous request (a
 * RIOT_ASYNC_OP row of syscalls.def): as a RIOT_EV_SYSCALL event whose
 * arguments sit where the row's roles say, sent like a syscall's, so
 * capture/convert.c reads it with no code of its own. Included at the end
 * of riot.bpf.c, after the batch and scratch helpers it uses. */

/* Which arguments of a row go on the wire (bit N: argument N). */
static const __u8 async_wire[RIOT_SYS_COUNT] = {
#define RIOT_SYSCALL(name, nr, cls, fl, a0, a1, a2, a3, a4, a5)
#define RIOT_ASYNC_OP(id, str, cls, fl, a0, a1, a2, a3, a4, a5)               \
	[RIOT_SYS_##id] = WIRE(a0, a1, a2, a3, a4, a5),
#include "syscalls.def"
#undef RIOT_SYSCALL
};

/* One request, as its program knows it. */
struct async_req {
	__u64 args[6];		/* by argument position in the row */
	__u64 t;		/* submission; 0: the record's own time */
	__s64 ret;
	__u32 pid, tid;
	__u16 sys;		/* an asynchronous RIOT_SYS_* */
	__u16 facts;		/* size, ino, dev, mode are set */
	__u32 mode;
	__u64 size, ino, dev;
};

/* Header, arguments, ext and a path: the largest event sent here. */
#define ASYNC_EV_MAX (RIOT_EV_SYSCALL_HDR + 6 * 8 + sizeof(struct riot_ev_ext) + \
		      RIOT_PATH_MAX)

struct async_scratch {
	char ev[ASYNC_EV_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct async_scratch);
} async_scratches SEC(".maps");

/* Builds r's event, with path (path_len bytes, its NUL the last; 0: none),
 * in the scratch; returns its size, 0 on failure. */
static __always_inline __u32 async_build(struct async_scratch *sc,
					 const struct async_req *r,
					 const char *path, __u32 path_len)
{
	struct riot_ev_syscall *ev = (void *)sc->ev;
	struct riot_ev_ext *x;
	__u8 wire = r->sys < RIOT_SYS_COUNT ? async_wire[r->sys] : 0;
	__u32 k, head;

	__builtin_memset(ev, 0, RIOT_EV_SYSCALL_HDR);
	ev->type = RIOT_EV_SYSCALL;
	ev->sys = r->sys;
	ev->pid = r->pid;
	ev->tid = r->tid;
	ev->t = r->t;
	ev->ret = r->ret;
	k = put_args((__u64 *)(sc->ev + RIOT_EV_SYSCALL_HDR), r->args, wire);
	ev->nargs = k;
	head = RIOT_EV_SYSCALL_HDR + (k & 7) * 8;
	if (r->facts) {
		x = (void *)(sc->ev + (head & 127));
		__builtin_memset(x, 0, sizeof(*x));
		x->size = r->size;
		x->ino = r->ino;
		x->dev = r->dev;
		x->ftype = r->mode & S_IFMT_BITS;
		x->perm = r->mode & PERM_BITS;
		ev->flags |= RIOT_EVF_EXT | RIOT_EVF_FACTS;
		head += sizeof(*x);
	}
	if (path && path_len) {
		path_len &= RIOT_PATH_MAX - 1;
		if (!path_len ||
		    bpf_probe_read_kernel(sc->ev + (head & 255), path_len, path))
			path_len = 0;
		ev->path_len = path_len;
		head += path_len;
	}
	return head;
}

/* Sets the record's times: a request submitted at t ends now; one without
 * a submission time is timed now. */
static __always_inline void async_time(struct riot_ev_syscall *ev, __u64 now)
{
	if (!ev->t)
		ev->t = now;
	ev->dur = now > ev->t ? now - ev->t : 0;
}

/* Sends r's event: into this CPU's batch, or as a record of its own when
 * another program holds the batch. Its time is taken once the batch is
 * held (see batch_flush()). */
static __always_inline void async_emit(const struct async_req *r,
				       const char *path, __u32 path_len)
{
	__u32 zero = 0, size;
	struct async_scratch *sc = bpf_map_lookup_elem(&async_scratches, &zero);
	struct batch *cb, *b;
	__u64 off;

	if (!sc) {
		count_loss(1);
		return;
	}
	size = async_build(sc, r, path, path_len);
	if (!size || size > sizeof(sc->ev))
		return;
	cb = cpu_batch();
	b = batch_hold(cb);
	if (!b) {
		if (cb)
			__sync_fetch_and_add(&cb->direct, 1);
		async_time((void *)sc->ev, bpf_ktime_get_boot_ns());
		if (bpf_ringbuf_output(&events, sc->ev, size, ring_flags()))
			count_loss(1);
		direct_end(cb);
		return;
	}
	async_time((void *)sc->ev, bpf_ktime_get_boot_ns());
	if (b->len > BATCH_LIMIT || b->len < RIOT_BATCH_HDR)
		batch_flush(b, 0);
	off = b->len;
	asm volatile("" : "+r"(off));	/* keep the bound check on off */
	if (off <= BATCH_LIMIT && size <= ASYNC_EV_MAX &&
	    !bpf_probe_read_kernel(b->buf + off, size, sc->ev)) {
		b->len = off + ((size + 7) & ~7u);
		b->count++;
	} else {
		count_loss(1);
	}
	if (b->len > BATCH_LIMIT || b->gen != flush_gen)
		batch_flush(b, 0);
	batch_put(b);
}
