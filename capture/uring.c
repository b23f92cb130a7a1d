/* capture/uring.c: what capture's userspace does for io_uring requests
 * (bpf/uring.bpf.h records them). */
#include <bpf/libbpf.h>

#include "capture/capture_int.h"

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
