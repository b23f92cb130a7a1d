// SPDX-License-Identifier: GPL-2.0
/* bpf/riot.bpf.c: the kernel side of `riot capture`.
 *
 * One generic pair on the sys_enter / sys_exit BTF tracepoints records every
 * syscall of bpf/syscalls.def: entry filters early (syscall number, then the
 * traced task set, then comm), saves the raw arguments in a per-task slot,
 * and exit appends one event (bpf/events.h) with what the table's argument
 * roles say capture needs to its CPU's batch, which goes into the ring
 * buffer when full or when capture's timer asks. sched_process_{fork,exec,
 * exit} record process events and make the traced tgid set follow forks.
 * Before a recorded call uses an fd the capture did not see made, a
 * RIOT_EV_FD record introduces it with its path from the kernel (see
 * fd_check()). Asynchronous requests have files of their own, included at
 * the end: async.bpf.h sends their records through emit_record(), as a
 * syscall's; aio.bpf.h follows Linux AIO from io_submit to the reaping of
 * its completions, mmap.bpf.h the pages faulted in and dirtied through
 * file mappings, uring.bpf.h io_uring requests.
 *
 * Syscall arguments and results are read from what the raw tracepoints
 * pass (tp_btf/sys_enter: struct pt_regs * and the syscall id; sys_exit:
 * struct pt_regs * and the return value; the registers through
 * SYSCALL_ARG0() to SYSCALL_ARG5(), bpf/arch.bpf.h), never from the trace event's record,
 * struct trace_event_raw_sys_enter/_exit: its layout follows struct
 * trace_entry, which kernels widen (RHEL 9's rt kernels add
 * preempt_lazy_count, shifting args and ret), while the raw tracepoint's
 * arguments are the kernel's function arguments, typed by its BTF. The
 * rt kernels of `make kernels` (tests/kernels/) run these programs.
 *
 * Needs BTF-typed raw tracepoints (tp_btf, Linux 5.5), the BPF ring buffer
 * (5.8), task local storage usable from tracing programs (5.11), BPF
 * atomic compare-and-exchange (5.12) and bpf_loop (5.17). No kprobe or
 * fentry: they may be refused where riot runs. Which kernels load them is
 * tested, not inferred from these versions: `make kernels`.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "syscalls.h"
#include "events.h"
#include "arch.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* FMODE_CREATED: set in file->f_mode by an open that created the file;
 * bit 20 since the flag appeared (Linux 4.19). A #define in the kernel, so
 * absent from BTF. */
#define FMODE_CREATED_BIT 0x100000u
#define S_IFMT_BITS 0170000u
#define S_IFREG_BITS 0100000u
#define EBUSY_ERR 16
#define PERM_BITS 07777u
#define MAP_ANONYMOUS_FLAG 0x20
#define SIGCHLD_NR 17
#define CLONE_VM_FLAG 0x100
#define CLONE_VFORK_FLAG 0x4000
#define FICLONERANGE_CMD 0x4020940du	/* _IOW(0x94, 13, struct file_clone_range) */
#define CLONE_RANGE_BYTES 32		/* src_fd, src_offset, src_length, dest_offset */
#define PAGE_SHIFT_4K 12	/* x86's pages, and Debian's arm64 kernels' */

/* Set by capture before load. */
volatile const __u32 self_tgid;
volatile const __u32 target_mode;	/* enum riot_target_mode */
volatile const __u8 comm_filter[RIOT_COMM_LEN];	/* all zero: no filter */
volatile const __u64 sys_on[(RIOT_SYS_COUNT + 63) / 64];	/* --ops */
volatile const __u64 wakeup_bytes;	/* wake the reader above this */
/* --path for the kernel side (0: userspace alone filters): normalised,
 * without a trailing slash, never "/". */
volatile const __u8 path_prefix[RIOT_KPATH_MAX];
volatile const __u32 path_prefix_len;

/* Syscall number -> RIOT_SYS_* + 1 (0: not recorded). x86_64's numbers
 * are the table's; another architecture's are its <asm/unistd.h>'s, which
 * make lists in syscall_nr.h (scripts/gen-syscall-nr.sh), without the rows
 * it lacks. */
static const __u8 nr_sys[RIOT_NR_MAX] = {
#if defined(__TARGET_ARCH_x86)
#define RIOT_SYSCALL(name, nr, cls, fl, a0, a1, a2, a3, a4, a5) \
	[nr] = RIOT_SYS_##name + 1,
#define RIOT_ASYNC_OP(id, str, cls, fl, a0, a1, a2, a3, a4, a5)
#include "syscalls.def"
#undef RIOT_SYSCALL
#else
#define RIOT_NR(name, nr) [nr] = RIOT_SYS_##name + 1,
#include "syscall_nr.h"
#undef RIOT_NR
#endif
};

/* Where each argument role sits (0-5), from the table; -1: absent. */
#define ROLE(r) RIOT_ARG_##r
#define AT(role, a0, a1, a2, a3, a4, a5)                                     \
	(ROLE(a0) == (role) ? 0 : ROLE(a1) == (role) ? 1 :                   \
	 ROLE(a2) == (role) ? 2 : ROLE(a3) == (role) ? 3 :                   \
	 ROLE(a4) == (role) ? 4 : ROLE(a5) == (role) ? 5 : -1)
#define FIRST(x, y) ((x) >= 0 ? (x) : (y))

struct sys_desc {
	__s8 path, path2, linkbuf, offp, off2p, how, cloneargs, statbuf, fdpair;
	__s8 valbuf, valcnt;	/* RIOT_SF_VALUE: the value and its size */
	__s8 fd, fd2;
	__u8 sf;
	__u8 nargs;	/* arguments sent (RIOT_ARG_ON_WIRE) */
	__u8 wire;	/* which: bit N for argument N */
	__u8 ext;	/* has a struct riot_ev_ext */
	__u8 open;	/* returns a new fd from a path */
	/* --path in the kernel. An operation on open files (not one that
	 * changes the fd table: userspace follows those) whose files are all
	 * known to lie outside the prefix; an operation on paths (not an
	 * open, exec or chdir) whose PATH and PATH2 are absolute and outside
	 * it. Nothing else is dropped there. */
	__u8 fd_filter, path_filter, path2_filter;
	/* Arguments (bit N: argument N) naming an fd the call uses, which
	 * fd_check() introduces when the capture did not see it made. */
	__u8 fdcheck;
	__u8 fdnote;	/* FDNOTE_*: what fd_note_exit() learns from it */
};

enum { FDNOTE_CLOSE = 1, FDNOTE_RET = 2, FDNOTE_FCNTL = 3, FDNOTE_PAIR = 4 };

#define CLS(c) RIOT_CLASS_##c

#define W(a) (RIOT_ARG_ON_WIRE(ROLE(a)) ? 1 : 0)
#define WIRE(a0, a1, a2, a3, a4, a5)                                         \
	(W(a0) | W(a1) << 1 | W(a2) << 2 | W(a3) << 3 | W(a4) << 4 | W(a5) << 5)
#define NARGS(a0, a1, a2, a3, a4, a5)                                        \
	(W(a0) + W(a1) + W(a2) + W(a3) + W(a4) + W(a5))
#define HAS(role, a0, a1, a2, a3, a4, a5) (AT(ROLE(role), a0, a1, a2, a3, a4, a5) >= 0)
#define USES_FD(a)                                                           \
	(ROLE(a) == ROLE(FD) || ROLE(a) == ROLE(FD2) ||                      \
	 ROLE(a) == ROLE(DFD) || ROLE(a) == ROLE(DFD2) ? 1 : 0)
/* close_range's fds are bounds; dup2's and dup3's FD2 is a target. */
#define FDCHECK(name, a0, a1, a2, a3, a4, a5)                                \
	(RIOT_SYS_##name == RIOT_SYS_close_range ? 0 :                       \
	 (USES_FD(a0) | USES_FD(a1) << 1 | USES_FD(a2) << 2 |                \
	  USES_FD(a3) << 3 | USES_FD(a4) << 4 | USES_FD(a5) << 5) &          \
	 (RIOT_SYS_##name == RIOT_SYS_dup2 ||                                \
	  RIOT_SYS_##name == RIOT_SYS_dup3 ? 1 : 0x3f))

/* A per-syscall table's entry for sys. The mask bounds the index on the
 * register that indexes, which every verifier follows: 6.1's lost the
 * bound of `nr_sys[id] - 1` (smin=-1, "R9 unbounded memory access"), 6.12's
 * kept only sys < 255 against a table of RIOT_SYS_COUNT rows ("invalid
 * access to map value"). The barrier keeps clang from dropping a mask it
 * proves redundant. Callers still check sys < RIOT_SYS_COUNT where it can
 * be out of range: the mask only keeps the access inside the table. */
#define SYS_SLOT(sys)                                                        \
	({                                                                   \
		__u32 slot_ = (sys);                                         \
		asm volatile("" : "+r"(slot_));                              \
		slot_ & (RIOT_SYS_SLOTS - 1);                                \
	})

static const struct sys_desc descs[RIOT_SYS_SLOTS] = {
#define RIOT_SYSCALL(name, nr, cls, fl, a0, a1, a2, a3, a4, a5)              \
	[RIOT_SYS_##name] = {                                                \
		.path = AT(ROLE(PATH), a0, a1, a2, a3, a4, a5),              \
		.path2 = FIRST(AT(ROLE(PATH2), a0, a1, a2, a3, a4, a5),       \
			FIRST(AT(ROLE(TARGET), a0, a1, a2, a3, a4, a5),       \
			      AT(ROLE(XNAME), a0, a1, a2, a3, a4, a5))),      \
		.linkbuf = AT(ROLE(LINKBUF), a0, a1, a2, a3, a4, a5),        \
		.valbuf = (fl) & RIOT_SF_VALUE ?                             \
			AT(ROLE(BUF), a0, a1, a2, a3, a4, a5) : -1,          \
		.valcnt = AT(ROLE(CNT), a0, a1, a2, a3, a4, a5),             \
		.offp = AT(ROLE(OFFP), a0, a1, a2, a3, a4, a5),              \
		.off2p = AT(ROLE(OFF2P), a0, a1, a2, a3, a4, a5),            \
		.how = AT(ROLE(HOW), a0, a1, a2, a3, a4, a5),                \
		.cloneargs = AT(ROLE(CLONEARGS), a0, a1, a2, a3, a4, a5),    \
		.statbuf = AT(ROLE(STATBUF), a0, a1, a2, a3, a4, a5),        \
		.fdpair = AT(ROLE(FDPAIR), a0, a1, a2, a3, a4, a5),          \
		.sf = (fl),                                                  \
		.nargs = NARGS(a0, a1, a2, a3, a4, a5),                      \
		.wire = WIRE(a0, a1, a2, a3, a4, a5),                        \
		.ext = HAS(OFFP, a0, a1, a2, a3, a4, a5) ||                  \
		       HAS(OFF2P, a0, a1, a2, a3, a4, a5) ||                 \
		       HAS(HOW, a0, a1, a2, a3, a4, a5) ||                   \
		       HAS(CLONEARGS, a0, a1, a2, a3, a4, a5) ||             \
		       HAS(FDPAIR, a0, a1, a2, a3, a4, a5) ||                \
		       ((fl) & (RIOT_SF_RET_FD | RIOT_SF_STAT |              \
				RIOT_SF_STATX | RIOT_SF_VMA)) != 0,          \
		.fd = AT(ROLE(FD), a0, a1, a2, a3, a4, a5),                  \
		.fd2 = AT(ROLE(FD2), a0, a1, a2, a3, a4, a5),                \
		.open = CLS(cls) == CLS(OPEN),                               \
		.fd_filter = HAS(FD, a0, a1, a2, a3, a4, a5) &&              \
			(RIOT_SYS_##name == RIOT_SYS_lseek ||                \
			 RIOT_SYS_##name == RIOT_SYS_fadvise64 ||            \
			 (CLS(cls) != CLS(FD) && CLS(cls) != CLS(CWD) &&     \
			  CLS(cls) != CLS(PROC) && CLS(cls) != CLS(OPEN) &&  \
			  CLS(cls) != CLS(ASYNC))),                          \
		.path_filter = HAS(PATH, a0, a1, a2, a3, a4, a5) &&          \
			CLS(cls) != CLS(OPEN) && CLS(cls) != CLS(PROC) &&    \
			CLS(cls) != CLS(CWD),                                \
		.path2_filter = HAS(PATH2, a0, a1, a2, a3, a4, a5),          \
		.fdcheck = FDCHECK(name, a0, a1, a2, a3, a4, a5),            \
		.fdnote = RIOT_SYS_##name == RIOT_SYS_close ? FDNOTE_CLOSE :  \
			((fl) & RIOT_SF_RET_FD) ||                           \
			RIOT_SYS_##name == RIOT_SYS_dup ||                   \
			RIOT_SYS_##name == RIOT_SYS_dup2 ||                  \
			RIOT_SYS_##name == RIOT_SYS_dup3 ? FDNOTE_RET :      \
			RIOT_SYS_##name == RIOT_SYS_fcntl ? FDNOTE_FCNTL :   \
			HAS(FDPAIR, a0, a1, a2, a3, a4, a5) ? FDNOTE_PAIR : 0, \
	},
/* Asynchronous requests are no syscalls: capture sends them its own way. */
#define RIOT_ASYNC_OP(id, str, cls, fl, a0, a1, a2, a3, a4, a5)
#include "syscalls.def"
#undef RIOT_SYSCALL
};

/* A syscall in flight on one task: what exit needs from entry. */
struct sys_slot {
	__u64 t;
	__u64 args[6];
	__u64 off, off2, clone3_flags;
	__u16 sys;
	__u16 flags;		/* RIOT_EVF_OFF, _OFF2, _CLONEARGS */
	/* RIOT_SF_VMA: the mapped file's facts (mode 0: not known); the
	 * file offset goes in off2 */
	__u64 vma_size, vma_ino, vma_dev;
	__u32 vma_mode;
	__u8 active;
	__u8 emit;		/* recorded (not only kept for clone flags) */
	__u8 aio;		/* AIO capture needs its entry or exit */
	__u8 calib;		/* a calibration call: timed, not recorded */
	__u64 fault_addr;	/* the latest page fault (bpf/mmap.bpf.h) */
};

/* The file an open returned, for --path (0: none). */
struct opened {
	__u64 file, inode;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sys_slot);
} slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 << 20);	/* resized by capture before load */
} events SEC(".maps");

/* RIOT_TARGET_PIDS: traced tgids; follows forks, forgets dead processes. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8);
} traced SEC(".maps");

/* --path: files opened by an absolute path outside the prefix, by their
 * struct file, with their inode (a file freed and reused for another one
 * no longer matches). Forgetting one only leaves its events to userspace. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, __u64);
} outside SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cgroups SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct riot_loss);
} losses SEC(".maps");

/* Per-CPU batches (struct riot_ev_batch), indexed by CPU; capture sets
 * max_entries to the number of CPUs. An event is written in place when
 * the batch has room for the largest one (a masked path offset included). */
#define EVENT_ROOM (256 + 3 * RIOT_PATH_MAX)
#define BATCH_LIMIT (RIOT_BATCH_BYTES - EVENT_ROOM)
struct batch {
	__u64 busy;		/* a program on this CPU is writing it */
	__u64 gen;		/* flush_gen when last flushed */
	__u64 direct;		/* programs on this CPU writing a record of
				 * their own to the ring (see direct_begin) */
	__u64 upto;		/* the CPU's progress, as last handed over */
	__u32 len;		/* bytes in buf, header included */
	__u32 count;		/* events in buf */
	char buf[RIOT_BATCH_BYTES];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	/* mapped by capture, which reads each batch's count to know whether
	 * a kick would hand anything over (Linux 5.5) */
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct batch);
} batches SEC(".maps");

/* Bumped by capture on a timer; a batch older than the current generation
 * is handed over at its CPU's next event or at capture's own syscall
 * there, so no event waits in a batch much longer than the timer. */
__u64 flush_gen;

/* Probe-time calibration (capture/calib.c). While calib_tid is set, that
 * thread of riot itself is traced as a target's threads are, from the
 * same programs down to the same clock reads, but its calls' durations go
 * to calib_dur, not to the ring, and its slot goes at each exit (a slot
 * is what marks a traced task). Their median against the same calls
 * untraced is the time the probes add to every recorded duration. */
volatile __u32 calib_tid;
__u32 calib_n;
__u32 calib_dur[RIOT_CALIB_CALLS];

static __always_inline int is_calib(__u64 pid_tgid)
{
	return calib_tid && (__u32)pid_tgid == calib_tid;
}

static __always_inline void calib_note(__u64 dur)
{
	__u32 i = calib_n;

	if (i < RIOT_CALIB_CALLS) {
		calib_dur[i] = dur > 0xffffffffu ? 0xffffffffu : (__u32)dur;
		calib_n = i + 1;
	}
}

/* Room for a record and two paths; the second path starts wherever the
 * first ends, so the area is sized for a masked (not exact) offset. */
#define PATH_MASK (2 * RIOT_PATH_MAX - 1)
#define DATA_BYTES (4 * RIOT_PATH_MAX)
struct scratch {
	struct riot_ev_syscall ev;
	char data[256 + DATA_BYTES];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratches SEC(".maps");

struct proc_scratch {
	struct riot_ev_proc ev;
	char data[2 * RIOT_PATH_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct proc_scratch);
} proc_scratches SEC(".maps");

static __always_inline void count_losses(int ring, __u32 n)
{
	__u32 zero = 0;
	struct riot_loss *l = bpf_map_lookup_elem(&losses, &zero);

	if (!l)
		return;
	if (ring)
		l->ring += n;
	else
		l->slot += n;
	l->t_last = bpf_ktime_get_boot_ns();
}

/* A new process of a traced one that the traced set had no room for. */
static __always_inline void count_unfollowed(void)
{
	__u32 zero = 0;
	struct riot_loss *l = bpf_map_lookup_elem(&losses, &zero);

	if (l)
		l->unfollowed++;
}

static __always_inline void count_loss(int ring)
{
	count_losses(ring, 1);
}

static __always_inline void count_filtered(void)
{
	__u32 zero = 0;
	struct riot_loss *l = bpf_map_lookup_elem(&losses, &zero);

	if (l)
		l->filtered++;
}

/* Whether comm is --comm's name. */
static __always_inline int comm_is_filter(const char *comm)
{
	for (int i = 0; i < RIOT_COMM_LEN; i++) {
		if (comm[i] != comm_filter[i])
			return 0;
		if (!comm[i])
			break;
	}
	return 1;
}

static __always_inline int comm_matches(void)
{
	char comm[RIOT_COMM_LEN];

	if (!comm_filter[0])
		return 1;
	bpf_get_current_comm(comm, sizeof(comm));
	return comm_is_filter(comm);
}

/* The target, without the comm filter (forks follow the target). */
static __always_inline int in_target(__u32 tgid)
{
	if (target_mode == RIOT_TARGET_PIDS)
		return bpf_map_lookup_elem(&traced, &tgid) != NULL;
	/* riot never records itself: in a cgroup it lies in (--cgroup /, a
	 * unit it runs under) its writes of the log would feed the log */
	if (target_mode == RIOT_TARGET_CGROUP)
		return tgid != self_tgid && bpf_current_task_under_cgroup(&cgroups, 0) == 1;
	return tgid != self_tgid;
}

static __always_inline int sys_enabled(__u32 sys)
{
	if (sys >= RIOT_SYS_COUNT)
		return 0;
	return (sys_on[sys / 64] >> (sys % 64)) & 1;
}

/* Syscalls switched off while capture runs (riot top's probes view): a
 * bit per RIOT_SYS_*, written by user space. The programs go on following
 * state (mappings, AIO contexts); only the records stop. */
volatile __u64 sys_off[RIOT_SYS_SLOTS / 64];

/* The bit of sys in sys_off: its word by SYS_SLOT(), masked after a
 * barrier, so that every verifier bounds the read (6.1's refused a bound
 * by comparison: "R5 max value is outside of the allowed memory range"). */
static __always_inline int sys_switched_off(__u32 sys)
{
	__u32 slot = SYS_SLOT(sys);

	return (sys_off[slot / 64] >> (slot % 64)) & 1;
}

/* sys_enabled() (by --ops) and not switched off. */
static __always_inline int sys_recorded(__u32 sys)
{
	return sys_enabled(sys) && !sys_switched_off(sys);
}

static __always_inline int is_clone(__u32 sys)
{
	return sys == RIOT_SYS_clone || sys == RIOT_SYS_clone3 ||
	       sys == RIOT_SYS_fork || sys == RIOT_SYS_vfork;
}

/* Whether any aio:* request is recorded (--ops): bpf/aio.bpf.h. */
static __always_inline int aio_on(void)
{
	return sys_enabled(RIOT_SYS_aio_pread) || sys_enabled(RIOT_SYS_aio_pwrite) ||
	       sys_enabled(RIOT_SYS_aio_preadv) || sys_enabled(RIOT_SYS_aio_pwritev) ||
	       sys_enabled(RIOT_SYS_aio_fsync) || sys_enabled(RIOT_SYS_aio_fdsync);
}

/* The syscalls whose entry or exit AIO capture needs. */
static __always_inline int aio_hooked(__u32 sys)
{
	return (sys == RIOT_SYS_io_submit || sys == RIOT_SYS_io_getevents ||
		sys == RIOT_SYS_io_pgetevents || sys == RIOT_SYS_io_destroy) &&
	       aio_on();
}

static __always_inline __u64 read_user_u64(__u64 uptr, int *ok)
{
	__u64 v = 0;

	*ok = uptr && bpf_probe_read_user(&v, sizeof(v), (void *)uptr) == 0;
	return v;
}

/* Argument idx (0-5) without a variable offset the verifier cannot bound
 * (the compiler knows the table and drops range checks). */
static __always_inline __u64 arg_at(const __u64 *args, int idx)
{
	switch (idx) {
	case 0: return args[0];
	case 1: return args[1];
	case 2: return args[2];
	case 3: return args[3];
	case 4: return args[4];
	case 5: return args[5];
	}
	return 0;
}

/* Linux 6.2: lets a file pointer read from the fd array be followed by
 * direct loads. Weak: where it is missing, probe reads do the same. */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

/* The current task's fd table. Where bpf_rdonly_cast exists, through an
 * untrusted pointer to the task: a load from the trusted one makes the
 * verifier look its type's name up in the kernel's BTF, one by one (Linux
 * 6.3 on), at each pass over each copy of this: 17 ms of start-up on
 * 6.18. The loads are the same. */
static __always_inline struct fdtable *current_fdt(void)
{
	if (bpf_rdonly_cast)
		return ((struct task_struct *)bpf_rdonly_cast((void *)bpf_get_current_task(),
			bpf_core_type_id_kernel(struct task_struct)))->files->fdt;
	return bpf_get_current_task_btf()->files->fdt;
}

/* The struct file behind fd in the current task, or NULL. The fd table is
 * reached by direct (BTF) loads; the fd's slot needs a probe read. */
static __always_inline struct file *fd_file(long fd)
{
	struct fdtable *fdt = current_fdt();
	struct file **fdarr, *file = NULL;

	if (!fdt || fd < 0 || fd >= fdt->max_fds)
		return NULL;
	fdarr = fdt->fd;
	if (bpf_probe_read_kernel(&file, sizeof(file), &fdarr[fd]))
		return NULL;
	return file;
}

static __always_inline __u64 inode_of(struct file *file)
{
	if (bpf_rdonly_cast)
		return (__u64)((struct file *)bpf_rdonly_cast(file,
			bpf_core_type_id_kernel(struct file)))->f_inode;
	return (__u64)BPF_CORE_READ(file, f_inode);
}

/* Whether fd's file was opened by a path outside --path. */
static __always_inline int fd_outside(long fd)
{
	struct file *file = fd_file(fd);
	__u64 key = (__u64)file, *inode;

	if (!file)
		return 0;
	inode = bpf_map_lookup_elem(&outside, &key);
	return inode && *inode == inode_of(file);
}

/* What an operation on open files filtered by --path names: all outside. */
static __always_inline int fds_outside(const struct sys_desc *d,
				       const __u64 *args)
{
	if (!path_prefix_len || !d->fd_filter)
		return 0;
	if (!fd_outside(arg_at(args, d->fd)))
		return 0;
	return d->fd2 < 0 || fd_outside(arg_at(args, d->fd2));
}

/* Whether a "/" at p starts a component userspace would fold: an empty
 * one ("//", a trailing slash), "." or "..". */
static __always_inline int folds(const char *p)
{
	char c = p[1];

	if (c == '/' || c == 0)
		return 1;
	if (c != '.')
		return 0;
	c = p[2];
	if (c == '/' || c == 0)
		return 1;
	if (c != '.')
		return 0;
	c = p[3];
	return c == '/' || c == 0;
}

/* The bytes path_outside() may look at: a path, and the three after its
 * last byte that folds() peeks at. */
struct kpath {
	char c[RIOT_KPATH_MAX + 3];
};

/* A path as read into an event (len counts the NUL) lies outside --path:
 * absolute, already normal (nothing folds), at most RIOT_KPATH_MAX bytes,
 * and neither the prefix nor under it. Anything else is kept. A global
 * function: the verifier walks its loops once, not once per caller path. */
__attribute__((noinline)) int path_outside(const struct kpath *k, __u32 len)
{
	__u32 plen = path_prefix_len;
	const __u8 *p;
	__u8 c;
	int i;

	if (!k || len < 2 || len > RIOT_KPATH_MAX)
		return 0;
	p = (const __u8 *)k->c;
	if (p[0] != '/')
		return 0;
	for (i = 0; i < RIOT_KPATH_MAX; i++) {
		if (i >= plen)
			break;
		if (p[i] != path_prefix[i])
			goto differs;
	}
	c = p[plen & (RIOT_KPATH_MAX - 1)];
	if (c == '/' || c == 0)
		return 0;
differs:
	for (i = 0; i < RIOT_KPATH_MAX; i++) {
		c = p[i];
		if (c == 0)
			return 1;
		if (c == '/' && folds((const char *)p + i))
			return 0;
	}
	return 0;
}

int fd_check(int fd);
int fd_note_exit(__u32 what, long ret, __u64 arg0, __u64 arg1, __u64 pairp);
int aio_submit_enter(__u64 ctx, __u64 nr, __u64 iocbpp);
int aio_exit(__u32 sys, long ret, __u64 ctx, __u64 nr, __u64 ptr);
int aio_proc_gone(__u32 tgid);

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs *regs, long id)
{
	struct task_struct *task;
	struct sys_slot *s;
	__u32 sys, tgid;
	int emit, ok, aio, calib = 0;
	__u64 pid_tgid;

	if ((__u64)id >= RIOT_NR_MAX || SYSCALL_COMPAT(regs))
		return 0;
	sys = nr_sys[id];
	if (!sys)
		return 0;
	sys--;
	emit = sys_recorded(sys);
	aio = aio_hooked(sys);
	if (!emit && !is_clone(sys) && !aio)
		return 0;
	/* Anonymous memory is no file I/O. */
	if (sys == RIOT_SYS_mmap && (SYSCALL_ARG(regs, 3) & MAP_ANONYMOUS_FLAG))
		return 0;
	task = bpf_get_current_task_btf();
	/* With a traced set, only its tasks get a slot: a slot found answers
	 * for the set without its lookup. */
	s = target_mode == RIOT_TARGET_PIDS ?
		    bpf_task_storage_get(&slots, task, 0, 0) : NULL;
	if (!s) {
		pid_tgid = bpf_get_current_pid_tgid();
		tgid = pid_tgid >> 32;
		if (!in_target(tgid) || !comm_matches()) {
			if (!is_calib(pid_tgid))
				return 0;
			calib = 1;
		}
		s = bpf_task_storage_get(&slots, task, 0,
					 BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!s) {
			if (emit)
				count_loss(0);
			return 0;
		}
	} else if (!comm_matches()) {
		return 0;
	}
	s->args[0] = SYSCALL_ARG(regs, 0);
	s->args[1] = SYSCALL_ARG(regs, 1);
	s->args[2] = SYSCALL_ARG(regs, 2);
	s->args[3] = SYSCALL_ARG(regs, 3);
	s->args[4] = SYSCALL_ARG(regs, 4);
	s->args[5] = SYSCALL_ARG(regs, 5);
	s->sys = sys;
	s->flags = 0;
	s->emit = emit;
	s->aio = aio;
	s->calib = calib;
	s->active = 1;
	s->fault_addr = 0;	/* a fault inside the call says its own */

	const struct sys_desc *d = &descs[SYS_SLOT(sys)];
	/* Decided here: a close empties the fd before exit. */
	if (emit && fds_outside(d, s->args)) {
		s->emit = 0;
		count_filtered();
		return 0;
	}
	/* Before the entry time: an introduction comes first. */
	if (emit && d->fdcheck) {
		for (int i = 0; i < 6; i++)
			if (d->fdcheck & (1 << i))
				fd_check((int)s->args[i]);
	}
	/* The kernel updates these in place: their value before the call is
	 * what replay needs. */
	if (d->offp >= 0) {
		s->off = read_user_u64(arg_at(s->args, d->offp), &ok);
		if (ok)
			s->flags |= RIOT_EVF_OFF;
	}
	if (d->off2p >= 0) {
		s->off2 = read_user_u64(arg_at(s->args, d->off2p), &ok);
		if (ok)
			s->flags |= RIOT_EVF_OFF2;
	}
	/* Read here: sched_process_fork, inside this syscall, needs it. */
	if (d->cloneargs >= 0) {
		s->clone3_flags = read_user_u64(arg_at(s->args, d->cloneargs), &ok);
		if (ok)
			s->flags |= RIOT_EVF_CLONEARGS;
	}
	s->t = bpf_ktime_get_boot_ns();
	if (aio && sys == RIOT_SYS_io_submit)
		aio_submit_enter(s->args[0], s->args[1], s->args[2]);
	return 0;
}

/* A user string at exit, into dst (room for RIOT_PATH_MAX). Returns its
 * length with the NUL, 0 when absent; sets the trunc/fault flags. */
static __always_inline __u32 read_path(char *dst, __u64 uptr, __u16 *flags,
				       __u16 trunc, __u16 fault)
{
	long n;
	char c = 0;

	if (!uptr)
		return 0;
	n = bpf_probe_read_user_str(dst, RIOT_PATH_MAX, (void *)uptr);
	if (n <= 0) {
		*flags |= fault;
		return 0;
	}
	/* A full buffer is ambiguous: a 4095-byte path or a longer one. */
	if (n == RIOT_PATH_MAX &&
	    (bpf_probe_read_user(&c, 1, (void *)(uptr + RIOT_PATH_MAX - 1)) ||
	     c != 0))
		*flags |= trunc;
	return n;
}

/* readlink's result: ret bytes, no NUL. */
static __always_inline __u32 read_linkbuf(char *dst, __u64 uptr, long ret,
					  __u16 *flags)
{
	__u32 n;

	if (!uptr || ret <= 0)
		return 0;
	n = ret < RIOT_PATH_MAX - 1 ? ret : RIOT_PATH_MAX - 1;
	if (ret > RIOT_PATH_MAX - 1)
		*flags |= RIOT_EVF_PATH2_TRUNC;
	/* Keep the mask, which clang proves redundant: 6.1's verifier walks
	 * the min() above on an impossible branch (ret >= 4096 and < 4095)
	 * and, without the mask, refuses dst + n there. */
	asm volatile("" : "+r"(n));
	n &= RIOT_PATH_MAX - 1;
	if (bpf_probe_read_user(dst, n, (void *)uptr)) {
		*flags |= RIOT_EVF_PATH2_FAULT;
		return 0;
	}
	dst[n & (RIOT_PATH_MAX - 1)] = 0;
	return n + 1;
}

/* glibc's makedev(): the st_dev encoding stat(2) reports. */
static __always_inline __u64 encode_dev(__u64 major, __u64 minor)
{
	return ((major & 0xfff) << 8) | ((major & ~0xfffull) << 32) |
	       (minor & 0xff) | ((minor & ~0xffull) << 12);
}

/* Size, type, inode, device of the file behind a new fd, and whether the
 * open created it; the file and its inode in *m, for --path. */
static __always_inline void file_facts(struct riot_ev_ext *x, __u16 *flags,
				       struct file *file, struct opened *m)
{
	struct inode *inode;
	__u32 s_dev, f_mode;

	if (!file)
		return;
	if (bpf_rdonly_cast) {
		file = bpf_rdonly_cast(file, bpf_core_type_id_kernel(struct file));
		inode = file->f_inode;
		if (!inode)
			return;
		x->size = inode->i_size;
		x->ftype = inode->i_mode & S_IFMT_BITS;
		x->perm = inode->i_mode & PERM_BITS;
		x->ino = inode->i_ino;
		s_dev = inode->i_sb->s_dev;
		f_mode = file->f_mode;
	} else {
		inode = BPF_CORE_READ(file, f_inode);
		if (!inode)
			return;
		x->size = BPF_CORE_READ(inode, i_size);
		x->ftype = BPF_CORE_READ(inode, i_mode) & S_IFMT_BITS;
		x->perm = BPF_CORE_READ(inode, i_mode) & PERM_BITS;
		x->ino = BPF_CORE_READ(inode, i_ino);
		s_dev = BPF_CORE_READ(inode, i_sb, s_dev);
		f_mode = BPF_CORE_READ(file, f_mode);
	}
	x->dev = encode_dev(s_dev >> 20, s_dev & 0xfffff);
	*flags |= RIOT_EVF_FACTS;
	if (f_mode & FMODE_CREATED_BIT)
		*flags |= RIOT_EVF_CREATED;
	m->file = (__u64)file;
	m->inode = (__u64)inode;
}

static __always_inline void fd_facts(struct riot_ev_ext *x, __u16 *flags,
				     long fd, struct opened *m)
{
	file_facts(x, flags, fd_file(fd), m);
}

/* struct stat is the architecture's (arch.bpf.h); struct statx is alike
 * everywhere. */
static __always_inline void stat_facts(struct riot_ev_ext *x, __u16 *flags,
				       __u64 uptr)
{
	struct user_stat st;

	if (bpf_probe_read_user(&st, sizeof(st), (void *)uptr))
		return;
	x->size = st.st_size;
	x->ftype = st.st_mode & S_IFMT_BITS;
	x->perm = st.st_mode & PERM_BITS;
	x->ino = st.st_ino;
	x->dev = st.st_dev;
	*flags |= RIOT_EVF_FACTS;
}

static __always_inline void statx_facts(struct riot_ev_ext *x, __u16 *flags,
					__u64 uptr)
{
	/* struct statx from stx_mode to stx_size, in one read */
	struct {
		__u16 mode, pad;
		__u64 ino, size;
	} __attribute__((packed)) a;
	__u32 dev[2];	/* stx_dev_major, stx_dev_minor */

	_Static_assert(__builtin_offsetof(struct statx, stx_ino) ==
		       __builtin_offsetof(struct statx, stx_mode) + 4 &&
		       __builtin_offsetof(struct statx, stx_size) ==
		       __builtin_offsetof(struct statx, stx_mode) + 12 &&
		       __builtin_offsetof(struct statx, stx_dev_minor) ==
		       __builtin_offsetof(struct statx, stx_dev_major) + 4,
		       "struct statx is laid out as read here");
	if (bpf_probe_read_user(&a, sizeof(a),
				(void *)(uptr + __builtin_offsetof(struct statx, stx_mode))) ||
	    bpf_probe_read_user(dev, sizeof(dev),
				(void *)(uptr + __builtin_offsetof(struct statx, stx_dev_major))))
		return;
	x->size = a.size;
	x->ftype = a.mode & S_IFMT_BITS;
	x->perm = a.mode & PERM_BITS;
	x->ino = a.ino;
	x->dev = encode_dev(dev[0], dev[1]);
	*flags |= RIOT_EVF_FACTS;
}

static __always_inline __u64 ring_flags(void)
{
	if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

/* The arguments the wire mask names, packed in order. */
static __always_inline __u32 put_args(__u64 *out, const __u64 *args,
				      __u8 wire)
{
	__u32 k = 0;

	for (int i = 0; i < 6; i++) {
		if (!(wire & (1 << i)))
			continue;
		out[k & 7] = args[i];
		k++;
	}
	return k;
}

static __always_inline void fill_syscall(struct riot_ev_syscall *ev,
					 const struct sys_slot *s,
					 const struct sys_desc *d, long ret,
					 __u64 now)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	ev->type = RIOT_EV_SYSCALL;
	ev->nargs = d->nargs;
	ev->sys = s->sys;
	ev->flags = s->flags;
	ev->path_len = 0;
	ev->path2_len = 0;
	ev->value_len = 0;
	ev->pid = pid_tgid >> 32;
	ev->tid = (__u32)pid_tgid;
	ev->pad2 = 0;
	ev->t = s->t;
	ev->dur = now - s->t;
	ev->ret = ret;
	put_args((__u64 *)((char *)ev + RIOT_EV_SYSCALL_HDR), s->args, d->wire);
}

/* What the call's pointers and result say: the values behind OFFP and
 * OFF2P, open_how, clone_args flags, the new fd's file, the stat buffer. */
static __always_inline void fill_ext(struct riot_ev_ext *x, __u16 *flags,
				     const struct sys_desc *d,
				     const struct sys_slot *s, long ret,
				     struct opened *m)
{
	__builtin_memset(x, 0, sizeof(*x));
	x->off = s->off;
	x->off2 = s->off2;
	x->how[0] = s->clone3_flags;
	if (d->how >= 0 &&
	    !bpf_probe_read_user(x->how, sizeof(x->how),
				 (void *)arg_at(s->args, d->how)))
		*flags |= RIOT_EVF_HOW;
	if ((d->sf & RIOT_SF_RET_FD) && ret >= 0)
		fd_facts(x, flags, ret, m);
	if (d->fdpair >= 0 && ret == 0) {
		__s32 fds[2];

		if (!bpf_probe_read_user(fds, sizeof(fds),
					 (void *)arg_at(s->args, d->fdpair))) {
			x->off = (__u32)fds[0];
			x->off2 = (__u32)fds[1];
			*flags |= RIOT_EVF_FDPAIR;
		}
	}
	if ((d->sf & RIOT_SF_VMA) && s->vma_mode) {
		x->size = s->vma_size;
		x->ftype = s->vma_mode & S_IFMT_BITS;
		x->perm = s->vma_mode & PERM_BITS;
		x->ino = s->vma_ino;
		x->dev = s->vma_dev;
		*flags |= RIOT_EVF_FACTS;
	}
	if (d->statbuf >= 0 && ret == 0) {
		if (d->sf & RIOT_SF_STATX)
			statx_facts(x, flags, arg_at(s->args, d->statbuf));
		else
			stat_facts(x, flags, arg_at(s->args, d->statbuf));
	}
	*flags |= RIOT_EVF_EXT;
}

/* --path on a filled event: whether its paths drop it; an open's file is
 * marked outside, or unmarked, by its path. */
static __always_inline int path_filter(const struct sys_desc *d,
				       const char *data, __u32 len1,
				       __u32 len2, const struct opened *m)
{
	__u64 key = m->file;

	if (!path_prefix_len)
		return 0;
	if (d->path_filter)
		return path_outside((const void *)data, len1) &&
		       (!d->path2_filter ||
			path_outside((const void *)(data + len1), len2));
	if (d->open && key) {
		if (path_outside((const void *)data, len1))
			bpf_map_update_elem(&outside, &key, &m->inode, BPF_ANY);
		else
			bpf_map_delete_elem(&outside, &key);
	}
	return 0;
}

/* The first RIOT_VALUE_MAX bytes of a setxattr value, into dst (after
 * paths of `used` bytes: there is room when used is below 2 *
 * RIOT_PATH_MAX). Their count, RIOT_EVF_VALUE set in *flags when read. */
static __always_inline __u32 read_value(char *dst, const struct sys_slot *s,
					const struct sys_desc *d, __u32 used,
					__u16 *flags)
{
	__u64 cnt = arg_at(s->args, d->valcnt);
	__u32 n = cnt < RIOT_VALUE_MAX ? (__u32)cnt : RIOT_VALUE_MAX;

	if (used >= 2 * RIOT_PATH_MAX)
		return 0;
	n &= 2 * RIOT_VALUE_MAX - 1;
	if (n > RIOT_VALUE_MAX)
		return 0;
	if (n && bpf_probe_read_user(dst, n, (void *)arg_at(s->args, d->valbuf)))
		return 0;
	*flags |= RIOT_EVF_VALUE;
	return n;
}

/* Fills ev, its ext and the paths after it; returns the event's size, 0
 * when --path drops it. ev must have room for EVENT_ROOM bytes. */
static __always_inline __u32 fill_event(struct riot_ev_syscall *ev,
					const struct sys_slot *s,
					const struct sys_desc *d, long ret,
					__u64 now, int keeps_path)
{
	__u32 len1 = 0, len2 = 0, vlen = 0, nargs = d->nargs & 7, head;
	struct opened m = {};
	__u16 flags;
	char *data;

	fill_syscall(ev, s, d, ret, now);
	flags = ev->flags;
	head = RIOT_EV_SYSCALL_HDR + nargs * 8;
	if (d->ext) {
		fill_ext((void *)((char *)ev + head), &flags, d, s, ret, &m);
		head += sizeof(struct riot_ev_ext);
	}
	data = (char *)ev + (head & 255);
	if (d->path >= 0 && keeps_path)
		len1 = read_path(data, arg_at(s->args, d->path), &flags,
				 RIOT_EVF_PATH_TRUNC, RIOT_EVF_PATH_FAULT);
	len1 &= PATH_MASK;
	if (d->path2 >= 0)
		len2 = read_path(data + len1, arg_at(s->args, d->path2),
				 &flags, RIOT_EVF_PATH2_TRUNC,
				 RIOT_EVF_PATH2_FAULT);
	else if (d->linkbuf >= 0)
		len2 = read_linkbuf(data + len1, arg_at(s->args, d->linkbuf),
				    ret, &flags);
	len2 &= PATH_MASK;
	if (path_filter(d, data, len1, len2, &m)) {
		count_filtered();
		return 0;
	}
	if (d->valbuf >= 0 && d->valcnt >= 0)
		vlen = read_value(data + ((len1 + len2) & PATH_MASK), s, d, len1 + len2,
				  &flags);
	/* ioctl(FICLONERANGE): its struct file_clone_range as the value (an
	 * ioctl has no path, so data is free) */
	else if (s->sys == RIOT_SYS_ioctl && (__u32)s->args[1] == FICLONERANGE_CMD &&
		 !bpf_probe_read_user(data, CLONE_RANGE_BYTES, (void *)s->args[2])) {
		vlen = CLONE_RANGE_BYTES;
		flags |= RIOT_EVF_VALUE;
	}
	ev->flags = flags;
	ev->path_len = len1;
	ev->path2_len = len2;
	ev->value_len = vlen;
	return (head & 255) + len1 + len2 + vlen;
}

/* An asynchronous request at its completion (bpf/async.bpf.h). */
struct async_req;
static __always_inline __u32 async_fill(struct riot_ev_syscall *ev,
					const struct async_req *r, __u64 now);

/* Room for the largest event: what the filling functions below may write.
 * They are global functions, so the verifier checks each once, apart from
 * the paths of the programs that call them; inlined, every branch of a
 * caller multiplied the states of every branch of the filling, and
 * loading cost several times as much. */
struct event_room {
	char bytes[EVENT_ROOM];
};

__attribute__((noinline)) __u32 fill_syscall_event(struct event_room *ev,
						  const struct sys_slot *s,
						  long ret, __u64 now,
						  int keeps_path)
{
	__u32 sys;

	if (!ev || !s)
		return 0;
	sys = s->sys;
	if (sys >= RIOT_SYS_COUNT)
		return 0;
	return fill_event((void *)ev, s, &descs[SYS_SLOT(sys)], ret, now,
			  keeps_path);
}

__u32 fill_async_event(struct event_room *ev, const struct async_req *a,
		       __u64 now);

/* The event of a syscall (a is NULL) or of an asynchronous request: its
 * size, at most EVENT_ROOM. */
static __always_inline __u64 fill_any(struct riot_ev_syscall *ev,
				      const struct sys_slot *s,
				      const struct async_req *a, long ret,
				      __u64 now, int keeps_path)
{
	__u64 size;

	if (a)
		size = fill_async_event((void *)ev, a, now);
	else
		size = fill_syscall_event((void *)ev, s, ret, now, keeps_path);
	return size <= EVENT_ROOM ? size : 0;
}

/* Without a batch (another program on this CPU holds it: preemption):
 * one ring record, built in the per-CPU scratch. */
static __always_inline int emit_direct(const struct sys_slot *s,
				       const struct async_req *a, long ret,
				       __u64 now, int keeps_path)
{
	__u32 zero = 0;
	struct scratch *sc = bpf_map_lookup_elem(&scratches, &zero);
	__u64 size, flags;

	if (!sc) {
		count_loss(1);
		return 0;
	}
	size = fill_any(&sc->ev, s, a, ret, now, keeps_path);
	flags = ring_flags();
	/* apart, or the compiler folds them into one check the verifier
	 * cannot bound size by */
	if (!size)
		return 0;
	asm volatile("" : "+r"(size));
	if (size > sizeof(*sc))
		return 0;
	if (bpf_ringbuf_output(&events, sc, size, flags))
		count_loss(1);
	return 0;
}

/* Hands the batch over with the CPU's progress; heartbeat: even when it
 * is empty. The caller holds it.
 *
 * Why upto is right: events enter a batch with a time taken while it is
 * held, so those not in it yet are timed after this flush. A record
 * written beside the batch takes its time after counting itself in
 * b->direct and leaves once it is in the ring; while one is in flight the
 * progress stays where it was, so a record timed before upto is in the
 * ring before this one. */
static __always_inline void batch_flush(struct batch *b, int heartbeat)
{
	struct riot_ev_batch *h = (void *)b->buf;
	/* Always below RIOT_BATCH_BYTES (an event starts at most at
	 * BATCH_LIMIT); the mask says so to the verifier. */
	__u64 len = b->len & (RIOT_BATCH_BYTES - 1), now;

	now = bpf_ktime_get_boot_ns();
	if (!__sync_fetch_and_add(&b->direct, 0))
		b->upto = now;
	if (len > RIOT_BATCH_HDR || heartbeat) {
		if (len < RIOT_BATCH_HDR)
			len = RIOT_BATCH_HDR;
		h->type = RIOT_EV_BATCH;
		h->len = len - RIOT_BATCH_HDR;
		h->cpu = bpf_get_smp_processor_id();
		h->pad2 = 0;
		h->upto = b->upto;
		if (bpf_ringbuf_output(&events, b->buf, len, ring_flags()))
			count_losses(1, b->count);
	}
	b->len = RIOT_BATCH_HDR;
	b->count = 0;
	b->gen = flush_gen;
}

static __always_inline struct batch *cpu_batch(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&batches, &cpu);
}

/* b, held; NULL when busy. Release with batch_put(). */
static __always_inline struct batch *batch_hold(struct batch *b)
{
	if (!b || __sync_val_compare_and_swap(&b->busy, 0, 1) != 0)
		return NULL;
	return b;
}

static __always_inline struct batch *batch_get(void)
{
	return batch_hold(cpu_batch());
}

/* A record about to go to the ring beside this CPU's batch: counted
 * before it takes its time, until it is in the ring (direct_end), so
 * that a flush meanwhile does not move the CPU's progress past it. */
static __always_inline struct batch *direct_begin(void)
{
	struct batch *b = cpu_batch();

	if (b)
		__sync_fetch_and_add(&b->direct, 1);
	return b;
}

static __always_inline void direct_end(struct batch *b)
{
	if (b)
		__sync_fetch_and_sub(&b->direct, 1);
}

static __always_inline void batch_put(struct batch *b)
{
	/* Same CPU (programs run with migration disabled): a plain store
	 * is seen by the next holder. */
	b->busy = 0;
}

/* The event's time (its exit, or the request's completion) is taken once
 * the batch is held, or once the record is counted in b->direct: see
 * batch_flush(). One of s (a syscall) and a (an asynchronous request). */
static __always_inline int emit_record(const struct sys_slot *s,
				       const struct async_req *a, long ret)
{
	__u32 sys = s ? s->sys : 0, size;
	__u64 off, now;
	struct batch *cb, *b;
	int keeps_path = 1;

	if (s) {
		if (sys >= RIOT_SYS_COUNT)
			return 0;
		/* execve's path is gone with the old image:
		 * sched_process_exec has the file name. */
		keeps_path = !((sys == RIOT_SYS_execve ||
				sys == RIOT_SYS_execveat) && ret == 0);
	}
	cb = cpu_batch();
	b = batch_hold(cb);
	if (!b) {
		if (cb)
			__sync_fetch_and_add(&cb->direct, 1);
		now = bpf_ktime_get_boot_ns();
		if (s && s->calib)
			calib_note(now - s->t);
		else
			emit_direct(s, a, ret, now, keeps_path);
		direct_end(cb);
		return 0;
	}
	now = bpf_ktime_get_boot_ns();
	if (s && s->calib) {
		calib_note(now - s->t);
		batch_put(b);
		return 0;
	}
	if (b->len > BATCH_LIMIT || b->len < RIOT_BATCH_HDR)
		batch_flush(b, 0);
	off = b->len;
	asm volatile("" : "+r"(off));	/* keep the bound check on off */
	if (off <= BATCH_LIMIT) {
		size = fill_any((void *)(b->buf + off), s, a, ret, now,
				keeps_path);
		if (size) {
			b->len = off + ((size + 7) & ~7u);
			b->count++;
		}
	} else {
		count_loss(1);	/* cannot happen: a flush leaves room */
	}
	if (b->len > BATCH_LIMIT || b->gen != flush_gen)
		batch_flush(b, 0);
	batch_put(b);
	return 0;
}

static __always_inline int emit_syscall(const struct sys_slot *s, long ret)
{
	return emit_record(s, 0, ret);
}

/* ---- fds the capture did not see made ----
 *
 * A process can hold an fd whose making no traced syscall shows: received
 * over a unix socket (SCM_RIGHTS), taken with pidfd_getfd, opened through
 * io_uring, inherited across a fork riot followed only in part. Before a
 * recorded call uses an fd, its struct file is compared with the one the
 * capture last saw at that (process, fd); when they differ, a
 * RIOT_EV_FD record introduces the fd with its path, read from the
 * kernel, so the resolver knows it from its first use on. The walk lives
 * in global functions, verified once and apart from the hot programs. */

/* Path components walked (deeper paths are cut and flagged) and mount
 * crossings on top of them. */
#define FD_DEPTH 64
#define FD_MOUNTS 16
#define NAME_BYTES 256		/* NAME_MAX + NUL */
#define SB_NOUSER_FLAG 0x80000000u	/* pseudo filesystems: pipefs, sockfs,
					 * anon_inodefs */
#define O_CLOEXEC_FLAG 02000000u
#define F_DUPFD_CMD 0
#define F_DUPFD_CLOEXEC_CMD 1030

struct fd_key {
	__u32 tgid;
	__s32 fd;
};

/* What the capture last saw made or introduced at each fd of a process:
 * the struct file (0: nothing). fds below KNOWN_SMALL sit in an array in
 * the storage of the process's group leader (a load or a store, freed
 * with the process); the others in a hash by (tgid, fd). A missing or
 * evicted entry costs one redundant introduction, which the resolver
 * recognises as the file it holds. */
#define KNOWN_SMALL 256
struct known_small {
	__u64 file[KNOWN_SMALL];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct known_small);
} known_small_fds SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);	/* made whole at load: 65,536 cost
					 * start-up 5 ms */
	__type(key, struct fd_key);
	__type(value, __u64);
} known_fds SEC(".maps");

/* fd's entry in the process's array; NULL for a large fd, or when the
 * array is missing (and flags does not create it, or it cannot be). */
static __always_inline __u64 *known_small_at(long fd, __u64 flags)
{
	struct task_struct *leader = bpf_get_current_task_btf()->group_leader;
	struct known_small *k;
	__u64 i = fd;

	if (fd < 0 || fd >= KNOWN_SMALL)
		return NULL;
	k = bpf_task_storage_get(&known_small_fds, leader, 0, flags);
	asm volatile("" : "+r"(i));	/* keep the mask for the verifier */
	return k ? &k->file[i & (KNOWN_SMALL - 1)] : NULL;
}

/* The state of a path walk. In the map value, not on the stack: the
 * verifier then takes its values as unknown, and the loop callbacks are
 * verified once each instead of once per counter value. */
struct walk {
	__u64 d, mnt;		/* struct dentry *, struct mount * */
	__u64 root_d, root_mnt;	/* the process's root: dentry, vfsmount */
	__u64 mnt_off;		/* offset of struct mount's vfsmount */
	__u32 n, len, trunc, done;
};

struct fd_scratch;
struct walk_ctx {	/* bpf_loop's context lives on the stack */
	struct fd_scratch *sc;
};

struct fd_scratch {
	struct riot_ev_fd ev;
	char path[2 * RIOT_PATH_MAX];
	__u64 dentries[FD_DEPTH];
	struct walk w;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fd_scratch);
} fd_scratches SEC(".maps");


/* One step up from w->d: to its parent, or across the mount it is the
 * root of; its dentry saved unless it is the root. */
static long walk_up(__u64 i, void *ctx)
{
	struct fd_scratch *sc = ((struct walk_ctx *)ctx)->sc;
	struct walk *w = &sc->w;
	struct dentry *d = (void *)w->d, *parent;
	struct mount *mnt = (void *)w->mnt, *up;

	if (w->d == w->root_d && w->mnt + w->mnt_off == w->root_mnt)
		goto done;
	if (w->d == (__u64)BPF_CORE_READ(mnt, mnt.mnt_root)) {
		up = BPF_CORE_READ(mnt, mnt_parent);
		if (!up || up == mnt)
			goto done;
		w->d = (__u64)BPF_CORE_READ(mnt, mnt_mountpoint);
		w->mnt = (__u64)up;
		return 0;
	}
	parent = BPF_CORE_READ(d, d_parent);
	if (!parent || parent == d)
		goto done;
	if (w->n >= FD_DEPTH) {
		w->trunc = 1;
		return 1;
	}
	sc->dentries[w->n & (FD_DEPTH - 1)] = w->d;
	w->n++;
	w->d = (__u64)parent;
	return 0;
done:
	w->done = 1;
	return 1;
}

/* Appends "/" and the name of the i-th saved dentry from the top. */
static long put_name(__u64 i, void *ctx)
{
	struct fd_scratch *sc = ((struct walk_ctx *)ctx)->sc;
	struct walk *w = &sc->w;
	struct dentry *d;
	const unsigned char *name;
	__u32 off = w->len;
	long n;

	if (i >= w->n || off > RIOT_PATH_MAX - NAME_BYTES - 16) {
		w->trunc |= i < w->n;
		return 1;
	}
	d = (void *)sc->dentries[(w->n - 1 - i) & (FD_DEPTH - 1)];
	name = BPF_CORE_READ(d, d_name.name);
	sc->path[off & (RIOT_PATH_MAX - 1)] = '/';
	off++;
	n = bpf_probe_read_kernel_str(&sc->path[off & (RIOT_PATH_MAX - 1)],
				      NAME_BYTES, name);
	if (n > 1)
		off += n - 1;
	w->len = off;
	return 0;
}

/* The path of the file at (dentry, vfsmount) seen from the current
 * process's root, into sc->path; its length with the NUL. */
static __always_inline __u32 file_path(struct fd_scratch *sc,
				       struct dentry *dentry,
				       struct vfsmount *vfsmnt, __u8 *flags)
{
	struct task_struct *task = bpf_get_current_task_btf();
	static const char deleted[] = " (deleted)";
	struct walk *w = &sc->w;
	struct walk_ctx c = { sc };
	__u32 off;

	__builtin_memset(w, 0, sizeof(*w));
	w->mnt_off = bpf_core_field_offset(struct mount, mnt);
	w->d = (__u64)dentry;
	w->mnt = (__u64)vfsmnt - w->mnt_off;
	w->root_d = (__u64)BPF_CORE_READ(task, fs, root.dentry);
	w->root_mnt = (__u64)BPF_CORE_READ(task, fs, root.mnt);
	bpf_loop(FD_DEPTH + FD_MOUNTS, walk_up, &c, 0);
	if (!w->done)
		w->trunc = 1;
	bpf_loop(FD_DEPTH, put_name, &c, 0);
	off = w->len;
	if (!off) {
		sc->path[0] = '/';
		off = 1;
	}
	/* unlinked: d_unhashed() and not a root, as d_path() says it */
	if (!BPF_CORE_READ(dentry, d_hash.pprev) &&
	    BPF_CORE_READ(dentry, d_parent) != dentry) {
		for (int i = 0; i < sizeof(deleted) - 1; i++)
			sc->path[(off + i) & (2 * RIOT_PATH_MAX - 1)] = deleted[i];
		off += sizeof(deleted) - 1;
	}
	sc->path[off & (2 * RIOT_PATH_MAX - 1)] = 0;
	if (w->trunc)
		*flags |= RIOT_EVD_PATH_TRUNC;
	return off + 1;
}

/* Puts a RIOT_EV_FD record for fd, whose file is file, in the ring. */
static __always_inline void fd_introduce(struct file *file, int fd)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 pid_tgid = bpf_get_current_pid_tgid(), cloexec = 0;
	struct fd_scratch *sc;
	struct riot_ev_fd *ev;
	struct inode *inode;
	struct batch *cb;
	__u32 zero = 0, len = 0, s_dev, size;
	unsigned long *bits;

	sc = bpf_map_lookup_elem(&fd_scratches, &zero);
	if (!sc)
		return;
	cb = direct_begin();
	ev = &sc->ev;
	__builtin_memset(ev, 0, sizeof(*ev));
	ev->type = RIOT_EV_FD;
	ev->pid = pid_tgid >> 32;
	ev->tid = (__u32)pid_tgid;
	ev->fd = fd;
	ev->t = bpf_ktime_get_boot_ns();
	inode = BPF_CORE_READ(file, f_inode);
	ev->ftype = BPF_CORE_READ(inode, i_mode) & S_IFMT_BITS;
	ev->perm = BPF_CORE_READ(inode, i_mode) & PERM_BITS;
	ev->size = BPF_CORE_READ(inode, i_size);
	ev->ino = BPF_CORE_READ(inode, i_ino);
	s_dev = BPF_CORE_READ(inode, i_sb, s_dev);
	ev->dev = encode_dev(s_dev >> 20, s_dev & 0xfffff);
	ev->pos = BPF_CORE_READ(file, f_pos);
	ev->f_flags = BPF_CORE_READ(file, f_flags) & ~O_CLOEXEC_FLAG;
	bits = BPF_CORE_READ(task, files, fdt, close_on_exec);
	if (bits && !bpf_probe_read_kernel(&cloexec, sizeof(cloexec),
					   bits + fd / 64) &&
	    ((cloexec >> (fd % 64)) & 1))
		ev->f_flags |= O_CLOEXEC_FLAG;
	if (BPF_CORE_READ(inode, i_sb, s_flags) & SB_NOUSER_FLAG)
		ev->flags |= RIOT_EVD_NOFILE;
	else
		len = file_path(sc, BPF_CORE_READ(file, f_path.dentry),
				BPF_CORE_READ(file, f_path.mnt), &ev->flags);
	len &= 2 * RIOT_PATH_MAX - 1;
	if (len > RIOT_PATH_MAX) {
		len = RIOT_PATH_MAX;
		sc->path[RIOT_PATH_MAX - 1] = 0;
		ev->flags |= RIOT_EVD_PATH_TRUNC;
	}
	ev->path_len = len;
	size = sizeof(*ev) + len;
	if (size <= sizeof(*sc) &&
	    bpf_ringbuf_output(&events, sc, size, ring_flags()))
		count_loss(1);
	direct_end(cb);
}

/* Before a recorded call uses fd: introduces it unless the capture saw
 * its file made there. A global function: verified once, on its own. */
__attribute__((noinline)) int fd_check(int fd)
{
	struct fd_key key = { .tgid = bpf_get_current_pid_tgid() >> 32,
			      .fd = fd };
	struct file *file;
	__u64 *seen, v;

	if (fd < 0)
		return 0;
	file = fd_file(fd);
	if (!file)
		return 0;
	v = (__u64)file;
	seen = known_small_at(fd, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (seen) {
		if (*seen == v)
			return 0;
		fd_introduce(file, fd);
		*seen = v;
		return 0;
	}
	seen = bpf_map_lookup_elem(&known_fds, &key);
	if (seen && *seen == v)
		return 0;
	fd_introduce(file, fd);
	bpf_map_update_elem(&known_fds, &key, &v, BPF_ANY);
	return 0;
}

static __always_inline void fd_mark(__u32 tgid, long fd)
{
	struct fd_key key = { .tgid = tgid, .fd = fd };
	__u64 v = (__u64)fd_file(fd), *p;

	if (!v)
		return;
	p = known_small_at(fd, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (p)
		*p = v;
	else
		bpf_map_update_elem(&known_fds, &key, &v, BPF_ANY);
}

/* After a recorded call: the fds it made, which the log shows made, are
 * known; a closed fd is forgotten. what: FDNOTE_*. */
__attribute__((noinline)) int fd_note_exit(__u32 what, long ret, __u64 arg0,
					   __u64 arg1, __u64 pairp)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct fd_key key = { .tgid = tgid, .fd = (__s32)arg0 };
	__s32 fds[2];

	if (what == FDNOTE_CLOSE) {
		__u64 *p = known_small_at(key.fd, 0);

		if (p)
			*p = 0;
		else if (key.fd >= KNOWN_SMALL)
			bpf_map_delete_elem(&known_fds, &key);
		return 0;
	}
	if (ret < 0)
		return 0;
	if (what == FDNOTE_RET ||
	    (what == FDNOTE_FCNTL &&
	     (arg1 == F_DUPFD_CMD || arg1 == F_DUPFD_CLOEXEC_CMD)))
		fd_mark(tgid, ret);
	if (what == FDNOTE_PAIR && ret == 0 &&
	    !bpf_probe_read_user(fds, sizeof(fds), (void *)pairp)) {
		fd_mark(tgid, fds[0]);
		fd_mark(tgid, fds[1]);
	}
	return 0;
}

/* capture's own syscalls, made on each CPU in turn, hand over batches
 * that sat since the last flush generation, empty ones too: an idle CPU's
 * progress moves on. */
static __always_inline void flush_stale(void)
{
	struct batch *b = batch_get();

	if (!b)
		return;
	if (b->gen != flush_gen)
		batch_flush(b, 1);
	batch_put(b);
}

struct vma_seen {
	__u64 addr;
	__u64 size, ino, dev, off;
	__u32 mode;
	__u32 file;
};

static long vma_facts(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct vma_seen *v = data;
	struct file *f = vma->vm_file;
	struct inode *inode;
	__u32 s_dev;

	if (!f)
		return 0;
	v->file = 1;
	v->off = v->addr - vma->vm_start + (vma->vm_pgoff << PAGE_SHIFT_4K);
	inode = BPF_CORE_READ(f, f_inode);
	if (!inode)
		return 0;
	v->size = BPF_CORE_READ(inode, i_size);
	v->mode = BPF_CORE_READ(inode, i_mode);
	v->ino = BPF_CORE_READ(inode, i_ino);
	s_dev = BPF_CORE_READ(inode, i_sb, s_dev);
	v->dev = encode_dev(s_dev >> 20, s_dev & 0xfffff);
	return 0;
}

/* RIOT_SF_VMA: whether the call's mapping (at ADDR, or where mremap moved
 * it) maps a file; its facts into s. glibc's malloc advises anonymous
 * memory all the time: those calls are no file I/O and are not recorded.
 * A mapping whose lock was taken (bpf_find_vma only tries it), or any on a
 * kernel without bpf_find_vma, is recorded without facts rather than lost. */
static __always_inline int vma_of_file(struct task_struct *task, struct sys_slot *s, long ret)
{
	struct vma_seen v = {};
	long err;

	v.addr = s->sys == RIOT_SYS_mremap && ret > 0 ? (__u64)ret : s->args[0];
	s->vma_mode = 0;
	/* bpf_find_vma came with Linux 5.17 (commit 7c7e3d31e785): before
	 * it, every call is recorded, none with facts */
	if (!bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_find_vma))
		return 1;
	err = bpf_find_vma(task, v.addr, vma_facts, &v, 0);
	if (err == -EBUSY_ERR)
		return 1;
	if (err || !v.file)
		return 0;
	s->vma_size = v.size;
	s->vma_ino = v.ino;
	s->vma_dev = v.dev;
	s->vma_mode = v.mode ? v.mode : S_IFREG_BITS;
	s->off2 = v.off;
	s->flags |= RIOT_EVF_OFF2;
	return 1;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const struct sys_desc *d;
	struct sys_slot *s;
	__u32 sys;

	s = bpf_task_storage_get(&slots, task, 0, 0);
	if (!s || !s->active) {
		if ((bpf_get_current_pid_tgid() >> 32) == self_tgid)
			flush_stale();
		return 0;
	}
	s->active = 0;
	if (s->aio)
		aio_exit(s->sys, ret, s->args[0],
			 s->sys == RIOT_SYS_io_submit ? s->args[1] : s->args[2],
			 s->sys == RIOT_SYS_io_submit ? s->args[2] : s->args[3]);
	if (!s->emit) {
		if (s->calib)	/* no slot kept for the calibration's thread */
			bpf_task_storage_delete(&slots, task);
		return 0;
	}
	sys = s->sys;
	if (sys >= RIOT_SYS_COUNT)
		return 0;
	d = &descs[SYS_SLOT(sys)];
	if ((d->sf & RIOT_SF_VMA) && !vma_of_file(task, s, ret))
		return 0;
	emit_syscall(s, ret);
	if (s->calib) {
		bpf_task_storage_delete(&slots, task);
		return 0;
	}
	if (d->fdnote)
		fd_note_exit(d->fdnote, ret, s->args[0], s->args[1],
			     arg_at(s->args, d->fdpair));
	return 0;
}

static __always_inline struct riot_ev_proc *proc_event(__u8 type)
{
	__u32 zero = 0;
	struct proc_scratch *ps = bpf_map_lookup_elem(&proc_scratches, &zero);
	struct riot_ev_proc *ev;
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	if (!ps)
		return NULL;
	ev = &ps->ev;
	__builtin_memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->pid = pid_tgid >> 32;
	ev->tid = (__u32)pid_tgid;
	ev->t = bpf_ktime_get_boot_ns();
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	return ev;
}

static __always_inline void proc_output(struct riot_ev_proc *ev, __u32 len)
{
	__u32 size = sizeof(*ev) + (len & (2 * RIOT_PATH_MAX - 1));

	if (size > sizeof(struct proc_scratch))
		return;
	if (bpf_ringbuf_output(&events, ev, size, ring_flags()))
		count_loss(1);
}

/* The clone flags of the parent's syscall in flight, if it is one. */
static __always_inline int clone_flags_of(struct task_struct *parent,
					  __u64 *flags)
{
	struct sys_slot *s = bpf_task_storage_get(&slots, parent, 0, 0);

	if (!s || !s->active)
		return 0;
	switch (s->sys) {
	case RIOT_SYS_clone:
		*flags = s->args[0];
		return 1;
	case RIOT_SYS_clone3:
		*flags = s->clone3_flags;
		return !!(s->flags & RIOT_EVF_CLONEARGS);
	case RIOT_SYS_fork:
		*flags = SIGCHLD_NR;
		return 1;
	case RIOT_SYS_vfork:
		*flags = CLONE_VM_FLAG | CLONE_VFORK_FLAG | SIGCHLD_NR;
		return 1;
	}
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(proc_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u32 child_tgid = child->tgid;
	struct riot_ev_proc *ev;
	struct batch *cb;
	__u8 one = 1;

	if (!in_target(tgid))
		return 0;
	if (target_mode == RIOT_TARGET_PIDS && child_tgid != tgid &&
	    bpf_map_update_elem(&traced, &child_tgid, &one, BPF_ANY))
		count_unfollowed();
	if (!comm_matches())
		return 0;
	cb = direct_begin();
	ev = proc_event(RIOT_EV_FORK);
	if (ev) {
		ev->child_pid = child_tgid;
		ev->child_tid = child->pid;
		if (child_tgid != tgid)
			ev->flags |= RIOT_EVP_NEW_PROCESS;
		if (clone_flags_of(bpf_get_current_task_btf(), &ev->clone_flags))
			ev->flags |= RIOT_EVP_FLAGS_KNOWN;
		proc_output(ev, 0);
	}
	direct_end(cb);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(proc_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct riot_ev_proc *ev;
	struct batch *cb;
	long n;

	if (!in_target(tgid) || !comm_matches())
		return 0;
	cb = direct_begin();
	ev = proc_event(RIOT_EV_EXEC);
	if (ev) {
		n = bpf_probe_read_kernel_str((char *)(ev + 1), RIOT_PATH_MAX,
					      BPF_CORE_READ(bprm, filename));
		if (n < 0)
			n = 0;
		if (n == RIOT_PATH_MAX)
			ev->flags |= RIOT_EVP_PATH_TRUNC;
		ev->path_len = n;
		proc_output(ev, n);
	}
	direct_end(cb);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(proc_exit, struct task_struct *p)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct riot_ev_proc *ev;
	struct batch *cb;
	int group_dead;

	if (!in_target(tgid))
		return 0;
	/* do_exit() decrements signal->live before this tracepoint. */
	group_dead = BPF_CORE_READ(p, signal, live.counter) == 0;
	if (comm_matches()) {
		cb = direct_begin();
		ev = proc_event(RIOT_EV_EXIT);
		if (ev) {
			ev->exit_code = BPF_CORE_READ(p, exit_code);
			if (group_dead)
				ev->flags |= RIOT_EVP_GROUP_DEAD;
			proc_output(ev, 0);
		}
		direct_end(cb);
	}
	/* After the record is in the ring: capture stops once the traced
	 * set is empty, and must find the last exit there. */
	if (group_dead && target_mode == RIOT_TARGET_PIDS)
		bpf_map_delete_elem(&traced, &tgid);
	if (group_dead)
		aio_proc_gone(tgid);
	return 0;
}

#include "async.bpf.h"
#include "aio.bpf.h"
#include "mmap.bpf.h"
#include "uring.bpf.h"
