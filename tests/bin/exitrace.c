/* tests/bin/exitrace.c: processes that write and exit at once, while
 * spinners keep the CPUs busy, for the capture's exit-ordering test.
 *
 *   exitrace DIR MS SPINNERS
 *
 * Starts SPINNERS processes that spin without a syscall (SCHED_FIFO where
 * allowed: a CPU held so that other tasks, riot's visit to flush that
 * CPU's batch included, wait for the kernel's real-time throttling), then
 * CHILDREN processes one after another, each of which opens DIR/eN.dat, writes
 * 4096 bytes at offset 0 with pwrite64 and exits at once without closing
 * it; then stops the spinners and prints how many children ran. A
 * capture must log each child's calls before its exit record. Exits 0,
 * or 1 when a call failed. The time only sets how long the case lasts
 * (long enough for riot to visit the held CPUs); nothing depends on it. */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char buf[4096];

static void child(const char *dir, int i)
{
	char path[4096];
	long fd;

	snprintf(path, sizeof(path), "%s/e%d.dat", dir, i);
	fd = syscall(SYS_openat, AT_FDCWD, path, O_CREAT | O_WRONLY, 0644);
	if (fd < 0)
		syscall(SYS_exit_group, 1);
	if (syscall(SYS_pwrite64, fd, buf, sizeof(buf), 0) != sizeof(buf))
		syscall(SYS_exit_group, 1);
	syscall(SYS_exit_group, 0);
}

int main(int argc, char **argv)
{
	pid_t spin[64];
	int n, nspin, bad = 0, st;

	struct timespec t0, t;
	long ms;

	if (argc != 4 || (ms = atol(argv[2])) <= 0 ||
	    (nspin = atoi(argv[3])) < 0 || nspin > 64) {
		fprintf(stderr, "usage: exitrace DIR MS SPINNERS (<= 64)\n");
		return 2;
	}
	memset(buf, 'e', sizeof(buf));
	for (int s = 0; s < nspin; s++) {
		spin[s] = fork();
		if (spin[s] == 0) {
			struct sched_param sp = { .sched_priority = 1 };

			sched_setscheduler(0, SCHED_FIFO, &sp);
			for (volatile unsigned long x = 0;; x++)
				;
		}
		if (spin[s] < 0)
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (n = 0;; n++) {
		pid_t p;

		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000 >= ms)
			break;
		p = fork();
		if (p == 0)
			child(argv[1], n);
		if (p < 0 || waitpid(p, &st, 0) != p || st != 0)
			bad = 1;
	}
	for (int s = 0; s < nspin; s++) {
		kill(spin[s], SIGKILL);
		waitpid(spin[s], &st, 0);
	}
	printf("%d\n", n);
	return bad;
}
