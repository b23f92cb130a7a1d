/* tests/bin/mklog_text.h: the text form of a log, one record a line (the
 * grammar is in tests/bin/mklog.c's header), parsed for mklog and for the
 * fuzz target that feeds the readers from it (tests/fuzz/fuzz_mklog.c).
 * Static functions: each includer gets its own copy. */
#ifndef RIOT_TESTS_MKLOG_TEXT_H
#define RIOT_TESTS_MKLOG_TEXT_H

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/log.h"

#define MKLOG_STR_MAX (1u << 16)

struct line_ctx {
	unsigned lineno;
	uint64_t t;
	char *strs[4];		/* decoded strings of the current line */
	unsigned nstrs;
	jmp_buf *fail;		/* NULL: an error ends the program with its
				 * line; else it jumps here, the reason in err */
	char err[160];
};

static void die(struct line_ctx *c, const char *msg, const char *what)
{
	if (c->fail) {
		snprintf(c->err, sizeof(c->err), "line %u: %s%s%.60s", c->lineno, msg,
			 what ? ": " : "", what ? what : "");
		longjmp(*c->fail, 1);
	}
	fprintf(stderr, "mklog: line %u: %s%s%s\n", c->lineno, msg, what ? ": " : "",
		what ? what : "");
	exit(1);
}

/* Frees the strings of the line parsed last (the record points into them). */
static void line_free(struct line_ctx *c)
{
	while (c->nstrs)
		free(c->strs[--c->nstrs]);
}

static const struct { const char *name; long long v; } names[] = {
	{ "O_RDONLY", O_RDONLY }, { "O_WRONLY", O_WRONLY }, { "O_RDWR", O_RDWR },
	{ "O_CREAT", O_CREAT }, { "O_EXCL", O_EXCL }, { "O_TRUNC", O_TRUNC },
	{ "O_APPEND", O_APPEND }, { "O_DIRECTORY", O_DIRECTORY },
	{ "O_NOFOLLOW", O_NOFOLLOW }, { "O_CLOEXEC", O_CLOEXEC }, { "O_PATH", O_PATH },
	{ "AT_SYMLINK_NOFOLLOW", AT_SYMLINK_NOFOLLOW }, { "AT_REMOVEDIR", AT_REMOVEDIR },
	{ "AT_EMPTY_PATH", AT_EMPTY_PATH }, { "RENAME_NOREPLACE", RENAME_NOREPLACE },
	{ "RENAME_EXCHANGE", RENAME_EXCHANGE }, { "AT_FDCWD", AT_FDCWD },
	{ "O_DIRECT", O_DIRECT }, { "O_DSYNC", O_DSYNC },
	/* io_uring's SQE flags (linux/io_uring.h), for asynchronous requests */
	{ "IOSQE_FIXED_FILE", 1 }, { "IOSQE_IO_DRAIN", 2 }, { "IOSQE_IO_LINK", 4 },
	{ "IOSQE_IO_HARDLINK", 8 },
	{ "ENOENT", ENOENT }, { "EEXIST", EEXIST }, { "EISDIR", EISDIR },
	{ "ENOTDIR", ENOTDIR }, { "EINVAL", EINVAL }, { "EBADF", EBADF },
	{ "EACCES", EACCES }, { "EPERM", EPERM }, { "ELOOP", ELOOP },
	{ "ENAMETOOLONG", ENAMETOOLONG }, { "ENOTEMPTY", ENOTEMPTY },
	{ "EXDEV", EXDEV }, { "EOPNOTSUPP", EOPNOTSUPP }, { "EIO", EIO },
	{ "EAGAIN", EAGAIN }, { "EINTR", EINTR }, { "ENODATA", ENODATA },
	{ "reg", S_IFREG }, { "dir", S_IFDIR }, { "lnk", S_IFLNK }, { "sock", S_IFSOCK },
	{ "fifo", S_IFIFO }, { "chr", S_IFCHR }, { "blk", S_IFBLK },
};

static long long parse_one(struct line_ctx *c, const char *s, size_t n)
{
	char buf[64], *end;
	long long v;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].name) == n && memcmp(names[i].name, s, n) == 0)
			return names[i].v;
	if (n == 0 || n >= sizeof(buf))
		die(c, "bad number", s);
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	v = buf[0] == '-' ? strtoll(buf, &end, 0) : (long long)strtoull(buf, &end, 0);
	if (errno || *end)
		die(c, "bad number", buf);
	return v;
}

/* A number, a name, "-NAME" or NAME|NAME|... */
static long long parse_num(struct line_ctx *c, const char *s)
{
	long long v = 0;

	if (s[0] == '-' && (s[1] < '0' || s[1] > '9'))
		return -parse_one(c, s + 1, strlen(s + 1));
	for (;;) {
		const char *bar = strchr(s, '|');
		size_t n = bar ? (size_t)(bar - s) : strlen(s);

		v |= parse_one(c, s, n);
		if (!bar)
			return v;
		s = bar + 1;
	}
}

static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* Decodes escapes into a new string the line owns. */
static struct riot_str parse_str(struct line_ctx *c, const char *s)
{
	char *out = malloc(MKLOG_STR_MAX + 1);
	size_t n = 0, len = strlen(s);
	struct riot_str r = { 0 };

	if (!out || c->nstrs == 4) {
		free(out);
		die(c, "too many strings", NULL);
	}
	c->strs[c->nstrs++] = out;
	if (len && s[len - 1] == '!') {
		r.truncated = true;
		len--;
	}
	for (size_t i = 0; i < len; i++) {
		if (n >= MKLOG_STR_MAX)
			die(c, "string too long", NULL);
		if (s[i] != '\\') {
			out[n++] = s[i];
		} else if (s[i + 1] == '\\') {
			out[n++] = '\\';
			i++;
		} else if (s[i + 1] == 'x' && hexval(s[i + 2]) >= 0 && hexval(s[i + 3]) >= 0) {
			out[n++] = (char)(hexval(s[i + 2]) * 16 + hexval(s[i + 3]));
			i += 3;
		} else if (s[i + 1] == '{') {
			char *star, *close;
			unsigned long rep = strtoul(s + i + 2, &star, 10);

			close = strchr(s + i, '}');
			if (*star != '*' || !close)
				die(c, "bad \\{N*TEXT}", s);
			for (unsigned long k = 0; k < rep; k++)
				for (const char *p = star + 1; p < close; p++) {
					if (n >= MKLOG_STR_MAX)
						die(c, "string too long", NULL);
					out[n++] = *p;
				}
			i = (size_t)(close - s);
		} else {
			die(c, "bad escape", s);
		}
	}
	out[n] = '\0';
	r.s = out;
	return r;
}

static bool set_syscall_field(struct line_ctx *c, struct riot_syscall *sc, const char *k,
			      const char *v)
{
#define NUM(key, field, bit) \
	if (strcmp(k, key) == 0) { sc->field = (typeof(sc->field))parse_num(c, v); sc->has |= (bit); return true; }
	NUM("pid", pid, 0) NUM("tid", tid, 0) NUM("t", t, 0) NUM("dur", dur, 0) NUM("ret", ret, 0)
	NUM("fd", fd, RIOT_HAS_FD) NUM("fd2", fd2, RIOT_HAS_FD2)
	NUM("dirfd", dirfd, RIOT_HAS_DIRFD) NUM("dirfd2", dirfd2, RIOT_HAS_DIRFD2)
	NUM("off", off, RIOT_HAS_OFF) NUM("off2", off2, RIOT_HAS_OFF2)
	NUM("count", count, RIOT_HAS_COUNT) NUM("flags", flags, RIOT_HAS_FLAGS)
	NUM("mode", mode, RIOT_HAS_MODE) NUM("cmd", cmd, RIOT_HAS_CMD) NUM("arg", arg, RIOT_HAS_ARG)
	NUM("iovcnt", iovcnt, RIOT_HAS_IOVCNT) NUM("uid", uid, RIOT_HAS_UID)
	NUM("gid", gid, RIOT_HAS_GID) NUM("size", size, RIOT_HAS_SIZE)
	NUM("ftype", ftype, RIOT_HAS_FTYPE) NUM("ino", ino, RIOT_HAS_INO)
	NUM("dev", dev, RIOT_HAS_DEV) NUM("created", created, RIOT_HAS_CREATED)
	NUM("ctx", ctx, RIOT_HAS_CTX)
#undef NUM
	if (strcmp(k, "perm") == 0) {
		sc->perm = (uint32_t)strtoul(v, NULL, 8);
		sc->has |= RIOT_HAS_PERM;
		return true;
	}
	if (strcmp(k, "path") == 0) {
		sc->path = parse_str(c, v);
		sc->has |= RIOT_HAS_PATH;
		return true;
	}
	if (strcmp(k, "path2") == 0) {
		sc->path2 = parse_str(c, v);
		sc->has |= RIOT_HAS_PATH2;
		return true;
	}
	return false;
}

static bool set_other_field(struct line_ctx *c, struct riot_rec *r, const char *k, const char *v)
{
	switch (r->type) {
	case RIOT_REC_SNAP_PROC:
		if (strcmp(k, "pid") == 0) r->sproc.pid = (uint32_t)parse_num(c, v);
		else if (strcmp(k, "ppid") == 0) r->sproc.ppid = (uint32_t)parse_num(c, v);
		else if (strcmp(k, "cwd") == 0) r->sproc.cwd = parse_str(c, v);
		else if (strcmp(k, "comm") == 0) r->sproc.comm = parse_str(c, v);
		else return false;
		return true;
	case RIOT_REC_SNAP_FD:
		if (strcmp(k, "pid") == 0) r->sfd.pid = (uint32_t)parse_num(c, v);
		else if (strcmp(k, "fd") == 0) r->sfd.fd = (int32_t)parse_num(c, v);
		else if (strcmp(k, "path") == 0) r->sfd.path = parse_str(c, v);
		else if (strcmp(k, "flags") == 0) r->sfd.flags = (uint32_t)parse_num(c, v);
		else if (strcmp(k, "pos") == 0) r->sfd.pos = (uint64_t)parse_num(c, v);
		else if (strcmp(k, "size") == 0) r->sfd.size = (uint64_t)parse_num(c, v);
		else if (strcmp(k, "ftype") == 0) r->sfd.ftype = (uint32_t)parse_num(c, v);
		else if (strcmp(k, "perm") == 0) {
			r->sfd.perm = (uint32_t)strtoul(v, NULL, 8);
			r->sfd.has_perm = true;
		} else return false;
		return true;
	case RIOT_REC_PROC:
		if (strcmp(k, "pid") == 0) r->proc.pid = r->proc.tid = (uint32_t)parse_num(c, v);
		else if (strcmp(k, "tid") == 0) r->proc.tid = (uint32_t)parse_num(c, v);
		else if (strcmp(k, "child") == 0) r->proc.child_pid = r->proc.child_tid = (uint32_t)parse_num(c, v);
		else if (strcmp(k, "child_tid") == 0) r->proc.child_tid = (uint32_t)parse_num(c, v);
		else if (strcmp(k, "flags") == 0) r->proc.clone_flags = (uint64_t)parse_num(c, v);
		else if (strcmp(k, "path") == 0) r->proc.path = parse_str(c, v);
		else if (strcmp(k, "comm") == 0) r->proc.comm = parse_str(c, v);
		else if (strcmp(k, "code") == 0) r->proc.exit_code = (int32_t)parse_num(c, v);
		else return false;
		return true;
	case RIOT_REC_DROP:
		if (strcmp(k, "count") == 0) r->drop.count = (uint64_t)parse_num(c, v);
		else if (strcmp(k, "cpu") == 0) r->drop.cpu = (uint32_t)parse_num(c, v);
		else return false;
		return true;
	}
	return false;
}

/* The record kind named by the first word; syscalls by their name. */
static void start_record(struct line_ctx *c, const char *word, struct riot_rec *r)
{
	static const struct { const char *w; uint8_t type, kind; } kinds[] = {
		{ "snap_proc", RIOT_REC_SNAP_PROC, 0 }, { "snap_fd", RIOT_REC_SNAP_FD, 0 },
		{ "proc_fork", RIOT_REC_PROC, RIOT_PROC_FORK },
		{ "proc_exec", RIOT_REC_PROC, RIOT_PROC_EXEC },
		{ "proc_exit", RIOT_REC_PROC, RIOT_PROC_EXIT }, { "drop", RIOT_REC_DROP, 0 },
	};
	int sys;

	memset(r, 0, sizeof(*r));
	c->t += 1000;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strcmp(word, kinds[i].w) != 0)
			continue;
		r->type = kinds[i].type;
		if (r->type == RIOT_REC_PROC) {
			r->proc.kind = kinds[i].kind;
			r->proc.pid = r->proc.tid = 100;
			r->proc.t = c->t;
		} else if (r->type == RIOT_REC_SNAP_PROC) {
			r->sproc.t = c->t;
		} else if (r->type == RIOT_REC_SNAP_FD) {
			r->sfd.t = c->t;
		} else {
			r->drop.t_first = r->drop.t_last = c->t;
		}
		return;
	}
	sys = riot_sys_by_name(word);
	if (sys < 0)
		die(c, "unknown record or syscall", word);
	r->type = RIOT_REC_SYSCALL;
	r->sc = (struct riot_syscall){ .sys = (uint16_t)sys, .pid = 100, .t = c->t, .dur = 500 };
}

/* One line into r: false for a line of blanks only (no record). */
static bool parse_line(struct line_ctx *c, char *line, struct riot_rec *r)
{
	bool tid_set = false;
	char *save, *tok = strtok_r(line, " \t\r\n", &save);

	if (!tok)
		return false;
	start_record(c, tok, r);
	while ((tok = strtok_r(NULL, " \t\r\n", &save))) {
		char *eq = strchr(tok, '=');

		if (!eq)
			die(c, "expected key=value", tok);
		*eq = '\0';
		if (r->type == RIOT_REC_SYSCALL) {
			if (!set_syscall_field(c, &r->sc, tok, eq + 1))
				die(c, "unknown key", tok);
			tid_set |= strcmp(tok, "tid") == 0;
		} else if (!set_other_field(c, r, tok, eq + 1)) {
			die(c, "unknown key", tok);
		}
	}
	if (r->type == RIOT_REC_SYSCALL) {
		if (!tid_set)
			r->sc.tid = r->sc.pid;
		if (r->sc.t > c->t)
			c->t = r->sc.t;
	}
	return true;
}

#endif
