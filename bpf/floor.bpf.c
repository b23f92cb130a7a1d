// SPDX-License-Identifier: GPL-2.0
/* bpf/floor.bpf.c: the least any tracer on riot.bpf.c's tracepoints pays.
 *
 * floor_enter/floor_exit are empty: the cost of the hooks themselves.
 * clock_enter/clock_exit do only what every recorder of an entry time and
 * a duration must: read the clock at entry, keep it in the task's storage,
 * read it again at exit and use the difference. The capture benchmark
 * reports riot's cost against both. bpf_floor loads one pair.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/sys_enter")
int BPF_PROG(floor_enter, struct pt_regs *regs, long id)
{
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(floor_exit, struct pt_regs *regs, long ret)
{
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} entry_t SEC(".maps");

/* Sum of the durations: keeps the exit program's work from being dead. */
__u64 total_ns;

SEC("tp_btf/sys_enter")
int BPF_PROG(clock_enter, struct pt_regs *regs, long id)
{
	__u64 *t = bpf_task_storage_get(&entry_t, bpf_get_current_task_btf(),
					0, BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (t)
		*t = bpf_ktime_get_boot_ns();
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(clock_exit, struct pt_regs *regs, long ret)
{
	__u64 *t = bpf_task_storage_get(&entry_t, bpf_get_current_task_btf(),
					0, 0);

	if (t && *t)
		total_ns += bpf_ktime_get_boot_ns() - *t;
	return 0;
}
