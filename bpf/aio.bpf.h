/* bpf/aio.bpf.h: Linux AIO requests (aio:pread, aio:pwrite, aio:preadv,
 * aio:pwritev, aio:fsync, aio:fdsync). Included at the end of riot.bpf.c.
 *
 * io_submit's entry reads its iocbs (opcode, fd, offset, length, the
 * iovecs' total for the vectored ones, flags) and keeps each request in
 * flight by (process, context, iocb address), timed at that entry; its
 * exit forgets the iocbs the kernel did not take (ret below the count).
 * The exit of io_getevents or io_pgetevents reads the io_events it
 * returned (obj: the iocb's address, res: the result) and records each of
 * those requests, ending when the program reaped it: Linux has no
 * tracepoint at an AIO completion, and kprobes may be refused. io_destroy
 * and the end of the process forget what is left, counted as lost: a
 * request reaped from the ring in user space (fio's userspace_reap) is
 * never seen done. */

#define AIO_BATCH_MAX 1024	/* iocbs of one io_submit, io_events of one
				 * reap, read; beyond: counted as lost */
#define AIO_IOV_MAX 1024	/* UIO_MAXIOV */
#define AIO_INFLIGHT_MAX 65536	/* fs.aio-max-nr's default */

enum {	/* IOCB_CMD_* (linux/aio_abi.h) */
	AIO_CMD_PREAD = 0,
	AIO_CMD_PWRITE = 1,
	AIO_CMD_FSYNC = 2,
	AIO_CMD_FDSYNC = 3,
	AIO_CMD_PREADV = 7,
	AIO_CMD_PWRITEV = 8,
};

/* linux/aio_abi.h's struct iocb and struct io_event, alike on x86_64 and
 * arm64 (64-bit, little-endian). */
struct user_iocb {
	__u64 aio_data;
	__u32 aio_key, aio_rw_flags;
	__u16 aio_lio_opcode;
	__s16 aio_reqprio;
	__u32 aio_fildes;
	__u64 aio_buf, aio_nbytes;
	__s64 aio_offset;
	__u64 aio_reserved2;
	__u32 aio_flags, aio_resfd;
};

struct user_io_event {
	__u64 data, obj;
	__s64 res, res2;
};

struct aio_key {
	__u32 tgid, pad;
	__u64 ctx, iocb;	/* aio_context_t, the iocb's user address */
};

struct aio_req {
	__u64 t;		/* io_submit's entry */
	__u64 off, cnt, flags;
	__u32 tid, iovcnt;
	__s32 fd;
	__u16 sys;
	__u16 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, AIO_INFLIGHT_MAX);
	__type(key, struct aio_key);
	__type(value, struct aio_req);
} aio_inflight SEC(".maps");

/* Processes with requests in flight: their end forgets them. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} aio_procs SEC(".maps");

static __always_inline int aio_sys_of(__u16 opcode)
{
	switch (opcode) {
	case AIO_CMD_PREAD: return RIOT_SYS_aio_pread;
	case AIO_CMD_PWRITE: return RIOT_SYS_aio_pwrite;
	case AIO_CMD_FSYNC: return RIOT_SYS_aio_fsync;
	case AIO_CMD_FDSYNC: return RIOT_SYS_aio_fdsync;
	case AIO_CMD_PREADV: return RIOT_SYS_aio_preadv;
	case AIO_CMD_PWRITEV: return RIOT_SYS_aio_pwritev;
	}
	return -1;	/* IOCB_CMD_POLL, IOCB_CMD_NOOP: no file I/O */
}

/* The state of the loops below lives in a map value, not on the stack:
 * the verifier then takes its values as unknown and checks each callback
 * once, not once per value of a counter. */
struct iov_sum {
	__u64 base, total;
	__u32 bad;
};

struct aio_walk {
	__u64 ctx, ptrs, t;
	__u32 tgid, tid;
	__u64 lost;
};

struct aio_state {
	struct iov_sum iov;
	struct aio_walk w;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct aio_state);
} aio_states SEC(".maps");

/* bpf_loop's context lives on the stack: it points at the state. */
struct aio_loop {
	void *p;
};

static __always_inline struct aio_state *aio_state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&aio_states, &zero);
}

static long iov_add(__u64 i, void *data)
{
	struct iov_sum *s = ((struct aio_loop *)data)->p;
	__u64 v[2];

	if (bpf_probe_read_user(v, sizeof(v), (void *)(s->base + i * 16))) {
		s->bad = 1;
		return 1;
	}
	s->total += v[1];
	return 0;
}

/* The bytes of n iovecs at base, or -1 when they cannot be read. */
__attribute__((noinline)) long aio_iov_bytes(__u64 base, __u64 n)
{
	struct aio_state *st = aio_state();
	struct aio_loop c;
	struct iov_sum *s;

	if (!st || n > AIO_IOV_MAX)
		return -1;
	s = &st->iov;
	s->base = base;
	s->total = 0;
	s->bad = 0;
	c.p = s;
	bpf_loop(n, iov_add, &c, 0);
	return s->bad ? -1 : (long)s->total;
}

/* The i-th iocb of an io_submit, taken in flight. */
static long aio_take(__u64 i, void *data)
{
	struct aio_walk *w = ((struct aio_loop *)data)->p;
	struct aio_key key = { .tgid = w->tgid, .ctx = w->ctx };
	struct aio_req req = {};
	struct user_iocb cb;
	long bytes;
	int sys;

	if (bpf_probe_read_user(&key.iocb, sizeof(key.iocb),
				(void *)(w->ptrs + i * 8)) ||
	    bpf_probe_read_user(&cb, sizeof(cb), (void *)key.iocb)) {
		w->lost++;
		return 0;
	}
	sys = aio_sys_of(cb.aio_lio_opcode);
	if (sys < 0 || !sys_recorded(sys))
		return 0;
	req.t = w->t;
	req.tid = w->tid;
	req.sys = sys;
	req.fd = (__s32)cb.aio_fildes;
	req.off = cb.aio_offset;
	/* RWF_* in the low half, IOCB_FLAG_* in the high one */
	req.flags = cb.aio_rw_flags | (__u64)cb.aio_flags << 32;
	if (sys == RIOT_SYS_aio_preadv || sys == RIOT_SYS_aio_pwritev) {
		req.iovcnt = cb.aio_nbytes;
		bytes = aio_iov_bytes(cb.aio_buf, cb.aio_nbytes);
		if (bytes < 0) {
			w->lost++;
			return 0;
		}
		req.cnt = bytes;
	} else if (sys == RIOT_SYS_aio_pread || sys == RIOT_SYS_aio_pwrite) {
		req.cnt = cb.aio_nbytes;
	}
	/* an fd the capture did not see made is introduced first */
	fd_check(req.fd);
	if (bpf_map_update_elem(&aio_inflight, &key, &req, BPF_ANY))
		w->lost++;
	return 0;
}

/* io_submit(ctx, nr, iocbpp) entry. A global function: verified once. */
/* Calls fn on the first n entries (of at most AIO_BATCH_MAX) of w's
 * array; counts as lost those beyond, and those fn could not read. */
static __always_inline void aio_walk_all(struct aio_walk *w, long n,
					 long (*fn)(__u64 i, void *data))
{
	struct aio_loop c = { .p = w };

	if (n > AIO_BATCH_MAX) {
		w->lost += n - AIO_BATCH_MAX;
		n = AIO_BATCH_MAX;
	}
	bpf_loop(n, fn, &c, 0);
	if (w->lost)
		count_losses(0, w->lost);
}

/* The loop state of one call, in this CPU's map value. */
static __always_inline struct aio_walk *aio_walk_start(__u64 ctx, __u64 ptrs)
{
	struct aio_state *st = aio_state();
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct aio_walk *w;

	if (!st)
		return NULL;
	w = &st->w;
	w->ctx = ctx;
	w->ptrs = ptrs;
	w->tgid = pid_tgid >> 32;
	w->tid = (__u32)pid_tgid;
	w->t = bpf_ktime_get_boot_ns();
	w->lost = 0;
	return w;
}

__attribute__((noinline)) int aio_submit_enter(__u64 ctx, __u64 nr, __u64 iocbpp)
{
	struct aio_walk *w;
	__u8 one = 1;
	long n = nr;

	if (n <= 0 || !(w = aio_walk_start(ctx, iocbpp)))
		return 0;
	if (!bpf_map_lookup_elem(&aio_procs, &w->tgid))	/* an update copies */
		bpf_map_update_elem(&aio_procs, &w->tgid, &one, BPF_ANY);
	aio_walk_all(w, n, aio_take);
	return 0;
}

/* The i-th iocb of an io_submit the kernel did not take: forgotten. */
static long aio_untake(__u64 i, void *data)
{
	struct aio_walk *w = ((struct aio_loop *)data)->p;
	struct aio_key key = { .tgid = w->tgid, .ctx = w->ctx };

	if (!bpf_probe_read_user(&key.iocb, sizeof(key.iocb),
				 (void *)(w->ptrs + i * 8)))
		bpf_map_delete_elem(&aio_inflight, &key);
	return 0;
}

/* The i-th io_event a reap returned: its request recorded. */
static long aio_reap(__u64 i, void *data)
{
	struct aio_walk *w = ((struct aio_loop *)data)->p;
	struct aio_key key = { .tgid = w->tgid, .ctx = w->ctx };
	struct user_io_event e;
	struct async_req r = {};
	struct aio_req *q;

	if (bpf_probe_read_user(&e, sizeof(e), (void *)(w->ptrs + i * 32))) {
		w->lost++;
		return 0;
	}
	key.iocb = e.obj;
	q = bpf_map_lookup_elem(&aio_inflight, &key);
	if (!q)		/* submitted before the capture, or not recorded */
		return 0;
	r.sys = q->sys;
	r.pid = w->tgid;
	r.tid = q->tid;
	r.t = q->t;
	r.ret = e.res;
	/* CTX, FD, CNT, OFF, FLAGS, IOVCNT (syscalls.def) */
	r.args[0] = w->ctx;
	r.args[1] = (__u32)q->fd;
	r.args[2] = q->cnt;
	r.args[3] = q->off;
	r.args[4] = q->flags;
	r.args[5] = q->iovcnt;
	bpf_map_delete_elem(&aio_inflight, &key);
	async_emit(&r);
	return 0;
}

struct aio_sweep {
	__u32 tgid;
	__u32 all;	/* every context of the process */
	__u64 ctx;
};

static long aio_forget(struct bpf_map *map, struct aio_key *key,
		       struct aio_req *req, struct aio_sweep *s)
{
	/* done, but never reaped through a syscall: not recorded */
	if (key->tgid == s->tgid && (s->all || key->ctx == s->ctx) &&
	    !bpf_map_delete_elem(map, key))
		count_loss(0);
	return 0;
}

/* The exit of io_submit (args: ctx, nr, iocbpp), io_getevents and
 * io_pgetevents (ctx, events) and io_destroy (ctx). */
__attribute__((noinline)) int aio_exit(__u32 sys, long ret, __u64 ctx, __u64 nr,
				       __u64 ptr)
{
	struct aio_sweep s = { .tgid = bpf_get_current_pid_tgid() >> 32,
			       .ctx = ctx };
	long n = nr, from = ret > 0 ? ret : 0;
	struct aio_walk *w;
	struct aio_loop c;

	if (sys == RIOT_SYS_io_destroy) {
		if (ret == 0)
			bpf_for_each_map_elem(&aio_inflight, aio_forget, &s, 0);
		return 0;
	}
	if (sys == RIOT_SYS_io_submit) {
		if (n > AIO_BATCH_MAX)
			n = AIO_BATCH_MAX;
		if (from < n && (w = aio_walk_start(ctx, ptr + from * 8))) {
			c.p = w;
			bpf_loop(n - from, aio_untake, &c, 0);
		}
		return 0;
	}
	if (ret > 0 && (w = aio_walk_start(ctx, ptr)))
		aio_walk_all(w, ret, aio_reap);
	return 0;
}

/* The last task of process tgid is gone: its requests with it. */
__attribute__((noinline)) int aio_proc_gone(__u32 tgid)
{
	struct aio_sweep s = { .tgid = tgid, .all = 1 };

	if (!bpf_map_lookup_elem(&aio_procs, &tgid))
		return 0;
	bpf_for_each_map_elem(&aio_inflight, aio_forget, &s, 0);
	bpf_map_delete_elem(&aio_procs, &tgid);
	return 0;
}
