/* test_convert: capture's ring-buffer events into log records
 * (capture/convert.c). Arguments land where their roles in
 * bpf/syscalls.def say; paths, values and file facts follow; sizes and
 * times are read off the wire; malformed events are refused. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "capture/capture_int.h"
#include "tests/unit/unit.h"

/* A syscall event on the wire: header, the sent arguments, the ext when
 * flagged, then path, path2 and the value. Returns its size. */
static size_t wire(uint8_t *buf, const struct riot_ev_syscall *h, const uint64_t *sent,
		   const struct riot_ev_ext *x, const char *path, const char *path2,
		   const void *value)
{
	size_t off = RIOT_EV_SYSCALL_HDR;

	memcpy(buf, h, RIOT_EV_SYSCALL_HDR);
	memcpy(buf + off, sent, h->nargs * 8u);
	off += h->nargs * 8u;
	if (h->flags & RIOT_EVF_EXT) {
		memcpy(buf + off, x, sizeof(*x));
		off += sizeof(*x);
	}
	memcpy(buf + off, path, h->path_len);
	off += h->path_len;
	memcpy(buf + off, path2, h->path2_len);
	off += h->path2_len;
	if (h->flags & RIOT_EVF_VALUE) {
		memcpy(buf + off, value, h->value_len);
		off += h->value_len;
	}
	return off;
}

static void test_openat(void)
{
	uint8_t buf[512];
	struct riot_ev_syscall h = {
		.type = RIOT_EV_SYSCALL, .nargs = 3, .sys = RIOT_SYS_openat,
		.flags = RIOT_EVF_EXT | RIOT_EVF_FACTS | RIOT_EVF_CREATED,
		.path_len = 7, .pid = 100, .tid = 101, .t = 5000, .dur = 250, .ret = 3,
	};
	/* DFD, FLAGS, MODE travel; PATH goes as the string */
	uint64_t sent[3] = { (uint64_t)(int64_t)AT_FDCWD, O_CREAT | O_WRONLY, 0644 };
	struct riot_ev_ext x = { .size = 0, .ino = 77, .dev = 0x803, .ftype = S_IFREG,
				 .perm = 0640 };
	size_t n = wire(buf, &h, sent, &x, "/tmp/a", "", NULL);
	struct riot_rec r;

	CHECK_U64(n, RIOT_EV_SYSCALL_HDR + 24 + sizeof(x) + 7);
	CHECK_U64(event_size(buf, sizeof(buf)), n);
	CHECK_U64(event_size(buf, n - 1), 0);		/* cut: refused */
	CHECK_U64(event_time(buf, n), 5250);		/* its exit */
	CHECK_EQ(convert_event(buf, n, &r), 1);
	CHECK_EQ(r.type, RIOT_REC_SYSCALL);
	CHECK_EQ(r.sc.sys, RIOT_SYS_openat);
	CHECK_EQ(r.sc.pid, 100);
	CHECK_EQ(r.sc.tid, 101);
	CHECK_U64(r.sc.t, 5000);
	CHECK_U64(r.sc.dur, 250);
	CHECK_EQ(r.sc.ret, 3);
	CHECK_U64(r.sc.has, RIOT_HAS_DIRFD | RIOT_HAS_PATH | RIOT_HAS_FLAGS | RIOT_HAS_MODE |
			    RIOT_HAS_SIZE | RIOT_HAS_FTYPE | RIOT_HAS_INO | RIOT_HAS_DEV |
			    RIOT_HAS_PERM | RIOT_HAS_CREATED);
	CHECK_EQ(r.sc.dirfd, AT_FDCWD);
	CHECK_STR(r.sc.path.s, "/tmp/a");
	CHECK(!r.sc.path.truncated);
	CHECK_U64(r.sc.flags, O_CREAT | O_WRONLY);
	CHECK_EQ(r.sc.mode, 0644);
	CHECK_U64(r.sc.ino, 77);
	CHECK_U64(r.sc.dev, 0x803);
	CHECK_EQ(r.sc.ftype, S_IFREG);
	CHECK_EQ(r.sc.perm, 0640);
	CHECK_EQ(r.sc.created, 1);

	/* a path cut by capture keeps its flag; one without its NUL is absent */
	h.flags = RIOT_EVF_PATH_TRUNC;
	n = wire(buf, &h, sent, NULL, "/tmp/a", "", NULL);
	CHECK_EQ(convert_event(buf, n, &r), 1);
	CHECK_STR(r.sc.path.s, "/tmp/a");
	CHECK(r.sc.path.truncated);
	CHECK(!(r.sc.has & RIOT_HAS_INO));
	h.flags = 0;
	h.path_len = 6;
	n = wire(buf, &h, sent, NULL, "/tmp/a", "", NULL);
	CHECK_EQ(convert_event(buf, n, &r), 1);
	CHECK(r.sc.path.s == NULL);
	CHECK(!(r.sc.has & RIOT_HAS_PATH));

	/* arguments that do not match the row's roles: malformed */
	h.nargs = 2;
	n = wire(buf, &h, sent, NULL, "/tmp/a", "", NULL);
	CHECK_EQ(convert_event(buf, n, &r), -EINVAL);
	CHECK_U64(event_size(buf, n), n);	/* framed: its bytes are known */
	h.nargs = 4;	/* one more than the row sends */
	n = wire(buf, &h, (uint64_t[4]){ 0 }, NULL, "/tmp/a", "", NULL);
	CHECK_EQ(convert_event(buf, n, &r), -EINVAL);
	h.nargs = 7;
	memcpy(buf, &h, RIOT_EV_SYSCALL_HDR);
	CHECK_EQ(convert_event(buf, sizeof(buf), &r), -EINVAL);
	h.nargs = 3;
	h.sys = RIOT_SYS_COUNT;	/* no such row */
	n = wire(buf, &h, sent, NULL, "/tmp/a", "", NULL);
	CHECK_EQ(convert_event(buf, n, &r), -EINVAL);
	CHECK_EQ(convert_event(buf, 0, &r), -EINVAL);
}

static void test_pread(void)
{
	uint8_t buf[256];
	struct riot_ev_syscall h = {
		.type = RIOT_EV_SYSCALL, .nargs = 3, .sys = RIOT_SYS_pread64,
		.pid = 7, .tid = 7, .t = 100, .dur = 10, .ret = 4096,
	};
	uint64_t sent[3] = { 5, 4096, 1 << 20 };	/* FD, CNT, OFF */
	size_t n = wire(buf, &h, sent, NULL, "", "", NULL);
	struct riot_rec r;

	CHECK_EQ(convert_event(buf, n, &r), 1);
	CHECK_U64(r.sc.has, RIOT_HAS_FD | RIOT_HAS_COUNT | RIOT_HAS_OFF);
	CHECK_EQ(r.sc.fd, 5);
	CHECK_U64(r.sc.count, 4096);
	CHECK_U64(r.sc.off, 1 << 20);
	CHECK_EQ(r.sc.ret, 4096);
}

/* ioctl(FICLONE) names its source in its argument; FICLONERANGE in the
 * struct sent as the value, which does not stay a value */
static void test_clone(void)
{
	uint8_t buf[256];
	struct riot_ev_syscall h = {
		.type = RIOT_EV_SYSCALL, .nargs = 3, .sys = RIOT_SYS_ioctl, .pid = 1, .tid = 1,
	};
	uint64_t sent[3] = { 4, FICLONE, 9 };	/* FD, CMD, ARG */
	struct file_clone_range cr = { .src_fd = 6, .src_offset = 4096, .src_length = 8192,
				       .dest_offset = 12288 };
	size_t n = wire(buf, &h, sent, NULL, "", "", NULL);
	struct riot_rec r;

	CHECK_EQ(convert_event(buf, n, &r), 1);
	CHECK(r.sc.has & RIOT_HAS_FD2);
	CHECK_EQ(r.sc.fd2, 9);
	sent[1] = FICLONERANGE;
	h.flags = RIOT_EVF_VALUE;
	h.value_len = sizeof(cr);
	n = wire(buf, &h, sent, NULL, "", "", &cr);
	CHECK_EQ(convert_event(buf, n, &r), 1);
	CHECK_EQ(r.sc.fd, 4);
	CHECK_EQ(r.sc.fd2, 6);
	CHECK_U64(r.sc.off, 4096);
	CHECK_U64(r.sc.count, 8192);
	CHECK_U64(r.sc.off2, 12288);
	CHECK(!(r.sc.has & RIOT_HAS_VALUE));
	CHECK(r.sc.value == NULL);
}

/* The roles capture reads behind a pointer (the ext), and the values each
 * row sends, in their fields with their bits and nothing else. */
static void test_roles(void)
{
	uint8_t buf[512];
	struct riot_ev_syscall h = { .type = RIOT_EV_SYSCALL, .pid = 3, .tid = 3 };
	struct riot_ev_ext x = { .off = 111, .off2 = 222, .how = { O_RDWR | O_CREAT, 0600, 8 } };
	struct riot_rec r;
	size_t n;

	/* copy_file_range(FD, OFFP, FD2, OFF2P, CNT, FLAGS) */
	h.sys = RIOT_SYS_copy_file_range;
	h.nargs = 4;
	h.flags = RIOT_EVF_EXT | RIOT_EVF_OFF | RIOT_EVF_OFF2;
	n = wire(buf, &h, (uint64_t[4]){ 5, 6, 4096, 0 }, &x, "", "", NULL);
	CHECK_EQ(convert_event(buf, n, &r), 1);
	CHECK_U64(r.sc.has, RIOT_HAS_FD | RIOT_HAS_OFF | RIOT_HAS_FD2 | RIOT_HAS_OFF2 |
			    RIOT_HAS_COUNT | RIOT_HAS_FLAGS);
	CHECK_EQ(r.sc.fd, 5);
	CHECK_EQ(r.sc.fd2, 6);
	CHECK_U64(r.sc.off, 111);
	CHECK_U64(r.sc.off2, 222);
	CHECK_U64(r.sc.count, 4096);
	h.flags = 0;	/* NULL offset pointers: no offsets */
	n = wire(buf, &h, (uint64_t[4]){ 5, 6, 4096, 0 }, NULL, "", "", NULL);
	CHECK_EQ(convert_event(buf, n, &r), 1);
	CHECK_U64(r.sc.has, RIOT_HAS_FD | RIOT_HAS_FD2 | RIOT_HAS_COUNT | RIOT_HAS_FLAGS);

	/* openat2(DFD, PATH, HOW) */
	h.sys = RIOT_SYS_openat2;
	h.nargs = 1;
	h.flags = RIOT_EVF_EXT | RIOT_EVF_HOW;
	h.path_len = 2;
	n = wire(buf, &h, (uint64_t[1]){ 9 }, &x, "a", "", NULL);
	CHECK_EQ(convert_event(buf, n, &r), 1);
	CHECK_U64(r.sc.has, RIOT_HAS_DIRFD | RIOT_HAS_PATH | RIOT_HAS_FLAGS | RIOT_HAS_MODE |
			    RIOT_HAS_ARG);
	CHECK_EQ(r.sc.dirfd, 9);
	CHECK_U64(r.sc.flags, O_RDWR | O_CREAT);
	CHECK_EQ(r.sc.mode, 0600);
	CHECK_U64(r.sc.arg, 8);
	h.path_len = 0;

	/* pipe2(FDPAIR, FLAGS) */
	h.sys = RIOT_SYS_pipe2;
	h.flags = RIOT_EVF_EXT | RIOT_EVF_FDPAIR;
	n = wire(buf, &h, (uint64_t[1]){ O_CLOEXEC }, &x, "", "", NULL);
	CHECK_EQ(convert_event(buf, n, &r), 1);
	CHECK_U64(r.sc.has, RIOT_HAS_FD | RIOT_HAS_FD2 | RIOT_HAS_FLAGS);
	CHECK_EQ(r.sc.fd, 111);
	CHECK_EQ(r.sc.fd2, 222);
	CHECK_U64(r.sc.flags, O_CLOEXEC);

	/* clone3(CLONEARGS, CNT) */
	h.sys = RIOT_SYS_clone3;
	h.flags = RIOT_EVF_EXT | RIOT_EVF_CLONEARGS;
	n = wire(buf, &h, (uint64_t[1]){ 88 }, &x, "", "", NULL);
	CHECK_EQ(convert_event(buf, n, &r), 1);
	CHECK_U64(r.sc.has, RIOT_HAS_FLAGS | RIOT_HAS_COUNT);
	CHECK_U64(r.sc.flags, O_RDWR | O_CREAT);
	CHECK_U64(r.sc.count, 88);

	/* chown(PATH, UID, GID); io_submit(ADDR, CNT) */
	h.sys = RIOT_SYS_chown;
	h.nargs = 2;
	h.flags = 0;
	n = wire(buf, &h, (uint64_t[2]){ 1000, 100 }, NULL, "", "", NULL);
	CHECK_EQ(convert_event(buf, n, &r), 1);
	CHECK_U64(r.sc.has, RIOT_HAS_UID | RIOT_HAS_GID);
	CHECK_EQ(r.sc.uid, 1000);
	CHECK_EQ(r.sc.gid, 100);
	h.sys = RIOT_SYS_io_submit;
	n = wire(buf, &h, (uint64_t[2]){ 0x7f0000, 3 }, NULL, "", "", NULL);
	CHECK_EQ(convert_event(buf, n, &r), 1);
	CHECK_U64(r.sc.has, RIOT_HAS_ARG | RIOT_HAS_COUNT);
	CHECK_U64(r.sc.arg, 0x7f0000);
}

static void test_proc(void)
{
	uint8_t buf[256];
	struct riot_ev_proc p = {
		.type = RIOT_EV_FORK, .flags = RIOT_EVP_NEW_PROCESS, .pid = 10, .tid = 11,
		.t = 900, .child_pid = 20, .child_tid = 20, .clone_flags = 0x1234,
	};
	struct riot_rec r;

	/* a fork outside a clone syscall: its flags say what it made */
	memcpy(buf, &p, sizeof(p));
	CHECK_U64(event_size(buf, sizeof(p)), sizeof(p));
	CHECK_U64(event_time(buf, sizeof(p)), 900);
	CHECK_EQ(convert_event(buf, sizeof(p), &r), 1);
	CHECK_EQ(r.type, RIOT_REC_PROC);
	CHECK_EQ(r.proc.kind, RIOT_PROC_FORK);
	CHECK_EQ(r.proc.child_pid, 20);
	CHECK_U64(r.proc.clone_flags, 17);	/* SIGCHLD: a new process */
	p.flags = 0;
	memcpy(buf, &p, sizeof(p));
	CHECK_EQ(convert_event(buf, sizeof(p), &r), 1);
	CHECK_U64(r.proc.clone_flags, 0x00010f00);	/* a thread */
	p.flags = RIOT_EVP_FLAGS_KNOWN;
	memcpy(buf, &p, sizeof(p));
	CHECK_EQ(convert_event(buf, sizeof(p), &r), 1);
	CHECK_U64(r.proc.clone_flags, 0x1234);

	/* exec: the file and the comm */
	p = (struct riot_ev_proc){ .type = RIOT_EV_EXEC, .pid = 20, .tid = 20, .t = 950,
				   .path_len = 9 };
	memcpy(p.comm, "true", 5);
	memcpy(buf, &p, sizeof(p));
	memcpy(buf + sizeof(p), "/bin/true", 9);	/* no NUL: absent */
	CHECK_U64(event_size(buf, sizeof(p) + 9), sizeof(p) + 9);
	CHECK_U64(event_size(buf, sizeof(p) + 8), 0);
	CHECK_EQ(convert_event(buf, sizeof(p) + 9, &r), 1);
	CHECK_EQ(r.proc.kind, RIOT_PROC_EXEC);
	CHECK_STR(r.proc.comm.s, "true");
	CHECK(r.proc.path.s == NULL);
	p.path_len = 10;
	memcpy(buf, &p, sizeof(p));
	memcpy(buf + sizeof(p), "/bin/true", 10);
	CHECK_EQ(convert_event(buf, sizeof(p) + 10, &r), 1);
	CHECK_STR(r.proc.path.s, "/bin/true");
	memset(p.comm, 'x', RIOT_COMM_LEN);	/* no NUL in the comm: absent */
	memcpy(buf, &p, sizeof(p));
	CHECK_EQ(convert_event(buf, sizeof(p) + 10, &r), 1);
	CHECK(r.proc.comm.s == NULL);

	p = (struct riot_ev_proc){ .type = RIOT_EV_EXIT, .pid = 20, .tid = 20, .exit_code = 256 };
	memcpy(buf, &p, sizeof(p));
	CHECK_EQ(convert_event(buf, sizeof(p), &r), 1);
	CHECK_EQ(r.proc.kind, RIOT_PROC_EXIT);
	CHECK_EQ(r.proc.exit_code, 256);
	p.type = 99;
	memcpy(buf, &p, sizeof(p));
	CHECK_EQ(convert_event(buf, sizeof(p), &r), -EINVAL);
	CHECK_EQ(convert_event(buf, sizeof(p) - 1, &r), -EINVAL);
}

/* An fd in use that capture did not see made: a SNAP_FD at that time. */
static void test_fd(void)
{
	uint8_t buf[256];
	struct riot_ev_fd f = {
		.type = RIOT_EV_FD, .path_len = 8, .pid = 3, .tid = 4, .fd = 9,
		.f_flags = O_RDWR | O_CLOEXEC, .ftype = S_IFREG, .perm = 0600, .t = 77,
		.pos = 123, .size = 4096, .ino = 55, .dev = 0x801,
	};
	struct riot_rec r;

	memcpy(buf, &f, sizeof(f));
	memcpy(buf + sizeof(f), "/data/x", 8);
	CHECK_U64(event_size(buf, sizeof(buf)), sizeof(f) + 8);
	CHECK_U64(event_time(buf, sizeof(f) + 8), 77);
	CHECK_EQ(convert_event(buf, sizeof(f) + 8, &r), 1);
	CHECK_EQ(r.type, RIOT_REC_SNAP_FD);
	CHECK_EQ(r.sfd.pid, 3);
	CHECK_EQ(r.sfd.fd, 9);
	CHECK_STR(r.sfd.path.s, "/data/x");
	CHECK_U64(r.sfd.flags, O_RDWR | O_CLOEXEC);
	CHECK_U64(r.sfd.pos, 123);
	CHECK_U64(r.sfd.size, 4096);
	CHECK_U64(r.sfd.ino, 55);
	CHECK_EQ(r.sfd.perm, 0600);
	CHECK(r.sfd.has_perm);
	f.flags = RIOT_EVD_NOFILE;	/* a pipe: no path */
	memcpy(buf, &f, sizeof(f));
	CHECK_EQ(convert_event(buf, sizeof(f) + 8, &r), 1);
	CHECK(r.sfd.path.s == NULL);
	CHECK_EQ(convert_event(buf, sizeof(f) + 7, &r), -EINVAL);
}

int main(void)
{
	test_openat();
	test_pread();
	test_clone();
	test_roles();
	test_proc();
	test_fd();
	return unit_done();
}
