/* tests/bin/rotwork.c: a long, steady, deterministic workload for the
 * rotation tests: the same calls every round, with a pause between
 * rounds, on files kept open across the whole run (so a segment that
 * starts in the middle must restate them).
 *
 *   rotwork DIR ROUNDS PAUSE_US [distinct]
 *
 * Before the rounds, in DIR (which becomes the cwd): opens keep.dat
 * (O_RDWR|O_CREAT|O_TRUNC) and app.log (O_WRONLY|O_CREAT|O_TRUNC|O_APPEND).
 * Each round r (from 0), then, with 4 KiB buffers:
 *   write(keep.dat, 4096)            at the file position (r * 4096)
 *   pread64(keep.dat, 4096, 0)
 *   lseek(keep.dat, -4096, SEEK_CUR)
 *   read(keep.dat, 4096)             the block just written
 *   write(app.log, 100)              appended
 *   openat(AT_FDCWD, "round.dat", O_WRONLY|O_CREAT|O_TRUNC), write 512,
 *   close (with `distinct`: "r<r>.dat", a new path every round, then
 *   unlink of it, so the directory stays small)
 *   a pause of PAUSE_US microseconds (nanosleep: not a file call)
 * then closes both files. Every result is checked; a mismatch exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int check(long got, long want, const char *what, unsigned r)
{
	if (got == want)
		return 0;
	fprintf(stderr, "rotwork: round %u: %s returned %ld, not %ld (%s)\n", r, what, got,
		want, strerror(errno));
	exit(1);
}

int main(int argc, char **argv)
{
	static char buf[4096], in[4096];
	unsigned rounds, pause_us;
	int keep, log, f;

	bool distinct = argc == 5 && strcmp(argv[4], "distinct") == 0;
	char name[32] = "round.dat";

	if (argc != 4 && !distinct) {
		fprintf(stderr, "usage: rotwork DIR ROUNDS PAUSE_US [distinct]\n");
		return 2;
	}
	rounds = (unsigned)strtoul(argv[2], NULL, 10);
	pause_us = (unsigned)strtoul(argv[3], NULL, 10);
	memset(buf, 'r', sizeof(buf));
	if (chdir(argv[1]) < 0) {
		perror(argv[1]);
		return 1;
	}
	keep = open("keep.dat", O_RDWR | O_CREAT | O_TRUNC, 0644);
	log = open("app.log", O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
	check(keep >= 0 && log >= 0, 1, "open", 0);
	for (unsigned r = 0; r < rounds; r++) {
		struct timespec ts = { pause_us / 1000000, (long)(pause_us % 1000000) * 1000 };

		check(write(keep, buf, sizeof(buf)), sizeof(buf), "write", r);
		check(pread(keep, in, sizeof(in), 0), sizeof(in), "pread", r);
		check(lseek(keep, -4096, SEEK_CUR), (long)r * 4096, "lseek", r);
		check(read(keep, in, sizeof(in)), sizeof(in), "read", r);
		check(write(log, buf, 100), 100, "write log", r);
		if (distinct)
			snprintf(name, sizeof(name), "r%u.dat", r);
		f = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		check(f >= 0, 1, "open round.dat", r);
		check(write(f, buf, 512), 512, "write round.dat", r);
		check(close(f), 0, "close", r);
		if (distinct)
			check(unlink(name), 0, "unlink", r);
		if (pause_us)
			nanosleep(&ts, NULL);
	}
	check(close(keep) | close(log), 0, "close", rounds);
	return 0;
}
