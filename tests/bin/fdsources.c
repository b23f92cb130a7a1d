/* tests/bin/fdsources.c: fds that come from nowhere a capture sees, for
 * the capture's first-use test.
 *
 *   fdsources DIR
 *
 * 1. SCM_RIGHTS: the parent opens DIR/passed.dat after forking a child,
 *    sends the fd over a unix socketpair and closes its own, then tells
 *    the child to go on (a byte on the socket, so the close comes first);
 *    the child (which opened /dev/null first, so its fd number differs
 *    from the parent's) pwrites 4096 bytes at 0 and 1000 at 8192, then
 *    preads 4096 at 0.
 * 2. pidfd_getfd: a second child opens DIR/getfd.dat (O_WRONLY|O_CREAT)
 *    and waits; the parent takes that fd with pidfd_getfd, writes 3000
 *    bytes through it with write(2) and fsyncs it.
 * 3. io_uring: the parent opens DIR/uring.dat with IORING_OP_OPENAT
 *    (O_RDWR|O_CREAT), then writes 5000 bytes with write(2), lseeks to 0,
 *    reads them back with read(2), fsyncs and closes it.
 *
 * Leaves passed.dat of 9192 bytes, getfd.dat of 3000, uring.dat of 5000.
 * Exits 0, or 1 with a message when a call failed. */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char buf[8192];
static const char *dir;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void path_of(char *out, size_t len, const char *name)
{
	if ((size_t)snprintf(out, len, "%s/%s", dir, name) >= len) {
		fprintf(stderr, "path too long\n");
		exit(1);
	}
}

static int recv_fd(int sock)
{
	char data, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &data, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		die("recvmsg");
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		die("no SCM_RIGHTS");
	memcpy(&fd, CMSG_DATA(c), sizeof(fd));
	return fd;
}

static void send_fd(int sock, int fd)
{
	char data = 'f', cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &data, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(fd));
	if (sendmsg(sock, &msg, 0) != 1)
		die("sendmsg");
}

static void reap(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		die("child failed");
}

static void scm_rights(void)
{
	char path[4096], go;
	int sv[2], fd, nul;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		die("socketpair");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(sv[0]);
		nul = open("/dev/null", O_RDONLY);
		if (nul < 0)
			die("open /dev/null");
		fd = recv_fd(sv[1]);
		if (read(sv[1], &go, 1) != 1)
			die("read go");
		if (pwrite(fd, buf, 4096, 0) != 4096 ||
		    pwrite(fd, buf, 1000, 8192) != 1000 ||
		    pread(fd, buf, 4096, 0) != 4096)
			die("child pwrite/pread");
		_exit(0);
	}
	close(sv[1]);
	path_of(path, sizeof(path), "passed.dat");
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open passed.dat");
	send_fd(sv[0], fd);
	close(fd);
	if (write(sv[0], "g", 1) != 1)
		die("write go");
	close(sv[0]);
	reap(pid);
}

static void getfd(void)
{
	char path[4096], c;
	int ready[2], go[2], pidfd, fd;
	pid_t pid;

	if (pipe(ready) || pipe(go))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		path_of(path, sizeof(path), "getfd.dat");
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			die("open getfd.dat");
		if (write(ready[1], &fd, sizeof(fd)) != sizeof(fd) ||
		    read(go[0], &c, 1) != 1)
			die("child pipes");
		_exit(0);
	}
	if (read(ready[0], &fd, sizeof(fd)) != sizeof(fd))
		die("read ready");
	pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		die("pidfd_open");
	fd = syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (fd < 0)
		die("pidfd_getfd");
	if (write(fd, buf, 3000) != 3000 || fsync(fd))
		die("write through pidfd_getfd");
	close(fd);
	close(pidfd);
	if (write(go[1], "g", 1) != 1)
		die("write go");
	reap(pid);
}

static void uring(void)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	char path[4096];
	int fd, rc;

	path_of(path, sizeof(path), "uring.dat");
	if ((rc = io_uring_queue_init(4, &ring, 0)) < 0) {
		errno = -rc;
		die("io_uring_queue_init");
	}
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_openat(sqe, AT_FDCWD, path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (io_uring_submit_and_wait(&ring, 1) != 1 ||
	    io_uring_wait_cqe(&ring, &cqe))
		die("io_uring openat");
	fd = cqe->res;
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);
	if (fd < 0) {
		errno = -fd;
		die("IORING_OP_OPENAT");
	}
	if (write(fd, buf, 5000) != 5000 || lseek(fd, 0, SEEK_SET) != 0 ||
	    read(fd, buf, 5000) != 5000 || fsync(fd) || close(fd))
		die("plain I/O on the io_uring fd");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: fdsources DIR\n");
		return 2;
	}
	dir = argv[1];
	memset(buf, 'r', sizeof(buf));
	scm_rights();
	getfd();
	uring();
	return 0;
}
