/* capture/uring.c: what capture's userspace does for io_uring requests
 * (bpf/uring.bpf.h records them). */
#include <bpf/libbpf.h>

#include "capture/capture_int.h"

/* Older kernels name the submission tracepoint io_uring_submit_sqe, with
 * other arguments; they, and kernels built without io_uring, record no
 * requests rather than refusing to capture. */
void uring_autoload(struct bpf_program *create, struct bpf_program *submit,
		    struct bpf_program *complete)
{
	bool ok = libbpf_find_vmlinux_btf_id("io_uring_submit_req", BPF_TRACE_RAW_TP) > 0 &&
		  libbpf_find_vmlinux_btf_id("io_uring_complete", BPF_TRACE_RAW_TP) > 0 &&
		  libbpf_find_vmlinux_btf_id("io_uring_create", BPF_TRACE_RAW_TP) > 0;

	bpf_program__set_autoload(create, ok);
	bpf_program__set_autoload(submit, ok);
	bpf_program__set_autoload(complete, ok);
}

/* An openat through the ring names a slot only when it makes a direct
 * descriptor; BPF sends -1 for none. */
void uring_convert(struct riot_syscall *sc)
{
	if ((sc->sys == RIOT_SYS_uring_openat || sc->sys == RIOT_SYS_uring_openat2) &&
	    (sc->has & RIOT_HAS_FD) && sc->fd < 0) {
		sc->fd = 0;
		sc->has &= ~RIOT_HAS_FD;
	}
}
