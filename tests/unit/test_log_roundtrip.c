/* Every record type, every syscall field, extreme values and every path
 * byte go through the writer and come back from the reader unchanged,
 * across many small blocks and in one big block, with exact totals. */
#include "tests/unit/unit.h"
#include "formats/log.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAXREC 4096

static struct riot_rec recs[MAXREC];
static unsigned nrec;
static char all_bytes[256];	/* "\x01\x02...\xff" */
static char long_path[70000];

static struct riot_rec *next_rec(uint8_t type)
{
	struct riot_rec *r = &recs[nrec++];

	memset(r, 0, sizeof(*r));
	r->type = type;
	return r;
}

static struct riot_syscall *sc(unsigned sys, uint32_t pid, uint32_t tid, uint64_t t)
{
	struct riot_syscall *s = &next_rec(RIOT_REC_SYSCALL)->sc;

	s->sys = (uint16_t)sys;
	s->pid = pid;
	s->tid = tid;
	s->t = t;
	s->dur = 1234;
	return s;
}

static void build_records(void)
{
	struct riot_syscall *s;
	struct riot_rec *r;

	for (int i = 1; i < 256; i++)
		all_bytes[i - 1] = (char)i;
	memset(long_path, 'p', sizeof(long_path) - 1);

	/* every optional field */
	s = sc(RIOT_SYS_renameat2, 100, 101, 1000000);
	s->has = (1u << 23) - 1;
	s->ret = -2;
	s->fd = 3; s->fd2 = -1; s->dirfd = -100; s->dirfd2 = 7;
	s->path.s = "/a/b"; s->path2.s = "/a/c"; s->path2.truncated = true;
	s->off = 4096; s->off2 = 99; s->count = 8192; s->flags = 0x80000;
	s->mode = 0644; s->cmd = 5; s->arg = 0xdeadbeef; s->iovcnt = 3;
	s->uid = 1000; s->gid = 1001; s->size = 1 << 30; s->ftype = 0100000;
	s->ino = 123456789; s->dev = 0x10302; s->created = 1; s->perm = 04755;
	s->value = (const uint8_t *)"\x02\0\0\0\x01\0\x06\0"; s->value_len = 8;
	/* no optional field, zero duration, time going backwards */
	s = sc(RIOT_SYS_sync, 100, 100, 999000);
	s->dur = 0;
	/* extremes */
	s = sc(RIOT_SYS_pread64, UINT32_MAX, 0, UINT64_MAX);
	s->dur = UINT64_MAX;
	s->ret = INT64_MIN;
	s->has = (1u << 23) - 1;
	s->fd = INT32_MIN; s->fd2 = INT32_MAX; s->dirfd = INT32_MIN; s->dirfd2 = INT32_MAX;
	s->path.s = all_bytes; s->path2.s = "";
	s->off = UINT64_MAX; s->off2 = UINT64_MAX; s->count = UINT64_MAX;
	s->flags = UINT64_MAX; s->mode = UINT32_MAX; s->cmd = UINT32_MAX;
	s->arg = UINT64_MAX; s->iovcnt = UINT32_MAX; s->uid = UINT32_MAX;
	s->gid = UINT32_MAX; s->size = UINT64_MAX; s->ftype = UINT32_MAX;
	s->ino = UINT64_MAX; s->dev = UINT64_MAX; s->created = UINT8_MAX; s->perm = 07777;
	s->value = NULL; s->value_len = 0;
	s = sc(RIOT_SYS_pwrite64, 0, UINT32_MAX, 0);
	s->has = RIOT_HAS_FD | RIOT_HAS_OFF | RIOT_HAS_COUNT;
	s->ret = INT64_MAX;
	s->fd = INT32_MAX;
	s->off = UINT64_MAX - 1;
	s->count = 0;
	/* a path longer than a string may be: cut and flagged */
	s = sc(RIOT_SYS_openat, 100, 101, 2000000);
	s->has = RIOT_HAS_PATH | RIOT_HAS_DIRFD;
	s->dirfd = -100;
	s->path.s = long_path;
	s->ret = -36;

	/* sequential and random preads on two files, paths repeated */
	for (unsigned i = 0; i < 300; i++) {
		s = sc(i % 3 ? RIOT_SYS_pread64 : RIOT_SYS_read, 200, 200 + i % 2,
		       3000000 + i * 5000);
		s->has = RIOT_HAS_FD | RIOT_HAS_COUNT | (i % 3 ? RIOT_HAS_OFF : 0);
		s->fd = 3 + (int32_t)(i % 2);
		s->count = 65536;
		if (s->has & RIOT_HAS_OFF)
			s->off = i % 7 == 0 ? (uint64_t)i * 7919 : (uint64_t)i / 2 * 65536;
		s->ret = i % 11 == 0 ? 100 : 65536;
		s = sc(RIOT_SYS_newfstatat, 200, 200, 3000000 + i * 5000 + 100);
		s->has = RIOT_HAS_DIRFD | RIOT_HAS_PATH | RIOT_HAS_FLAGS;
		s->dirfd = -100;
		s->path.s = i % 2 ? "/etc/passwd" : "/etc/group";
		s->ret = i % 5 ? 0 : -2;
	}

	r = next_rec(RIOT_REC_PROC);
	r->proc = (struct riot_proc){ .kind = RIOT_PROC_FORK, .pid = 200, .tid = 201,
				      .t = 9000000, .child_pid = 300, .child_tid = 300,
				      .clone_flags = UINT64_MAX };
	r = next_rec(RIOT_REC_PROC);
	r->proc = (struct riot_proc){ .kind = RIOT_PROC_FORK, .pid = 200, .tid = 200,
				      .t = 9000001, .child_pid = 200, .child_tid = UINT32_MAX,
				      .clone_flags = 0x3d0f00 };
	r = next_rec(RIOT_REC_PROC);
	r->proc = (struct riot_proc){ .kind = RIOT_PROC_EXEC, .pid = 300, .tid = 300,
				      .t = 9100000, .comm = { "cat", true },
				      .path = { "/usr/bin/cat", false } };
	r = next_rec(RIOT_REC_PROC);
	r->proc = (struct riot_proc){ .kind = RIOT_PROC_EXIT, .pid = 300, .tid = 300,
				      .t = 9200000, .exit_code = INT32_MIN };
	r = next_rec(RIOT_REC_PROC);
	r->proc = (struct riot_proc){ .kind = RIOT_PROC_EXIT, .pid = UINT32_MAX, .tid = 0,
				      .t = 1, .exit_code = INT32_MAX };
	r = next_rec(RIOT_REC_SNAP_PROC);
	r->sproc = (struct riot_snap_proc){ .pid = 1, .ppid = 0, .t = 10,
					    .cwd = { "/", false }, .comm = { "init", false } };
	r = next_rec(RIOT_REC_SNAP_PROC);
	r->sproc = (struct riot_snap_proc){ .pid = 0, .ppid = UINT32_MAX, .t = UINT64_MAX,
					    .cwd = { all_bytes, true } };
	r = next_rec(RIOT_REC_SNAP_FD);
	r->sfd = (struct riot_snap_fd){ .pid = 200, .fd = 5, .t = 11,
					.path = { "/var/log/x.log", false }, .flags = 02101,
					.pos = 777, .size = 1 << 20, .ino = 42, .dev = 0x801,
					.ftype = 0100000, .perm = 0640, .has_perm = true };
	r = next_rec(RIOT_REC_SNAP_FD);
	r->sfd = (struct riot_snap_fd){ .pid = UINT32_MAX, .fd = INT32_MIN, .t = 0,
					.flags = UINT32_MAX, .pos = UINT64_MAX,
					.size = UINT64_MAX, .ino = UINT64_MAX,
					.dev = UINT64_MAX, .ftype = UINT32_MAX };
	r = next_rec(RIOT_REC_DROP);
	r->drop = (struct riot_drop){ .cpu = 1, .count = 17, .t_first = 5000, .t_last = 9000 };
	r = next_rec(RIOT_REC_DROP);
	r->drop = (struct riot_drop){ .cpu = UINT32_MAX, .count = UINT64_MAX / 2,
				      .t_first = 9000, .t_last = 5000 };
}

static bool str_eq(struct riot_str a, struct riot_str b)
{
	if (!a.s || !b.s)
		return !a.s && !b.s && !a.truncated && !b.truncated;
	return strcmp(a.s, b.s) == 0 && a.truncated == b.truncated;
}

/* What the reader must return for a string: at most 65535 bytes, flagged
 * when cut. */
static struct riot_str expect_str(struct riot_str s)
{
	static char cut[65536];

	if (s.s && strlen(s.s) > 65535) {
		memcpy(cut, s.s, 65535);
		cut[65535] = '\0';
		return (struct riot_str){ cut, true };
	}
	return s;
}

static void check_syscall(const struct riot_syscall *a, const struct riot_syscall *b)
{
	CHECK_EQ(a->sys, b->sys);
	CHECK_U64(a->pid, b->pid);
	CHECK_U64(a->tid, b->tid);
	CHECK_U64(a->t, b->t);
	CHECK_U64(a->dur, b->dur);
	CHECK_EQ(a->ret, b->ret);
	CHECK_U64(a->has, b->has);
	CHECK_EQ(a->fd, b->fd);
	CHECK_EQ(a->fd2, b->fd2);
	CHECK_EQ(a->dirfd, b->dirfd);
	CHECK_EQ(a->dirfd2, b->dirfd2);
	CHECK(str_eq(expect_str(a->path), b->path));
	CHECK(str_eq(expect_str(a->path2), b->path2));
	CHECK_U64(a->off, b->off);
	CHECK_U64(a->off2, b->off2);
	CHECK_U64(a->count, b->count);
	CHECK_U64(a->flags, b->flags);
	CHECK_U64(a->mode, b->mode);
	CHECK_U64(a->cmd, b->cmd);
	CHECK_U64(a->arg, b->arg);
	CHECK_U64(a->iovcnt, b->iovcnt);
	CHECK_U64(a->uid, b->uid);
	CHECK_U64(a->gid, b->gid);
	CHECK_U64(a->size, b->size);
	CHECK_U64(a->ftype, b->ftype);
	CHECK_U64(a->ino, b->ino);
	CHECK_U64(a->dev, b->dev);
	CHECK_U64(a->created, b->created);
	CHECK_U64(a->perm, b->perm);
	CHECK_U64(a->value_len, b->value_len);
	if (a->value_len == b->value_len && a->value_len)
		CHECK(memcmp(a->value, b->value, a->value_len) == 0);
}

static void check_rec(const struct riot_rec *a, const struct riot_rec *b)
{
	CHECK_EQ(a->type, b->type);
	if (a->type != b->type)
		return;
	switch (a->type) {
	case RIOT_REC_SYSCALL:
		check_syscall(&a->sc, &b->sc);
		break;
	case RIOT_REC_PROC:
		CHECK_EQ(a->proc.kind, b->proc.kind);
		CHECK_U64(a->proc.pid, b->proc.pid);
		CHECK_U64(a->proc.tid, b->proc.tid);
		CHECK_U64(a->proc.t, b->proc.t);
		CHECK_U64(a->proc.child_pid, b->proc.child_pid);
		CHECK_U64(a->proc.child_tid, b->proc.child_tid);
		CHECK_U64(a->proc.clone_flags, b->proc.clone_flags);
		CHECK(str_eq(a->proc.comm, b->proc.comm));
		CHECK(str_eq(a->proc.path, b->proc.path));
		CHECK_EQ(a->proc.exit_code, b->proc.exit_code);
		break;
	case RIOT_REC_SNAP_PROC:
		CHECK_U64(a->sproc.pid, b->sproc.pid);
		CHECK_U64(a->sproc.ppid, b->sproc.ppid);
		CHECK_U64(a->sproc.t, b->sproc.t);
		CHECK(str_eq(a->sproc.cwd, b->sproc.cwd));
		CHECK(str_eq(a->sproc.comm, b->sproc.comm));
		break;
	case RIOT_REC_SNAP_FD:
		CHECK_U64(a->sfd.pid, b->sfd.pid);
		CHECK_EQ(a->sfd.fd, b->sfd.fd);
		CHECK_U64(a->sfd.t, b->sfd.t);
		CHECK(str_eq(a->sfd.path, b->sfd.path));
		CHECK_U64(a->sfd.flags, b->sfd.flags);
		CHECK_U64(a->sfd.pos, b->sfd.pos);
		CHECK_U64(a->sfd.size, b->sfd.size);
		CHECK_U64(a->sfd.ino, b->sfd.ino);
		CHECK_U64(a->sfd.dev, b->sfd.dev);
		CHECK_U64(a->sfd.ftype, b->sfd.ftype);
		CHECK_EQ(a->sfd.has_perm, b->sfd.has_perm);
		CHECK_U64(a->sfd.perm, b->sfd.perm);
		break;
	case RIOT_REC_DROP:
		CHECK_U64(a->drop.cpu, b->drop.cpu);
		CHECK_U64(a->drop.count, b->drop.count);
		CHECK_U64(a->drop.t_first, b->drop.t_first);
		CHECK_U64(a->drop.t_last, b->drop.t_last);
		break;
	}
}

static const struct riot_log_header hdr = {
	.host = "build-7", .kernel = "6.18.0-test", .arch = "x86_64",
	.riot_version = "0.1.0", .cmdline = "riot capture -o x.riot -- dd",
	.options = "ring=64M", .target = "command: dd", .boot_to_wall_ns = -5,
	.start_t = 123456789, .probe_ns = 151, .probe_calls = 2048, .probe_untraced_ns = 831,
	.probe_recorded_ns = 982,
};

/* Writes every record, reads the log back, compares all of it. */
static void round_trip(const char *path, size_t block_bytes, bool expect_many_blocks)
{
	struct riot_writer_opts o = { .block_bytes = block_bytes };
	struct riot_writer *w = riot_writer_open(path, &hdr, &o);
	uint64_t types[RIOT_REC_TYPE_MAX] = { 0 }, sys[RIOT_SYS_COUNT] = { 0 };
	uint64_t drops = 0, t_last = 0;

	CHECK(w != NULL);
	if (!w)
		return;
	for (unsigned i = 0; i < nrec; i++) {
		CHECK_EQ(riot_writer_add(w, &recs[i]), 0);
		types[recs[i].type]++;
		const struct riot_rec *r = &recs[i];
		uint64_t end = r->type == RIOT_REC_SYSCALL ? r->sc.t + r->sc.dur :
			       r->type == RIOT_REC_PROC ? r->proc.t :
			       r->type == RIOT_REC_SNAP_PROC ? r->sproc.t :
			       r->type == RIOT_REC_SNAP_FD ? r->sfd.t : r->drop.t_last;
		if (end > t_last)
			t_last = end;
		if (r->type == RIOT_REC_SYSCALL)
			sys[r->sc.sys]++;
		if (r->type == RIOT_REC_DROP)
			drops += r->drop.count;
	}
	uint64_t strings = riot_writer_count(w, RIOT_REC_STRING);
	CHECK_U64(riot_writer_count(w, RIOT_REC_SYSCALL), types[RIOT_REC_SYSCALL]);
	CHECK_EQ(riot_writer_close(w), 0);

	char err[256];
	struct riot_reader *r = riot_reader_open(path, err, sizeof(err));
	CHECK(r != NULL);
	if (!r)
		return;
	const struct riot_log_header *h = riot_reader_header(r);
	CHECK_EQ(h->major, RIOT_FMT_MAJOR);
	CHECK_EQ(h->minor, RIOT_FMT_MINOR);
	CHECK_STR(h->host, hdr.host);
	CHECK_STR(h->kernel, hdr.kernel);
	CHECK_STR(h->arch, hdr.arch);
	CHECK_STR(h->riot_version, hdr.riot_version);
	CHECK_STR(h->cmdline, hdr.cmdline);
	CHECK_STR(h->options, hdr.options);
	CHECK_STR(h->target, hdr.target);
	CHECK_EQ(h->boot_to_wall_ns, -5);
	CHECK_U64(h->start_t, 123456789);
	CHECK_U64(h->probe_ns, 151);
	CHECK_U64(h->probe_calls, 2048);
	CHECK_U64(h->probe_untraced_ns, 831);
	CHECK_U64(h->probe_recorded_ns, 982);

	struct riot_rec got;
	unsigned i = 0, nstr = 0;
	int rc;
	while ((rc = riot_reader_next(r, &got)) == 1) {
		if (got.type == RIOT_REC_STRING) {
			nstr++;
			CHECK(got.string.str.s != NULL);
			continue;
		}
		CHECK(i < nrec);
		if (i < nrec)
			check_rec(&recs[i], &got);
		i++;
	}
	CHECK_EQ(rc, 0);
	CHECK_EQ(i, nrec);
	CHECK_EQ(nstr, strings);
	CHECK(riot_reader_complete(r));
	CHECK(riot_reader_incomplete_reason(r) == NULL);
	CHECK(riot_reader_error(r) == NULL);
	const struct riot_log_totals *t = riot_reader_totals(r);
	CHECK(t != NULL);
	if (t) {
		CHECK_U64(t->records[RIOT_REC_STRING], strings);
		for (unsigned k = RIOT_REC_SYSCALL; k < RIOT_REC_TYPE_MAX; k++)
			CHECK_U64(t->records[k], types[k]);
		for (unsigned k = 0; k < RIOT_SYS_COUNT; k++)
			CHECK_U64(t->syscalls[k], sys[k]);
		CHECK_U64(t->drops, drops);
		CHECK_U64(t->t_last, t_last);
		CHECK_U64(t->blocks, riot_reader_blocks(r));
	}
	struct stat sb;
	CHECK_EQ(stat(path, &sb), 0);
	CHECK_U64(riot_reader_file_bytes(r), sb.st_size);
	if (expect_many_blocks)
		CHECK(riot_reader_blocks(r) > 50);
	else
		CHECK_U64(riot_reader_blocks(r), 1);
	/* reading past the end stays at the end */
	CHECK_EQ(riot_reader_next(r, &got), 0);
	riot_reader_close(r);
}

/* Interning: a string is defined once per block, again in the next. */
static void interning(const char *path)
{
	struct riot_writer *w = riot_writer_open(path, &hdr, NULL);
	struct riot_rec rec = { .type = RIOT_REC_SYSCALL };

	CHECK(w != NULL);
	if (!w)
		return;
	rec.sc.sys = RIOT_SYS_unlink;
	rec.sc.has = RIOT_HAS_PATH;
	rec.sc.path.s = "/tmp/same";
	for (int i = 0; i < 100; i++)
		CHECK_EQ(riot_writer_add(w, &rec), 0);
	rec.sc.path.truncated = true;	/* same bytes, other flag: another string */
	CHECK_EQ(riot_writer_add(w, &rec), 0);
	CHECK_U64(riot_writer_count(w, RIOT_REC_STRING), 2);
	CHECK_EQ(riot_writer_flush(w), 0);
	CHECK_EQ(riot_writer_add(w, &rec), 0);
	CHECK_U64(riot_writer_count(w, RIOT_REC_STRING), 3);
	/* a STRING record may not be added, nor an unknown type or syscall */
	struct riot_rec bad = { .type = RIOT_REC_STRING };
	CHECK_EQ(riot_writer_add(w, &bad), -EINVAL);
	bad.type = RIOT_REC_TYPE_MAX;
	CHECK_EQ(riot_writer_add(w, &bad), -EINVAL);
	bad = rec;
	bad.sc.sys = RIOT_SYS_COUNT;
	CHECK_EQ(riot_writer_add(w, &bad), -EINVAL);
	bad = rec;
	bad.sc.path.s = NULL;
	CHECK_EQ(riot_writer_add(w, &bad), -EINVAL);
	CHECK_EQ(riot_writer_close(w), 0);

	char err[256];
	struct riot_reader *r = riot_reader_open(path, err, sizeof(err));
	struct riot_rec got;
	unsigned strings = 0, syscalls = 0;
	CHECK(r != NULL);
	while (r && riot_reader_next(r, &got) == 1) {
		if (got.type == RIOT_REC_STRING) {
			CHECK_STR(got.string.str.s, "/tmp/same");
			CHECK_EQ(got.string.id, strings == 2 ? 0 : strings);
			strings++;
		} else {
			CHECK_STR(got.sc.path.s, "/tmp/same");
			CHECK_EQ(got.sc.path.truncated, syscalls >= 100);
			syscalls++;
		}
	}
	CHECK_EQ(strings, 3);
	CHECK_EQ(syscalls, 102);
	CHECK(r && riot_reader_complete(r));
	CHECK_U64(r ? riot_reader_blocks(r) : 0, 2);
	riot_reader_close(r);
}

int main(void)
{
	char path[] = "/tmp/riot-test-log-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return 1;
	close(fd);
	build_records();
	round_trip(path, 0, false);
	round_trip(path, 200, true);
	round_trip(path, 1, true);
	interning(path);
	unlink(path);
	return unit_done();
}
