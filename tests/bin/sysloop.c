/* sysloop: tight syscall loops for the capture benchmark; prints the mean
 * cost of one iteration.
 *
 * usage: sysloop MODE ITERATIONS [FILE [RATE]]
 *   MODE  pread      pread(fd, 1 byte, offset 0) on FILE
 *         openclose  open(FILE, O_RDONLY) + close: two syscalls
 *         stat       stat(FILE)
 *         aio        one Linux AIO request per iteration: io_submit of a
 *                    4 KiB pread of FILE at offset 0 (cached, so done
 *                    within the call), io_getevents reaping it
 *   FILE  default /etc/hostname
 *   RATE  iterations per second to pace at; default 0: as fast as possible
 * Output: "MODE ITERATIONS iterations SYSCALLS syscalls NS ns/syscall
 *          CPU cpu-ns/syscall RATE syscalls/s": wall time, and the CPU time
 *          of the process (what a tracer's programs add in its context,
 *          without the waits for a CPU on a busy host)
 */
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double clock_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double now_ns(void)
{
	return clock_of(CLOCK_MONOTONIC);
}

/* Paced loops check the clock every 64 iterations and spin until due. */
static void pace(long i, double t0, double rate)
{
	if (rate <= 0 || (i & 63))
		return;
	while (now_ns() - t0 < i * 1e9 / rate)
		;
}

static int aio_loop(int fd, long n, double t0, double rate)
{
	static char buf[4096];
	aio_context_t ctx = 0;
	struct iocb cb = { .aio_lio_opcode = IOCB_CMD_PREAD, .aio_nbytes = sizeof(buf) };
	struct iocb *cbp = &cb;
	struct io_event ev;

	if (syscall(SYS_io_setup, 1, &ctx)) {
		perror("io_setup");
		return 1;
	}
	cb.aio_fildes = fd;
	cb.aio_buf = (uint64_t)(uintptr_t)buf;
	for (long i = 0; i < n; i++) {
		pace(i, t0, rate);
		if (syscall(SYS_io_submit, ctx, 1, &cbp) != 1 ||
		    syscall(SYS_io_getevents, ctx, 1, 1, &ev, NULL) != 1)
			return 1;
	}
	return syscall(SYS_io_destroy, ctx) != 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: sysloop pread|openclose|stat|aio ITERATIONS [FILE [RATE]]\n"
		"  FILE default /etc/hostname; RATE iterations/s, default 0 (no pacing)\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *file = argc > 3 ? argv[3] : "/etc/hostname";
	long n = argc > 2 ? atol(argv[2]) : 0;
	double rate = argc > 4 ? atof(argv[4]) : 0;
	unsigned per = 1;
	struct stat st;
	char c;
	double t0, t1, c0, c1;
	int fd;

	if (argc < 3 || argc > 5 || n <= 0)
		return usage();
	fd = open(file, O_RDONLY);
	if (fd < 0) {
		perror(file);
		return 1;
	}
	c0 = clock_of(CLOCK_PROCESS_CPUTIME_ID);
	t0 = now_ns();
	if (strcmp(argv[1], "pread") == 0) {
		for (long i = 0; i < n; i++) {
			pace(i, t0, rate);
			if (pread(fd, &c, 1, 0) < 0)
				return 1;
		}
	} else if (strcmp(argv[1], "openclose") == 0) {
		per = 2;
		for (long i = 0; i < n; i++) {
			int f;

			pace(i, t0, rate);
			f = open(file, O_RDONLY);
			if (f < 0)
				return 1;
			close(f);
		}
	} else if (strcmp(argv[1], "stat") == 0) {
		for (long i = 0; i < n; i++) {
			pace(i, t0, rate);
			if (stat(file, &st))
				return 1;
		}
	} else if (strcmp(argv[1], "aio") == 0) {
		per = 2;
		if (aio_loop(fd, n, t0, rate))
			return 1;
	} else {
		return usage();
	}
	t1 = now_ns();
	c1 = clock_of(CLOCK_PROCESS_CPUTIME_ID);
	printf("%s %ld iterations %ld syscalls %.1f ns/syscall %.1f cpu-ns/syscall "
	       "%.0f syscalls/s\n", argv[1], n, n * per, (t1 - t0) / (n * per),
	       (c1 - c0) / (n * per), n * per * 1e9 / (t1 - t0));
	return 0;
}
