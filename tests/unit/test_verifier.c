/* tests/unit/test_verifier.c: verifier_verdict() finds, in the logs of
 * programs the kernels of the matrix refused (the real messages of Debian
 * 12's 6.1 and 6.12 before riot's bounds and loops were fixed), the program
 * and the line that says why, past the trace of instructions, source
 * lines and totals. */
#include <string.h>

#include "capture/capture_int.h"
#include "tests/unit/unit.h"

static void verdict(const char *msg, const char *prog, const char *why)
{
	char p[64], w[256];

	verifier_verdict(msg, p, sizeof(p), w, sizeof(w));
	CHECK_STR(p, prog);
	CHECK_STR(w, why);
}

int main(void)
{
	/* 6.1: the index of a per-syscall table lost its bound */
	verdict("prog 'sys_enter': BPF program load failed: Permission denied\n"
		"prog 'sys_enter': -- BEGIN PROG LOAD LOG --\n"
		"; const struct sys_desc *d = &descs[sys];\n"
		"184: (bf) r7 = r4                     ; R4_w=scalar(id=265,smin=-1,smax=254,umin=171)\n"
		"187: (27) r7 *= 23                    ; R7=scalar(umax=98784247785,var_off=(0x0; 0x1fffffffff))\n"
		"; if (d->offp >= 0) {\n"
		"283: (0f) r9 += r7                    ; R7=scalar(umax=98784247785)\n"
		"284: (71) r1 = *(u8 *)(r9 +3)\n"
		"R9 unbounded memory access, make sure to bounds check any such access\n"
		"processed 6663 insns (limit 1000000) max_states_per_insn 7 total_states 437 "
		"peak_states 397 mark_read 19\n"
		"-- END PROG LOAD LOG --\n",
		"sys_enter", "R9 unbounded memory access, make sure to bounds check any such access");
	/* 6.1: a loop closed by a fall-through, with the source lines of both
	 * instructions */
	verdict("prog 'sys_exit': -- BEGIN PROG LOAD LOG --\n"
		"3377: c = p[i];\n"
		"3378: if (c == 0)\n"
		"back-edge from insn 3377 to 3378\n"
		"processed 0 insns (limit 1000000) max_states_per_insn 0 total_states 0 "
		"peak_states 0 mark_read 0\n"
		"-- END PROG LOAD LOG --\n",
		"sys_exit", "back-edge from insn 3377 to 3378");
	/* 6.12: the index bounded short of the table's end */
	verdict("prog 'sys_enter': -- BEGIN PROG LOAD LOG --\n"
		"from 188 to 281: R9=map_value(off=320,ks=4,vs=6088)\n"
		"284: (71) r1 = *(u8 *)(r9 +3)\n"
		"invalid access to map value, value_size=6088 off=6165 size=1\n"
		"R9 max value is outside of the allowed memory range\n"
		"verification time 1234 usec\n"
		"stack depth 168\n"
		"-- END PROG LOAD LOG --\n",
		"sys_enter", "R9 max value is outside of the allowed memory range");
	/* not a load log: nothing */
	verdict("libbpf: failed to find BTF for extern 'bpf_rdonly_cast'\n", "", "");
	return unit_done();
}
