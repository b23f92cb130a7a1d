/* bpf/async.bpf.h: how riot.bpf.c records an asynchronous request (a
 * RIOT_ASYNC_OP row of syscalls.def): io_uring, Linux AIO and mmap pages
 * alike. The request's source fills a struct async_req and hands it to
 * async_emit(), which sends it through emit_record() like a syscall: a
 * RIOT_EV_SYSCALL event whose arguments sit where the row's roles say, so
 * capture/convert.c reads it with no code of its own. Included at the end
 * of riot.bpf.c, after the batch helpers it uses. */

/* Which arguments of a row go on the wire (bit N: argument N). */
static const __u8 async_wire[RIOT_SYS_SLOTS] = {
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
	__u16 flags;		/* RIOT_EVF_*: FACTS when x holds the file's
				 * facts; CREATED; the paths' TRUNC, FAULT */
	__u16 len1, len2;	/* bytes of path1, path2 with their NUL
				 * (at most RIOT_PATH_MAX; 0: none) */
	const char *path1;	/* kernel memory, read when sent */
	const char *path2;
	struct riot_ev_ext x;	/* with RIOT_EVF_FACTS */
};

/* A bounded copy of a kept path into dst; its length. */
static __always_inline __u32 copy_path(char *dst, const char *src, __u32 len)
{
	asm volatile("" : "+r"(len));	/* keep the bound check on len */
	len &= 2 * RIOT_PATH_MAX - 1;
	if (len > RIOT_PATH_MAX)
		return 0;
	if (len && bpf_probe_read_kernel(dst, len, src))
		return 0;
	return len;
}

/* r's event at its completion now, into ev (room for EVENT_ROOM bytes);
 * its size. A request submitted at t ends now; one without a submission
 * time is timed now. */
static __always_inline __u32 async_fill(struct riot_ev_syscall *ev,
					const struct async_req *r, __u64 now)
{
	__u8 wire = r->sys < RIOT_SYS_COUNT ? async_wire[SYS_SLOT(r->sys)] : 0;
	__u32 k, head, len1, len2;
	__u16 flags = r->flags;
	__u64 t = r->t ? r->t : now;
	char *data;

	k = put_args((__u64 *)((char *)ev + RIOT_EV_SYSCALL_HDR), r->args,
		     wire) & 7;
	ev->type = RIOT_EV_SYSCALL;
	ev->nargs = k;
	ev->sys = r->sys;
	ev->value_len = 0;
	ev->pid = r->pid;
	ev->tid = r->tid;
	ev->pad2 = 0;
	ev->t = t;
	ev->dur = now > t ? now - t : 0;
	ev->ret = r->ret;
	head = RIOT_EV_SYSCALL_HDR + k * 8;
	if (flags & RIOT_EVF_FACTS) {
		__builtin_memcpy((char *)ev + head, &r->x, sizeof(r->x));
		flags |= RIOT_EVF_EXT;
		head += sizeof(r->x);
	}
	data = (char *)ev + (head & 255);
	len1 = copy_path(data, r->path1, r->len1);
	len2 = copy_path(data + len1, r->path2, r->len2);
	ev->flags = flags;
	ev->path_len = len1;
	ev->path2_len = len2;
	return (head & 255) + len1 + len2;
}

__attribute__((noinline)) __u32 fill_async_event(struct event_room *ev,
						const struct async_req *a,
						__u64 now)
{
	if (!ev || !a)
		return 0;
	return async_fill((void *)ev, a, now);
}

/* Sends r's event: into this CPU's batch, or as a record of its own when
 * another program holds the batch (see emit_record()). */
static __always_inline void async_emit(const struct async_req *r)
{
	emit_record(0, r, r->ret);
}
