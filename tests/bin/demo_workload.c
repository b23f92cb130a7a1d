/* demo_workload: a small, realistic, deterministic file workload for the
 * demo and the replay round-trip tests.
 *
 * usage: demo_workload --dir DIR [--threads N] [--files N]
 *
 * DIR must exist and may hold a previous run's tree (it is removed first).
 * N threads (default 4) each build DIR/tK: write --files files (default 16)
 * of 4-60 KiB in 4 KiB writes, fsync every fourth, read every file back,
 * rename the even ones, delete every third, and list the directory. The
 * main thread then writes DIR/manifest with O_APPEND and fdatasyncs it.
 * Sizes and names depend only on the arguments, so two runs produce the
 * same tree. Exits 1 with a message if any call fails.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *dir;
static unsigned nfiles = 16;
static char block[4096];

#define CHECK(expr) do { \
	if ((expr) < 0) { \
		fprintf(stderr, "demo_workload: %s: %s\n", #expr, strerror(errno)); \
		exit(1); \
	} \
} while (0)

static size_t file_size(unsigned t, unsigned i)
{
	return 4096u * (1 + (t * 7 + i * 5) % 15);
}

static void write_file(const char *path, size_t size, int sync)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);

	CHECK(fd);
	for (size_t off = 0; off < size; off += sizeof(block))
		CHECK(write(fd, block, sizeof(block)));
	if (sync)
		CHECK(fsync(fd));
	CHECK(close(fd));
}

static void read_file(const char *path)
{
	char buf[8192];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	struct stat st;

	CHECK(fd);
	CHECK(fstat(fd, &st));
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	CHECK(n);
	CHECK(close(fd));
}

static void list_dir(const char *path)
{
	DIR *d = opendir(path);

	if (!d) {
		fprintf(stderr, "demo_workload: opendir %s: %s\n", path, strerror(errno));
		exit(1);
	}
	while (readdir(d))
		;
	closedir(d);
}

static void *worker(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg;
	char sub[4096], p[4200], q[4200];

	snprintf(sub, sizeof(sub), "%s/t%u", dir, t);
	CHECK(mkdir(sub, 0755));
	for (unsigned i = 0; i < nfiles; i++) {
		snprintf(p, sizeof(p), "%s/f%02u.dat", sub, i);
		write_file(p, file_size(t, i), i % 4 == 0);
	}
	for (unsigned i = 0; i < nfiles; i++) {
		snprintf(p, sizeof(p), "%s/f%02u.dat", sub, i);
		read_file(p);
	}
	for (unsigned i = 0; i < nfiles; i += 2) {
		snprintf(p, sizeof(p), "%s/f%02u.dat", sub, i);
		snprintf(q, sizeof(q), "%s/r%02u.dat", sub, i);
		CHECK(rename(p, q));
	}
	for (unsigned i = 1; i < nfiles; i += 3) {
		snprintf(p, sizeof(p), "%s/f%02u.dat", sub, i);
		if (i % 2 == 0)
			snprintf(p, sizeof(p), "%s/r%02u.dat", sub, i);
		CHECK(unlink(p));
	}
	list_dir(sub);
	return NULL;
}

static void remove_tree(const char *path)
{
	char cmd[4200];

	/* the previous run's tree only: DIR/t* and DIR/manifest */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'/t[0-9]* '%s'/manifest", path, path);
	if (system(cmd) != 0)
		exit(1);
}

int main(int argc, char **argv)
{
	unsigned threads = 4;
	pthread_t th[64];
	char man[4200], line[64];
	int fd;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			threads = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--files") && i + 1 < argc)
			nfiles = (unsigned)atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: demo_workload --dir DIR [--threads N] [--files N]\n");
			return 2;
		}
	}
	if (!dir || !threads || threads > 64 || !nfiles || nfiles > 99) {
		fprintf(stderr, "usage: demo_workload --dir DIR [--threads 1..64] [--files 1..99]\n");
		return 2;
	}
	remove_tree(dir);
	memset(block, 'd', sizeof(block));
	for (unsigned t = 0; t < threads; t++)
		if (pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)t) != 0)
			return 1;
	for (unsigned t = 0; t < threads; t++)
		pthread_join(th[t], NULL);
	snprintf(man, sizeof(man), "%s/manifest", dir);
	fd = open(man, O_CREAT | O_WRONLY | O_APPEND | O_CLOEXEC, 0644);
	CHECK(fd);
	for (unsigned t = 0; t < threads; t++) {
		int n = snprintf(line, sizeof(line), "t%u %u files\n", t, nfiles);

		CHECK(write(fd, line, (size_t)n));
	}
	CHECK(fdatasync(fd));
	CHECK(close(fd));
	return 0;
}
