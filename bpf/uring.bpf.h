/* bpf/uring.bpf.h: io_uring requests, included at the end of riot.bpf.c.
 *
 * A request is seen at io_uring_submit_req, after the kernel prepared it
 * (its opcode's arguments are in the request), on whatever task submitted
 * it: the program's own thread or its SQPOLL thread, a thread of the same
 * process. What the record needs is kept in async_reqs, keyed by the
 * request, until io_uring_complete posts its CQE; then one event with the
 * submission time, the time to completion and the CQE's res goes to the
 * batch like a syscall's (async_emit(); bpf/syscalls.def, RIOT_ASYNC_OP
 * rows).
 *
 * Paths of the requests that take one (openat, statx, renameat, ...) are
 * read at submission from the kernel's copy (struct filename): the kernel
 * frees it before completion. A request on a registered file (fixed file
 * or direct descriptor) carries its file's facts, and the first one on an
 * index whose file the capture has not seen there carries the file's path
 * too (walked from the kernel, as an fd introduction).
 *
 * Bounded: at most ASYNC_INFLIGHT_MAX requests in flight are followed and
 * ASYNC_PATHS_MAX of them with paths; a request that finds no room, or
 * that posts no CQE (IOSQE_CQE_SKIP_SUCCESS), is counted as a slot loss
 * (a DROP record). Requests whose CQE never comes (the ring overflowed)
 * keep their entry until a later request reuses the memory.
 */

#define ASYNC_INFLIGHT_MAX 16384
#define ASYNC_PATHS_MAX 1024
#define ASYNC_RINGS_MAX 4096
#define ASYNC_FIXED_MAX 16384
#define IOSQE_FIXED_FILE_FLAG 0x01u
#define IOSQE_CQE_SKIP_FLAG 0x40u
#define IOSQE_FLAGS_MASK 0x7fu	/* the low bits of req->flags are the SQE's */
#define FILE_INDEX_ALLOC 0xffffffffu	/* IORING_FILE_INDEX_ALLOC */
#define PF_IO_WORKER_FLAG 0x10u

/* What is read here of kernels younger than the oldest vmlinux.h this is
 * compiled against (bpf/arm64/vmlinux.h is Linux 6.1's) is declared here:
 * CO-RE matches a type named T___riot against the running kernel's T, a
 * field by its name. Opcodes are kernel ABI. */
#define URING_OP_FTRUNCATE 55u	/* IORING_OP_FTRUNCATE, Linux 6.9 */
#define URING_OPS (URING_OP_FTRUNCATE + 1)	/* the opcodes uring_ops names */

struct io_ftrunc___riot {	/* Linux 6.9 */
	struct file *file;
	loff_t len;
} __attribute__((preserve_access_index));

struct io_async_rw___riot {	/* its iov_iter as `iter` (newer kernels) */
	struct iov_iter iter;
} __attribute__((preserve_access_index));

struct io_rw_state___riot {
	struct iov_iter iter;
} __attribute__((preserve_access_index));

struct io_async_rw___riot_s {	/* or as `s.iter` (6.1's) */
	struct io_rw_state___riot s;
} __attribute__((preserve_access_index));

/* A request in flight: the values of its row's roles. */
struct uring_req {
	__u64 t;		/* submission */
	__u64 key;		/* the request (struct io_kiocb *) */
	__u64 ctx;		/* ring id (async_ring_id) */
	__u64 ring;		/* the struct io_ring_ctx */
	__s64 fd, fd2, dfd, dfd2;
	__u64 cnt, off, flags, mode, cmd, iovcnt;
	__u32 pid, tid;
	__u16 sys;
	__u8 paths;		/* has an entry in async_paths */
	__u8 fixed;		/* fd is a registered file's index */
	__u8 slot_alloc;	/* direct open, slot chosen by the kernel:
				 * the slot is the result */
	__u8 pad[3];
	/* set at completion */
	__u64 file;		/* fixed file's struct file */
	__u8 intro;		/* walk the fixed file's path */
};

struct async_paths {
	__u16 len1, len2, flags, pad;
	char p1[RIOT_PATH_MAX];
	char p2[RIOT_PATH_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, ASYNC_INFLIGHT_MAX);
	__type(key, __u64);
	__type(value, struct uring_req);
} async_reqs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, ASYNC_PATHS_MAX);
	__type(key, __u64);
	__type(value, struct async_paths);
} async_path_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct async_paths);
} async_path_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct uring_req);
} async_req_scratch SEC(".maps");

/* struct io_ring_ctx -> ring id (1, 2, ...): logs hold no kernel address.
 * A ring made while tracing gets a fresh id even at a reused address. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, ASYNC_RINGS_MAX);
	__type(key, __u64);
	__type(value, __u64);
} async_rings SEC(".maps");

__u64 async_next_ring;

/* (ring id, registered index) -> the struct file the last record on it
 * named: a new one is introduced with its path. */
struct fixed_key {
	__u64 ctx;
	__u32 idx;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, ASYNC_FIXED_MAX);
	__type(key, struct fixed_key);
	__type(value, __u64);
} async_fixed SEC(".maps");

/* The argument roles of every row (the asynchronous ones only). */
static const __u8 async_roles[RIOT_SYS_SLOTS][6] = {
#define RIOT_SYSCALL(name, nr, cls, fl, a0, a1, a2, a3, a4, a5)
#define RIOT_ASYNC_OP(id, str, cls, fl, a0, a1, a2, a3, a4, a5)            \
	[RIOT_SYS_##id] = { RIOT_ARG_##a0, RIOT_ARG_##a1, RIOT_ARG_##a2,      \
			    RIOT_ARG_##a3, RIOT_ARG_##a4, RIOT_ARG_##a5 },
#include "syscalls.def"
#undef RIOT_SYSCALL
};

/* IORING_OP_* -> RIOT_SYS_* (0: io_uring:other). Opcodes are kernel ABI. */
static const __u16 uring_ops[URING_OPS] = {
	[IORING_OP_READV] = RIOT_SYS_uring_readv,
	[IORING_OP_WRITEV] = RIOT_SYS_uring_writev,
	[IORING_OP_FSYNC] = RIOT_SYS_uring_fsync,
	[IORING_OP_READ_FIXED] = RIOT_SYS_uring_read_fixed,
	[IORING_OP_WRITE_FIXED] = RIOT_SYS_uring_write_fixed,
	[IORING_OP_SYNC_FILE_RANGE] = RIOT_SYS_uring_sync_file_range,
	[IORING_OP_FALLOCATE] = RIOT_SYS_uring_fallocate,
	[IORING_OP_OPENAT] = RIOT_SYS_uring_openat,
	[IORING_OP_CLOSE] = RIOT_SYS_uring_close,
	[IORING_OP_STATX] = RIOT_SYS_uring_statx,
	[IORING_OP_READ] = RIOT_SYS_uring_read,
	[IORING_OP_WRITE] = RIOT_SYS_uring_write,
	[IORING_OP_FADVISE] = RIOT_SYS_uring_fadvise,
	[IORING_OP_OPENAT2] = RIOT_SYS_uring_openat2,
	[IORING_OP_SPLICE] = RIOT_SYS_uring_splice,
	[IORING_OP_TEE] = RIOT_SYS_uring_tee,
	[IORING_OP_RENAMEAT] = RIOT_SYS_uring_renameat,
	[IORING_OP_UNLINKAT] = RIOT_SYS_uring_unlinkat,
	[IORING_OP_MKDIRAT] = RIOT_SYS_uring_mkdirat,
	[IORING_OP_SYMLINKAT] = RIOT_SYS_uring_symlinkat,
	[IORING_OP_LINKAT] = RIOT_SYS_uring_linkat,
	[IORING_OP_FSETXATTR] = RIOT_SYS_uring_fsetxattr,
	[IORING_OP_SETXATTR] = RIOT_SYS_uring_setxattr,
	[IORING_OP_FGETXATTR] = RIOT_SYS_uring_fgetxattr,
	[IORING_OP_GETXATTR] = RIOT_SYS_uring_getxattr,
	[URING_OP_FTRUNCATE] = RIOT_SYS_uring_ftruncate,
};

static __always_inline __u32 uring_sys(__u32 opcode)
{
	__u16 sys = opcode < URING_OPS ? uring_ops[opcode] : 0;

	return sys ? sys : RIOT_SYS_uring_other;
}

/* sys_enabled() with a bound the verifier keeps on the word it reads. */
static __always_inline int async_enabled(__u32 sys)
{
	__u32 w = sys / 64;

	asm volatile("" : "+r"(w));
	if (sys >= RIOT_SYS_COUNT || w >= sizeof(sys_on) / sizeof(sys_on[0]))
		return 0;
	return (sys_on[w] >> (sys % 64)) & 1 && !sys_switched_off(sys);
}

/* The process's comm for --comm: an io thread (SQPOLL, io-wq) is named
 * after its ring ("iou-sqp-123"), its process after the program. */
static __always_inline int async_comm_ok(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	char comm[RIOT_COMM_LEN];

	if (!comm_filter[0])
		return 1;
	if (!(task->flags & PF_IO_WORKER_FLAG))
		return comm_matches();
	bpf_probe_read_kernel_str(comm, sizeof(comm), task->group_leader->comm);
	return comm_is_filter(comm);
}

static __always_inline __u64 async_ring_id(__u64 ring, int fresh)
{
	__u64 *id = fresh ? 0 : bpf_map_lookup_elem(&async_rings, &ring), v;

	if (id)
		return *id;
	v = __sync_fetch_and_add(&async_next_ring, 1) + 1;
	bpf_map_update_elem(&async_rings, &ring, &v, BPF_ANY);
	return v;
}

SEC("tp_btf/io_uring_create")
int BPF_PROG(uring_create, int fd, void *ring, __u32 sq_entries,
	     __u32 cq_entries, __u32 flags)
{
	if (in_target(bpf_get_current_pid_tgid() >> 32))
		async_ring_id((__u64)ring, 1);
	return 0;
}

/* A path the kernel copied at prep (struct filename) into dst. */
static __always_inline __u16 kernel_path(char *dst, struct filename *f,
					 __u16 *flags, __u16 trunc,
					 __u16 fault)
{
	const char *name = BPF_CORE_READ(f, name);
	long n;

	if (!name)
		return 0;
	n = bpf_probe_read_kernel_str(dst, RIOT_PATH_MAX, name);
	if (n <= 0) {
		*flags |= fault;
		return 0;
	}
	if (n == RIOT_PATH_MAX)
		*flags |= trunc;	/* the kernel took at most PATH_MAX */
	return n;
}

/* A request of type T naming one path at a dirfd (fields dfd, filename):
 * its dfd into a->dfd; its struct filename. */
#define AT_PATH(T, req, a)                                                   \
	({                                                                   \
		(a)->dfd = BPF_CORE_READ((T *)(req), dfd);                   \
		BPF_CORE_READ((T *)(req), filename);                         \
	})

/* A request of type T naming two paths at two dirfds, with flags
 * (renameat, linkat: fields old_dfd, new_dfd, flags, oldpath, newpath). */
#define OLD_NEW_PATHS(T, req, a, f1, f2)                                     \
	do {                                                                 \
		T *on = (void *)(req);                                       \
                                                                             \
		(a)->dfd = BPF_CORE_READ(on, old_dfd);                       \
		(a)->dfd2 = BPF_CORE_READ(on, new_dfd);                      \
		(a)->flags = BPF_CORE_READ(on, flags);                       \
		(f1) = BPF_CORE_READ(on, oldpath);                           \
		(f2) = BPF_CORE_READ(on, newpath);                           \
	} while (0)

/* The opcode's own arguments, from the request the kernel prepared; the
 * paths into *p (returns whether it has any). */
static __always_inline int async_args(struct uring_req *a, struct io_kiocb *req,
				      __u8 opcode, struct async_paths *p)
{
	struct filename *f1 = 0, *f2 = 0;

	switch (opcode) {
	case IORING_OP_READ:
	case IORING_OP_WRITE:
	case IORING_OP_READ_FIXED:
	case IORING_OP_WRITE_FIXED:
	case IORING_OP_READV:
	case IORING_OP_WRITEV: {
		struct io_rw *rw = (void *)req;
		struct io_async_rw___riot *io;

		a->off = BPF_CORE_READ(rw, kiocb.ki_pos);
		a->cnt = BPF_CORE_READ(rw, len);
		if (opcode == IORING_OP_READV || opcode == IORING_OP_WRITEV) {
			a->iovcnt = a->cnt;
			a->cnt = 0;
			io = BPF_CORE_READ(req, async_data);
			if (io && bpf_core_field_exists(io->iter))
				a->cnt = BPF_CORE_READ(io, iter.count);
			else if (io)
				a->cnt = BPF_CORE_READ((struct io_async_rw___riot_s *)io,
						       s.iter.count);
		}
		break;
	}
	case IORING_OP_FSYNC:
	case IORING_OP_SYNC_FILE_RANGE:
	case IORING_OP_FALLOCATE: {
		struct io_sync *sy = (void *)req;

		a->off = BPF_CORE_READ(sy, off);
		a->cnt = BPF_CORE_READ(sy, len);
		a->cmd = BPF_CORE_READ(sy, flags);
		a->mode = BPF_CORE_READ(sy, mode);
		break;
	}
	case IORING_OP_FADVISE: {
		struct io_fadvise *fa = (void *)req;

		a->off = BPF_CORE_READ(fa, offset);
		a->cnt = BPF_CORE_READ(fa, len);
		a->cmd = BPF_CORE_READ(fa, advice);
		break;
	}
	case URING_OP_FTRUNCATE:
		if (bpf_core_type_exists(struct io_ftrunc___riot))
			a->off = BPF_CORE_READ((struct io_ftrunc___riot *)req, len);
		break;
	case IORING_OP_SPLICE:
	case IORING_OP_TEE: {
		struct io_splice *sp = (void *)req;

		a->fd2 = BPF_CORE_READ(sp, splice_fd_in);
		a->cnt = BPF_CORE_READ(sp, len);
		a->off = BPF_CORE_READ(sp, off_out);
		break;
	}
	case IORING_OP_OPENAT:
	case IORING_OP_OPENAT2: {
		struct io_open *op = (void *)req;
		__u32 slot = BPF_CORE_READ(op, file_slot);

		a->dfd = BPF_CORE_READ(op, dfd);
		a->flags = BPF_CORE_READ(op, how.flags);
		a->mode = BPF_CORE_READ(op, how.mode);
		/* file_slot is index + 1; 0: an fd, not a direct descriptor */
		a->fd = -1;
		if (slot == FILE_INDEX_ALLOC)
			a->slot_alloc = 1;
		else if (slot)
			a->fd = slot - 1;
		f1 = BPF_CORE_READ(op, filename);
		break;
	}
	case IORING_OP_CLOSE: {
		struct io_close *cl = (void *)req;
		__u32 slot = BPF_CORE_READ(cl, file_slot);

		a->fd = BPF_CORE_READ(cl, fd);
		if (slot) {
			a->fd = slot - 1;
			a->fixed = 1;
			a->flags |= IOSQE_FIXED_FILE_FLAG;
		}
		break;
	}
	case IORING_OP_STATX:
		f1 = AT_PATH(struct io_statx, req, a);
		a->flags = BPF_CORE_READ((struct io_statx *)req, flags);
		a->cmd = BPF_CORE_READ((struct io_statx *)req, mask);
		break;
	case IORING_OP_UNLINKAT:
		f1 = AT_PATH(struct io_unlink, req, a);
		a->flags = BPF_CORE_READ((struct io_unlink *)req, flags);
		break;
	case IORING_OP_MKDIRAT:
		f1 = AT_PATH(struct io_mkdir, req, a);
		a->mode = BPF_CORE_READ((struct io_mkdir *)req, mode);
		break;
	case IORING_OP_RENAMEAT:
		OLD_NEW_PATHS(struct io_rename, req, a, f1, f2);
		break;
	case IORING_OP_LINKAT:
		OLD_NEW_PATHS(struct io_link, req, a, f1, f2);
		break;
	case IORING_OP_SYMLINKAT: {
		struct io_link *ln = (void *)req;

		/* path: the new link; path2: its target */
		a->dfd = BPF_CORE_READ(ln, new_dfd);
		f1 = BPF_CORE_READ(ln, newpath);
		f2 = BPF_CORE_READ(ln, oldpath);
		break;
	}
	default:
		a->cmd = opcode;
		break;
	}
	if (!f1 && !f2)
		return 0;
	p->flags = 0;
	p->len1 = f1 ? kernel_path(p->p1, f1, &p->flags, RIOT_EVF_PATH_TRUNC,
				   RIOT_EVF_PATH_FAULT) : 0;
	p->len2 = f2 ? kernel_path(p->p2, f2, &p->flags, RIOT_EVF_PATH2_TRUNC,
				   RIOT_EVF_PATH2_FAULT) : 0;
	return 1;
}

/* Whether the row's FLAGS role holds the call's own flags (open flags,
 * AT_* flags) rather than the SQE's. */
static __always_inline int call_flags(__u32 opcode)
{
	return opcode == IORING_OP_OPENAT || opcode == IORING_OP_OPENAT2 ||
	       opcode == IORING_OP_STATX || opcode == IORING_OP_RENAMEAT ||
	       opcode == IORING_OP_UNLINKAT || opcode == IORING_OP_LINKAT;
}

/* A request submitted: kept until its completion. */
static __always_inline int uring_submitted(struct io_kiocb *req)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), key = (__u64)req;
	struct async_paths *p;
	struct uring_req *a;
	__u32 zero = 0, sys;
	__u64 rflags;
	__u8 opcode;

	opcode = req->opcode;
	sys = uring_sys(opcode);
	if (!async_enabled(sys) || !in_target(pid_tgid >> 32) ||
	    !async_comm_ok())
		return 0;
	rflags = req->flags;
	if (rflags & IOSQE_CQE_SKIP_FLAG) {	/* no CQE: no completion */
		count_loss(0);
		return 0;
	}
	a = bpf_map_lookup_elem(&async_req_scratch, &zero);
	p = bpf_map_lookup_elem(&async_path_scratch, &zero);
	if (!a || !p)
		return 0;
	__builtin_memset(a, 0, sizeof(*a));
	a->pid = pid_tgid >> 32;
	a->tid = (__u32)pid_tgid;
	a->sys = sys;
	a->key = key;
	a->ring = (__u64)req->ctx;
	a->ctx = async_ring_id(a->ring, 0);
	a->fd = req->cqe.fd;
	a->fd2 = -1;
	a->dfd = -1;
	if (!call_flags(opcode)) {
		a->flags = rflags & IOSQE_FLAGS_MASK;
		a->fixed = !!(rflags & IOSQE_FIXED_FILE_FLAG);
	}
	/* an fd the capture did not see made is introduced first */
	if (!a->fixed && !call_flags(opcode) && opcode != IORING_OP_MKDIRAT &&
	    opcode != IORING_OP_SYMLINKAT && a->fd >= 0)
		fd_check((int)a->fd);
	a->paths = async_args(a, req, opcode, p);
	if (a->dfd >= 0)	/* a dirfd, as an fd, is introduced first */
		fd_check((int)a->dfd);
	if (a->paths &&
	    bpf_map_update_elem(&async_path_map, &key, p, BPF_ANY)) {
		count_loss(0);
		return 0;
	}
	a->t = bpf_ktime_get_boot_ns();
	if (bpf_map_update_elem(&async_reqs, &key, a, BPF_ANY)) {
		if (a->paths)
			bpf_map_delete_elem(&async_path_map, &key);
		count_loss(0);
	}
	return 0;
}

/* The submission tracepoint is io_uring_submit_req on newer kernels
 * (6.12's), io_uring_submit_sqe on older ones (6.1's), with the same
 * request: capture loads the one the kernel has (capture/tracer.c). */
SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(uring_submit, struct io_kiocb *req)
{
	return uring_submitted(req);
}

SEC("tp_btf/io_uring_submit_sqe")
int BPF_PROG(uring_submit_sqe, struct io_kiocb *req, bool force_nonblock)
{
	return uring_submitted(req);
}

/* A request's values by argument role (RIOT_ARG_*), for the wire: the row
 * of a request picks its arguments by index, not by a switch, so that the
 * verifier walks one path rather than one per role of each argument
 * (6.1's gave up on the switch: "BPF program is too large"). */
#define ROLE_VALS 32
struct role_vals {
	__u64 v[ROLE_VALS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct role_vals);
} role_scratch SEC(".maps");

_Static_assert(RIOT_ARG_CTX < ROLE_VALS, "ROLE_VALS: too few");

static __always_inline struct role_vals *role_vals_of(const struct uring_req *a)
{
	__u32 zero = 0;
	struct role_vals *rv = bpf_map_lookup_elem(&role_scratch, &zero);

	if (!rv)
		return NULL;
	__builtin_memset(rv, 0, sizeof(*rv));
	rv->v[RIOT_ARG_CTX] = a->ctx;
	rv->v[RIOT_ARG_FD] = a->fd;
	rv->v[RIOT_ARG_FD2] = a->fd2;
	rv->v[RIOT_ARG_DFD] = a->dfd;
	rv->v[RIOT_ARG_DFD2] = a->dfd2;
	rv->v[RIOT_ARG_CNT] = a->cnt;
	rv->v[RIOT_ARG_OFF] = a->off;
	rv->v[RIOT_ARG_FLAGS] = a->flags;
	rv->v[RIOT_ARG_MODE] = a->mode;
	rv->v[RIOT_ARG_CMD] = a->cmd;
	rv->v[RIOT_ARG_IOVCNT] = a->iovcnt;
	return rv;
}

/* Request a completed with ret, as async_emit() takes it: its row's
 * arguments, the registered file's facts or an open's new file's, its
 * paths (kept at submission, or the registered file's, walked). */
__attribute__((noinline)) int uring_emit(struct uring_req *a, long ret)
{
	__u32 sys, zero = 0, len;
	struct role_vals *rv;
	struct async_req r = {};
	struct async_paths *p;
	struct fd_scratch *fs;
	struct opened m = {};
	int open;

	if (!a)		/* a global function's pointer may be NULL */
		return 0;
	sys = a->sys;
	if (sys >= RIOT_SYS_COUNT)
		return 0;
	open = sys == RIOT_SYS_uring_openat || sys == RIOT_SYS_uring_openat2;
	rv = role_vals_of(a);
	if (!rv)
		return 0;
	for (int i = 0; i < 6; i++) {
		__u32 role = async_roles[SYS_SLOT(sys)][i];

		asm volatile("" : "+r"(role));	/* keep the mask */
		r.args[i] = rv->v[role & (ROLE_VALS - 1)];
	}
	r.sys = sys;
	r.pid = a->pid;
	r.tid = a->tid;
	r.t = a->t;
	r.ret = ret;
	if (a->fixed && a->file)
		file_facts(&r.x, &r.flags, (struct file *)a->file, &m);
	else if (open && a->fd < 0 && !a->slot_alloc && ret >= 0)
		fd_facts(&r.x, &r.flags, ret, &m);
	if (!open)
		r.flags &= ~RIOT_EVF_CREATED;
	if (a->paths) {
		__u64 key = a->key;	/* 6.1 takes no map key from memory */

		p = bpf_map_lookup_elem(&async_path_map, &key);
		if (p) {
			r.flags |= p->flags;
			r.path1 = p->p1;
			r.len1 = p->len1;
			r.path2 = p->p2;
			r.len2 = p->len2;
		}
	} else if (a->intro && a->file) {
		/* the registered file's path, as an fd introduction has it */
		struct file *file = (struct file *)a->file;
		__u8 dflags = 0;

		fs = bpf_map_lookup_elem(&fd_scratches, &zero);
		if (fs) {
			len = file_path(fs, BPF_CORE_READ(file, f_path.dentry),
					BPF_CORE_READ(file, f_path.mnt), &dflags);
			if (dflags & RIOT_EVD_PATH_TRUNC)
				r.flags |= RIOT_EVF_PATH_TRUNC;
			len &= 2 * RIOT_PATH_MAX - 1;
			if (len > RIOT_PATH_MAX) {
				len = RIOT_PATH_MAX;
				fs->path[RIOT_PATH_MAX - 1] = 0;
				r.flags |= RIOT_EVF_PATH_TRUNC;
			}
			r.path1 = fs->path;
			r.len1 = len;
		}
	}
	async_emit(&r);
	return 0;
}

/* A request completed with res: its record. */
static __always_inline int uring_completed(void *req, long res)
{
	__u64 key = (__u64)req, *seen, file;
	struct fixed_key fk = {};
	struct uring_req *a;

	if (!req)
		return 0;
	a = bpf_map_lookup_elem(&async_reqs, &key);
	if (!a)
		return 0;
	if (a->fixed) {
		file = (__u64)BPF_CORE_READ((struct io_kiocb *)req, file);
		a->file = file;
		fk.ctx = a->ctx;
		fk.idx = (__u32)a->fd;
		seen = bpf_map_lookup_elem(&async_fixed, &fk);
		a->intro = file && (!seen || *seen != file) &&
			   a->sys != RIOT_SYS_uring_close;
		if (a->intro)
			bpf_map_update_elem(&async_fixed, &fk, &file, BPF_ANY);
	}
	if (a->slot_alloc) {
		a->fd = res >= 0 ? res : -1;
		a->slot_alloc = 0;
	}
	uring_emit(a, res);
	/* an fd the ring opened is known from its record on */
	if ((a->sys == RIOT_SYS_uring_openat || a->sys == RIOT_SYS_uring_openat2) &&
	    a->fd < 0 && res >= 0)
		fd_mark(a->pid, res);
	if (a->paths)
		bpf_map_delete_elem(&async_path_map, &key);
	bpf_map_delete_elem(&async_reqs, &key);
	return 0;
}

/* The completion tracepoint passes the CQE on newer kernels (6.12's);
 * older ones (6.1's) pass its fields one by one (user_data, res, cflags,
 * extra1, extra2). capture/tracer.c loads the program whose arguments
 * the kernel's BTF gives the tracepoint. */
SEC("tp_btf/io_uring_complete")
int BPF_PROG(uring_complete, void *ring, void *req,
	     struct io_uring_cqe *cqe)
{
	return uring_completed(req, BPF_CORE_READ(cqe, res));
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(uring_complete_res, void *ring, void *req, __u64 user_data, int res,
	     unsigned int cflags, __u64 extra1, __u64 extra2)
{
	return uring_completed(req, res);
}

