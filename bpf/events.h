/* bpf/events.h: the records bpf/riot.bpf.c puts in the ring buffer and
 * capture/ reads. Fixed-width types only: both clang -target bpf (with
 * vmlinux.h) and the host compiler (with <linux/types.h>) take it. A record
 * starts with its __u8 type. */
#ifndef RIOT_BPF_EVENTS_H
#define RIOT_BPF_EVENTS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define RIOT_PATH_MAX 4096	/* bytes of one path, NUL included */
#define RIOT_COMM_LEN 16
/* --path in the kernel: prefixes shorter than this, and paths up to this
 * many bytes, are tested there; the rest is left to userspace. */
#define RIOT_KPATH_MAX 256
#define RIOT_NR_MAX 512		/* syscall numbers the filter table covers */
#define RIOT_CALIB_CALLS 2048	/* calls of a probe-time calibration */

enum riot_ev_type {
	RIOT_EV_SYSCALL = 1,
	RIOT_EV_FORK = 2,
	RIOT_EV_EXEC = 3,
	RIOT_EV_EXIT = 4,
	RIOT_EV_BATCH = 5,	/* struct riot_ev_batch */
	RIOT_EV_FD = 6,		/* struct riot_ev_fd */
};

/* Events one CPU gathered, handed over in one ring-buffer record: the
 * ring's reserve/commit (a spinlock with interrupts off) costs more than
 * recording an event. Followed by len bytes of events, each starting at
 * an 8-byte boundary and taking riot_ev_size() bytes rounded up to 8.
 *
 * upto is the CPU's progress: every event that CPU timed (a syscall's
 * exit, a process event) before upto is in this record or in an earlier
 * ring record, and no later record of the CPU holds one timed before it.
 * A record with len 0 is a heartbeat of an idle CPU. */
struct riot_ev_batch {
	__u8 type;		/* RIOT_EV_BATCH */
	__u8 pad[3];
	__u32 len;
	__u32 cpu;
	__u32 pad2;
	__u64 upto;		/* bpf_ktime_get_boot_ns() */
};
#define RIOT_BATCH_HDR 24
#define RIOT_BATCH_BYTES (64 * 1024)	/* per CPU, header included */

/* riot_ev_syscall.flags */
#define RIOT_EVF_PATH_TRUNC	0x0001	/* path cut at RIOT_PATH_MAX */
#define RIOT_EVF_PATH2_TRUNC	0x0002
#define RIOT_EVF_PATH_FAULT	0x0004	/* path unreadable at exit */
#define RIOT_EVF_PATH2_FAULT	0x0008
#define RIOT_EVF_OFF		0x0010	/* ext.off holds *OFFP read at entry */
#define RIOT_EVF_OFF2		0x0020	/* ext.off2 holds *OFF2P at entry */
#define RIOT_EVF_HOW		0x0040	/* ext.how holds struct open_how */
#define RIOT_EVF_CLONEARGS	0x0080	/* ext.how[0] holds clone_args.flags */
#define RIOT_EVF_FACTS		0x0100	/* size, ino, dev, ftype are set */
#define RIOT_EVF_CREATED	0x0200	/* the open created the file */
#define RIOT_EVF_EXT		0x0400	/* struct riot_ev_ext follows args */
#define RIOT_EVF_VALUE		0x0800	/* value_len bytes of the call's value
					 * follow path2 (RIOT_SF_VALUE) */
#define RIOT_VALUE_MAX 256	/* bytes of an xattr value recorded */
#define RIOT_EVF_FDPAIR		0x1000	/* ext.off, ext.off2: the two fds of
					 * an FDPAIR argument */

/* One completed syscall, as it travels: the header, then nargs raw
 * arguments (those whose role RIOT_ARG_ON_WIRE(), in argument order),
 * then struct riot_ev_ext when flags has RIOT_EVF_EXT, then path_len bytes
 * of path and path2_len bytes of path2 (each NUL-terminated; 0: absent),
 * then value_len bytes of value when flags has RIOT_EVF_VALUE.
 * Kept small: every byte crosses the ring buffer, which costs the traced
 * thread. */
struct riot_ev_syscall {
	__u8 type;		/* RIOT_EV_SYSCALL */
	__u8 nargs;
	__u16 sys;		/* RIOT_SYS_* */
	__u16 flags;		/* RIOT_EVF_* */
	__u16 path_len;
	__u16 path2_len;
	__u16 value_len;
	__u32 pid;
	__u32 tid;
	__u32 pad2;
	__u64 t;		/* entry, bpf_ktime_get_boot_ns() */
	__u64 dur;
	__s64 ret;
	__u64 args[6];		/* raw, as at entry; nargs of them sent */
};
#define RIOT_EV_SYSCALL_HDR 48	/* bytes before args */

/* Arguments sent as values. Pointers are not: capture sends what they
 * point to (paths, *OFFP, open_how, clone_args flags, stat facts), and
 * data buffers are not recorded. Takes an enum riot_arg (syscalls.h). */
#define RIOT_ARG_ON_WIRE(r)                                                  \
	((r) == RIOT_ARG_FD || (r) == RIOT_ARG_FD2 || (r) == RIOT_ARG_DFD ||   \
	 (r) == RIOT_ARG_DFD2 || (r) == RIOT_ARG_CNT || (r) == RIOT_ARG_OFF ||  \
	 (r) == RIOT_ARG_FLAGS || (r) == RIOT_ARG_MODE ||                     \
	 (r) == RIOT_ARG_CMD || (r) == RIOT_ARG_ARG ||                        \
	 (r) == RIOT_ARG_IOVCNT || (r) == RIOT_ARG_UID ||                     \
	 (r) == RIOT_ARG_GID || (r) == RIOT_ARG_ADDR || (r) == RIOT_ARG_CTX)

/* What a syscall's pointers and result said, for the calls that have it. */
struct riot_ev_ext {
	__u64 off, off2;	/* *OFFP, *OFF2P at entry */
	__u64 how[3];		/* open_how flags, mode, resolve; clone_args
				 * flags in how[0] */
	__u64 size, ino, dev;	/* dev encoded as stat(2)'s st_dev */
	__u32 ftype;		/* S_IFMT bits */
	__u32 perm;		/* permission bits (07777) of the same mode */
};

/* riot_ev_proc.flags */
#define RIOT_EVP_GROUP_DEAD	0x01	/* EXIT: the last task of the process */
#define RIOT_EVP_PATH_TRUNC	0x02
#define RIOT_EVP_NEW_PROCESS	0x04	/* FORK: the child is a new process */
#define RIOT_EVP_FLAGS_KNOWN	0x08	/* FORK: clone_flags came from the
					 * parent's clone/fork syscall */

/* A process event; EXEC records are followed by path_len bytes of the
 * executed file's name. */
struct riot_ev_proc {
	__u8 type;		/* RIOT_EV_FORK, _EXEC, _EXIT */
	__u8 flags;		/* RIOT_EVP_* */
	__u16 path_len;
	__u32 pid, tid;
	__u64 t;
	__u32 child_pid, child_tid;
	__u64 clone_flags;
	__s32 exit_code;
	__u32 pad;
	char comm[RIOT_COMM_LEN];
};

/* riot_ev_fd.flags */
#define RIOT_EVD_PATH_TRUNC	0x01	/* path cut: too deep or too long */
#define RIOT_EVD_NOFILE		0x02	/* a pipe, socket or anonymous inode:
					 * no path */

/* An fd in use that the capture did not see made (received over a unix
 * socket, taken with pidfd_getfd, opened through io_uring, inherited
 * from before the capture, ...), as the kernel holds it just before the
 * first call of its process that uses it. Followed by path_len bytes of
 * the file's path (NUL-terminated; 0: none), walked from its dentry up
 * to the process's root, " (deleted)" appended when it is unlinked. */
struct riot_ev_fd {
	__u8 type;		/* RIOT_EV_FD */
	__u8 flags;		/* RIOT_EVD_* */
	__u16 path_len;
	__u32 pid, tid;
	__s32 fd;
	__u32 f_flags;		/* the open file's flags; O_CLOEXEC: the fd's */
	__u32 ftype;		/* S_IFMT bits */
	__u32 perm;		/* permission bits (07777) */
	__u32 pad;
	__u64 t;		/* bpf_ktime_get_boot_ns() */
	__u64 pos;		/* the file position */
	__u64 size, ino, dev;	/* dev encoded as stat(2)'s st_dev */
};

/* Per-CPU loss counters (map "losses"); userspace turns growth of ring +
 * slot into RIOT_REC_DROP records. */
struct riot_loss {
	__u64 ring;		/* ring buffer full: record not written */
	__u64 slot;		/* no per-task slot: syscall not recorded */
	__u64 t_last;		/* time of the latest loss */
	__u64 unfollowed;	/* new processes the traced set had no room
				 * for (RIOT_TARGET_PIDS): not traced */
	__u64 filtered;		/* syscalls --path dropped in the kernel */
};

/* How the kernel side chooses the tasks it traces (rodata target_mode). */
enum riot_target_mode {
	RIOT_TARGET_ALL = 0,	/* every task but riot's own */
	RIOT_TARGET_PIDS = 1,	/* tgids in map "traced", following forks */
	RIOT_TARGET_CGROUP = 2,	/* tasks in the cgroup in map "cgroups" or
				 * below it */
};

#endif
