/* tests/bin/uring_ops.c: file operations submitted through io_uring, one
 * at a time, for test_capture_uring_ops.sh. Usage: uring_ops DIR. Every
 * request's result is checked; exit 0 when all are as expected, 1 not.
 *
 * In DIR, in this order (dfd: DIR opened with a syscall):
 *   openat(AT_FDCWD, DIR/a.dat, O_CREAT|O_RDWR|O_TRUNC, 0644) -> fd A
 *   write(A, 4096 bytes, off 0); read(A, 4096, off 0); fsync(A);
 *   pwrite64(A, 10 bytes, off 100) as a syscall; close(A)
 *   statx(dfd, "a.dat", 0, STATX_SIZE)          -> size 4096
 *   register 4 empty registered-file slots
 *   openat(dfd, "b.dat", O_CREAT|O_RDWR|O_TRUNC, 0600) into slot 2
 *   write(slot 2, 8192 bytes, off 4096); read(slot 2, 100, off 4196)
 *   fallocate(slot 2, mode 0, off 0, len 65536); close(slot 2)
 *   renameat(dfd, "a.dat", dfd, "c.dat"); unlinkat(dfd, "c.dat", 0)
 *   mkdirat(dfd, "d", 0755)
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct io_uring ring;
static int failed;

static struct io_uring_sqe *sqe_get(void)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

	if (!sqe) {
		fprintf(stderr, "uring_ops: no sqe\n");
		exit(1);
	}
	return sqe;
}

/* Submits the prepared sqe, waits for its CQE; its res. */
static int run(const char *what, int want)
{
	struct io_uring_cqe *cqe;
	int res, err;

	err = io_uring_submit_and_wait(&ring, 1);
	if (err != 1) {
		fprintf(stderr, "uring_ops: %s: submit: %s\n", what, strerror(-err));
		exit(1);
	}
	err = io_uring_wait_cqe(&ring, &cqe);
	if (err) {
		fprintf(stderr, "uring_ops: %s: wait: %s\n", what, strerror(-err));
		exit(1);
	}
	res = cqe->res;
	io_uring_cqe_seen(&ring, cqe);
	if (want >= -4095 && res != want) {
		fprintf(stderr, "uring_ops: %s: res %d, expected %d\n", what, res, want);
		failed = 1;
	}
	return res;
}

#define ANY_FD (-10000)

int main(int argc, char **argv)
{
	static char buf[8192];
	struct io_uring_sqe *sqe;
	struct statx stx;
	char path[4096];
	int dfd, fd, err;

	if (argc != 2) {
		fprintf(stderr, "usage: uring_ops DIR\n");
		return 2;
	}
	err = io_uring_queue_init(8, &ring, 0);
	if (err) {
		fprintf(stderr, "uring_ops: io_uring_queue_init: %s\n", strerror(-err));
		return 1;
	}
	memset(buf, 'x', sizeof(buf));
	dfd = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (dfd < 0) {
		perror("uring_ops: open DIR");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/a.dat", argv[1]);

	io_uring_prep_openat(sqe_get(), AT_FDCWD, path, O_CREAT | O_RDWR | O_TRUNC, 0644);
	fd = run("openat a.dat", ANY_FD);
	if (fd < 0) {
		fprintf(stderr, "uring_ops: openat a.dat: %s\n", strerror(-fd));
		return 1;
	}
	io_uring_prep_write(sqe_get(), fd, buf, 4096, 0);
	run("write a.dat", 4096);
	io_uring_prep_read(sqe_get(), fd, buf, 4096, 0);
	run("read a.dat", 4096);
	io_uring_prep_fsync(sqe_get(), fd, 0);
	run("fsync a.dat", 0);
	if (pwrite(fd, buf, 10, 100) != 10) {
		perror("uring_ops: pwrite a.dat");
		failed = 1;
	}
	io_uring_prep_close(sqe_get(), fd);
	run("close a.dat", 0);
	io_uring_prep_statx(sqe_get(), dfd, "a.dat", 0, STATX_SIZE, &stx);
	run("statx a.dat", 0);
	if (stx.stx_size != 4096) {
		fprintf(stderr, "uring_ops: statx a.dat: size %llu\n",
			(unsigned long long)stx.stx_size);
		failed = 1;
	}

	err = io_uring_register_files_sparse(&ring, 4);
	if (err) {
		fprintf(stderr, "uring_ops: register_files_sparse: %s\n", strerror(-err));
		return 1;
	}
	io_uring_prep_openat_direct(sqe_get(), dfd, "b.dat", O_CREAT | O_RDWR | O_TRUNC,
				    0600, 2);
	run("openat b.dat direct", 0);
	sqe = sqe_get();
	io_uring_prep_write(sqe, 2, buf, 8192, 4096);
	sqe->flags |= IOSQE_FIXED_FILE;
	run("write b.dat fixed", 8192);
	sqe = sqe_get();
	io_uring_prep_read(sqe, 2, buf, 100, 4196);
	sqe->flags |= IOSQE_FIXED_FILE;
	run("read b.dat fixed", 100);
	sqe = sqe_get();
	io_uring_prep_fallocate(sqe, 2, 0, 0, 65536);
	sqe->flags |= IOSQE_FIXED_FILE;
	run("fallocate b.dat fixed", 0);
	io_uring_prep_close_direct(sqe_get(), 2);
	run("close b.dat direct", 0);

	io_uring_prep_renameat(sqe_get(), dfd, "a.dat", dfd, "c.dat", 0);
	run("renameat a.dat c.dat", 0);
	io_uring_prep_unlinkat(sqe_get(), dfd, "c.dat", 0);
	run("unlinkat c.dat", 0);
	io_uring_prep_mkdirat(sqe_get(), dfd, "d", 0755);
	run("mkdirat d", 0);

	io_uring_queue_exit(&ring);
	close(dfd);
	return failed;
}
