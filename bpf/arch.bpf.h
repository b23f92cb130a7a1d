/* bpf/arch.bpf.h: what the programs read of a task's registers and of the
 * user ABI, for the architecture make compiles them for (clang
 * -D__TARGET_ARCH_x86 or -D__TARGET_ARCH_arm64, with bpf/ARCH/vmlinux.h).
 * The other architecture-dependent part is riot.bpf.c's syscall map,
 * keyed by the architecture's syscall numbers. Included by riot.bpf.c
 * after vmlinux.h. */
#ifndef RIOT_BPF_ARCH_H
#define RIOT_BPF_ARCH_H

#if defined(__TARGET_ARCH_x86)

/* Argument N (0-5, a constant) of the syscall entering: the user
 * registers of x86_64's syscall convention, as sys_enter's pt_regs holds
 * them (arch/x86/entry/entry_64.S). */
#define SYSCALL_ARG0(regs) ((regs)->di)
#define SYSCALL_ARG1(regs) ((regs)->si)
#define SYSCALL_ARG2(regs) ((regs)->dx)
#define SYSCALL_ARG3(regs) ((regs)->r10)
#define SYSCALL_ARG4(regs) ((regs)->r8)
#define SYSCALL_ARG5(regs) ((regs)->r9)
#define SYSCALL_ARG(regs, n) SYSCALL_ARG##n(regs)

/* A 32-bit task's syscall, whose numbers are another table's. Not told
 * apart on x86 (thread_info.status's TS_COMPAT would say): an ia32 task's
 * numbers go through the x86_64 map. */
#define SYSCALL_COMPAT(regs) 0

/* The task's user registers were saved by an exception (a page fault),
 * not a syscall: the entry code sets orig_ax to -1 then, to the syscall
 * number in a syscall. */
#define REGS_IN_EXCEPTION(regs) (BPF_CORE_READ(regs, orig_ax) == (__u64)-1)

/* struct stat of x86_64's user ABI (arch/x86/include/uapi/asm/stat.h), up
 * to st_size. */
struct user_stat {
	__u64 st_dev, st_ino, st_nlink;
	__u32 st_mode, st_uid, st_gid, pad;
	__u64 st_rdev;
	__s64 st_size;
};

#elif defined(__TARGET_ARCH_arm64)

/* x0-x5 (arch/arm64/kernel/syscall.c). At entry x0 still holds the first
 * argument; orig_x0 keeps it once x0 is the return value. */
#define SYSCALL_ARG(regs, n) ((regs)->regs[n])

/* An AArch32 task (PSR_MODE32_BIT in the saved pstate): its syscall
 * numbers are arm's, not the map's. */
#define SYSCALL_COMPAT(regs) ((regs)->pstate & 0x10)

/* The entry code from EL0 sets syscallno to NO_SYSCALL (-1); el0_svc
 * then stores the syscall number (arch/arm64/kernel/entry.S, syscall.c). */
#define REGS_IN_EXCEPTION(regs) (BPF_CORE_READ(regs, syscallno) == -1)

/* struct stat of the generic user ABI, arm64's
 * (include/uapi/asm-generic/stat.h), up to st_size. */
struct user_stat {
	__u64 st_dev, st_ino;
	__u32 st_mode, st_nlink, st_uid, st_gid;
	__u64 st_rdev, pad1;
	__s64 st_size;
};

#else
#error "bpf/arch.bpf.h: compile with -D__TARGET_ARCH_x86 or -D__TARGET_ARCH_arm64"
#endif

#endif
