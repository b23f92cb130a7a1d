/* mklog: writes a .riot log from a text description, one record a line, for
 * tests of everything that reads logs (init, replay, report).
 *
 * usage: mklog -o FILE [--host S] [--kernel S] [--cmdline S] [INPUT]
 *        (INPUT defaults to stdin; the header's strings take the escapes
 *        of a path below, so a test can give them any bytes)
 *
 * Lines (blank lines and lines starting with '#' are ignored):
 *
 *   SYSCALL key=value...      a syscall record; SYSCALL is a name from
 *                             bpf/syscalls.def (openat, pread64, readlink...)
 *   snap_proc pid=N cwd=PATH [ppid=N] [comm=S]
 *   snap_fd pid=N fd=N path=PATH [flags=F] [pos=N] [size=N] [ftype=T] [perm=N]
 *   proc_fork pid=N child=N [child_tid=N] [flags=F]
 *   proc_exec pid=N path=PATH [comm=S]
 *   proc_exit pid=N [code=N]
 *   drop count=N [cpu=N]
 *
 * Syscall keys: pid tid t dur ret fd fd2 dirfd dirfd2 path path2 off off2
 * count flags mode cmd arg iovcnt uid gid size ino dev ftype created perm ctx. A key
 * given sets its RIOT_HAS_* bit; ret defaults to 0, pid to 100, tid to pid,
 * t to 1000 ns after the previous record, dur to 500.
 *
 * Values: numbers are decimal or 0x hex, negative allowed; ret also takes
 * -ENAME (-ENOENT, -EEXIST, ...); fd and dirfd take AT_FDCWD; flags take
 * names joined by '|' (O_RDONLY O_WRONLY O_RDWR O_CREAT O_EXCL O_TRUNC
 * O_APPEND O_DIRECTORY O_NOFOLLOW O_CLOEXEC O_PATH O_DIRECT O_DSYNC
 * AT_SYMLINK_NOFOLLOW AT_REMOVEDIR AT_EMPTY_PATH RENAME_NOREPLACE
 * RENAME_EXCHANGE, and io_uring's IOSQE_FIXED_FILE IOSQE_IO_DRAIN
 * IOSQE_IO_LINK IOSQE_IO_HARDLINK) or a number;
 * ftype takes reg dir lnk sock fifo chr blk or a number; perm is octal. Strings (path,
 * path2, cwd, comm) run to the next space and take escapes: \xHH (any
 * byte), \\ (a backslash), \{N*TEXT} (TEXT repeated N times, for long
 * paths). A trailing '!' (path=/a/b!) marks the string truncated, as
 * capture does for a path it cut.
 *
 * Example:
 *   snap_proc pid=100 cwd=/data
 *   openat dirfd=AT_FDCWD path=/data/in flags=O_RDONLY ret=3 size=8192 ftype=reg created=0
 *   pread64 fd=3 off=0 count=4096 ret=4096
 *   readlink path=/data/link path2=in ret=2
 *   openat dirfd=AT_FDCWD path=/data/missing flags=O_RDONLY ret=-ENOENT
 *   io_uring:write ctx=1 fd=3 off=0 count=4096 flags=IOSQE_IO_LINK ret=4096
 *
 * Asynchronous requests (io_uring:*, aio:*, mmap:*) are named as in
 * bpf/syscalls.def; their t is the submission and dur runs to the
 * completion, so requests of one ctx overlap where t + dur passes the
 * next one's t.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
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
};

static void die(const struct line_ctx *c, const char *msg, const char *what)
{
	fprintf(stderr, "mklog: line %u: %s%s%s\n", c->lineno, msg, what ? ": " : "",
		what ? what : "");
	exit(1);
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
	{ "reg", S_IFREG }, { "dir", S_IFDIR }, { "lnk", S_IFLNK }, { "sock", S_IFSOCK },
	{ "fifo", S_IFIFO }, { "chr", S_IFCHR }, { "blk", S_IFBLK },
};

static long long parse_one(const struct line_ctx *c, const char *s, size_t n)
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
static long long parse_num(const struct line_ctx *c, const char *s)
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

	if (!out || c->nstrs == 4)
		die(c, "too many strings", NULL);
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

static void parse_line(struct line_ctx *c, char *line, struct riot_rec *r)
{
	bool tid_set = false;
	char *save, *tok = strtok_r(line, " \t\r\n", &save);

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
}

int main(int argc, char **argv)
{
	struct riot_log_header h = {
		.host = "mklog", .kernel = "synthetic", .arch = "x86_64",
		.riot_version = "mklog", .cmdline = "mklog", .start_t = 1000,
	};
	const char *out = NULL, *in = NULL;
	struct line_ctx c = { .t = 1000 }, args = { 0 };
	struct riot_writer *w;
	char *line = NULL;
	size_t cap = 0;
	FILE *f;
	int rc = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
			out = argv[++i];
		else if (strcmp(argv[i], "--host") == 0 && i + 1 < argc)
			h.host = parse_str(&args, argv[++i]).s;
		else if (strcmp(argv[i], "--kernel") == 0 && i + 1 < argc)
			h.kernel = parse_str(&args, argv[++i]).s;
		else if (strcmp(argv[i], "--cmdline") == 0 && i + 1 < argc)
			h.cmdline = parse_str(&args, argv[++i]).s;
		else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			out = NULL, in = NULL, i = argc;
		else if (!in && argv[i][0] != '-')
			in = argv[i];
		else
			out = NULL, i = argc;
	}
	if (!out) {
		fputs("usage: mklog -o FILE [--host S] [--kernel S] [--cmdline S] [INPUT]\n"
		      "(see tests/bin/mklog.c for the format)\n",
		      stderr);
		return 2;
	}
	f = in ? fopen(in, "r") : stdin;
	if (!f) {
		perror(in);
		return 1;
	}
	w = riot_writer_open(out, &h, NULL);
	if (!w) {
		perror(out);
		return 1;
	}
	while (rc == 0 && getline(&line, &cap, f) > 0) {
		struct riot_rec r;
		char *p = line + strspn(line, " \t");

		c.lineno++;
		if (*p == '#' || *p == '\n' || *p == '\0')
			continue;
		parse_line(&c, p, &r);
		rc = riot_writer_add(w, &r);
		while (c.nstrs)
			free(c.strs[--c.nstrs]);
	}
	free(line);
	if (rc < 0) {
		fprintf(stderr, "mklog: line %u: %s\n", c.lineno, strerror(-rc));
		riot_writer_abort(w);
		return 1;
	}
	rc = riot_writer_close(w);
	if (rc < 0) {
		fprintf(stderr, "mklog: %s: %s\n", out, strerror(-rc));
		return 1;
	}
	return 0;
}
