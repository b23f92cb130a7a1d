// SPDX-License-Identifier: GPL-2.0
/* bpf/floor.bpf.c: empty programs on the tracepoints riot.bpf.c uses. What
 * they cost is the floor any tracer on these hooks pays; the capture
 * benchmark reports riot's cost against it. */
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
