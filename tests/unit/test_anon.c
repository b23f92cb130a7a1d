/* tests/unit/test_anon.c: the names of `riot anonymize` and its pass over
 * a log, exactly. The expected tokens were computed apart from riot, with
 * Python's hmac and base64 modules:
 *   base64.b32encode(hmac.new(key, DOMAIN + name, sha256).digest())
 *         .decode().lower()[:16]   (15 for a comm)
 * with key b"k3y\n" and DOMAIN b"p" (path component), b"c" (comm), b"x"
 * (xattr name; past 51 characters the next come from the HMAC of the name
 * followed by a byte 1, 2, ...). */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "anon/anon.h"
#include "formats/log.h"
#include "formats/devices.h"
#include "tests/unit/unit.h"

#define KEY "k3y\n"
#define T_HOME "dmfnvwshdxtc2elm"
#define T_ALICE "enliwbycivl3p2n3"
#define T_NOTES "iemjvuu66muhgtl5"
#define T_A "vumpgd3mht4n2ck6"
#define T_B "57lsx4e5hklsucqc"
#define T_USRLOCAL "yfxoksb5tvaopmxn"
#define T_LIB "xed4bjns5t3afvly"
#define T_REPORT_PDF "7m6ffwos3q467fky"
#define T_HIDDEN "m4qhbnzqvcsndzac"
#define T_ARCHIVE "hcuay43gkq374k2l"
#define T_LONGEXT "a6fwsexvash4qcna"
#define T_WEIRD "5nrj5zqwquaopec4"
#define T_NOEXT "kbbk7koionwjfmha"
#define T_GONE "i7nrbhhs4p7lzcfi"
#define T_MEMINFO "p4qtt2ucertgys2v"
#define T_NULL "mv6jeqceqmtc6rnv"
#define T_STATUS "kfj35vvgbgnsg5by"
#define T_PROC "3jfciyprbmn764sa"
#define T_L "zd7y3tzix2ujdyse"
#define C_POSTGRES "imrv7yvjfvaaqus"
#define X_SECRET "i4gr55"	/* as long as "secret" */
#define X_LONG "zkbm2zzd4uipfwsnx4zcdialduxdlhe62zpgi34sp53nou67yiolucfltj4l"

static struct anon *make(bool keep_ext, const char *const *keep, unsigned nkeep)
{
	struct anon_opts o = { .key = KEY, .key_len = 4, .keep_ext = keep_ext, .keep = keep,
			       .nkeep = nkeep };
	char err[256];
	struct anon *a = anon_new(&o, err, sizeof(err));

	CHECK(a != NULL);
	return a;
}

static char out[8192];

static const char *path(struct anon *a, const char *s, const char *base, unsigned flags)
{
	bool cut = false;

	anon_path(a, s, base, flags, out, sizeof(out), &cut);
	CHECK(!cut);
	return out;
}

static void paths(void)
{
	struct anon *a = make(false, NULL, 0);
	bool cut = false;

	if (!a)
		return;
	CHECK_STR(path(a, "/home/alice/notes", NULL, 0), "/" T_HOME "/" T_ALICE "/" T_NOTES);
	/* separators, '.' and '..' stay as they are */
	CHECK_STR(path(a, "//home/./alice/../alice//", NULL, 0),
		  "//" T_HOME "/./" T_ALICE "/../" T_ALICE "//");
	CHECK_STR(path(a, "notes/a", "/home/alice", 0), T_NOTES "/" T_A);
	CHECK_STR(path(a, "notes/a", NULL, 0), T_NOTES "/" T_A);
	CHECK_STR(path(a, "", NULL, 0), "");
	CHECK_STR(path(a, "/", NULL, 0), "/");
	/* /proc, /sys, /dev stay, and what names an fd beneath /proc */
	CHECK_STR(path(a, "/proc/self/fd/3", NULL, 0), "/proc/self/fd/3");
	CHECK_STR(path(a, "/proc/812/task/813/fd/10", NULL, 0), "/proc/812/task/813/fd/10");
	CHECK_STR(path(a, "/proc/thread-self/status", NULL, 0), "/proc/thread-self/" T_STATUS);
	CHECK_STR(path(a, "/proc/meminfo", NULL, 0), "/proc/" T_MEMINFO);
	CHECK_STR(path(a, "/dev/null", NULL, 0), "/dev/" T_NULL);
	CHECK_STR(path(a, "/sys", NULL, 0), "/sys");
	/* by position, not by name: "proc" elsewhere is hashed, and a
	 * relative path reaching /proc is kept as the absolute one is */
	CHECK_STR(path(a, "/home/proc", NULL, 0), "/" T_HOME "/" T_PROC);
	CHECK_STR(path(a, "../../proc/self", "/home/alice", 0), "../../proc/self");
	CHECK_STR(path(a, "proc", NULL, 0), T_PROC);
	/* " (deleted)" stays on an fd's path only */
	CHECK_STR(path(a, "/home/gone (deleted)", NULL, ANON_PATH_FD), "/" T_HOME "/" T_GONE " (deleted)");
	/* ... and on its last component: elsewhere it is part of the name */
	CHECK_STR(path(a, "/home/gone (deleted)/a", NULL, ANON_PATH_FD) + 34, "/" T_A);
	CHECK(strstr(out, "deleted") == NULL);
	CHECK(strstr(path(a, "/home/gone (deleted)", NULL, 0), "deleted") == NULL);
	/* a component that does not fit is left out whole */
	CHECK_EQ(anon_path(a, "/home/alice", NULL, 0, out, 20, &cut), 17);
	CHECK(cut);
	CHECK_STR(out, "/" T_HOME);
	CHECK_U64(anon_counts(a)->clear > 0, 1);
	anon_free(a);
}

static void keep_ext(void)
{
	struct anon *a = make(true, NULL, 0);
	struct anon *b = make(false, NULL, 0);

	if (!a || !b)
		return;
	CHECK_STR(path(a, "report.pdf", NULL, 0), T_REPORT_PDF ".pdf");
	CHECK_STR(path(b, "report.pdf", NULL, 0), T_REPORT_PDF);
	CHECK_STR(path(a, "archive.tar.gz", NULL, 0), T_ARCHIVE ".gz");
	CHECK_STR(path(a, ".hidden", NULL, 0), T_HIDDEN);		/* a leading '.' */
	CHECK_STR(path(a, "x.verylongext", NULL, 0), T_LONGEXT);	/* 11 > 10 */
	CHECK_STR(path(a, "weird.a-b", NULL, 0), T_WEIRD);		/* not alnum */
	CHECK_STR(path(a, "noext", NULL, 0), T_NOEXT);
	CHECK_STR(path(a, "/home/gone (deleted)", NULL, ANON_PATH_FD),
		  "/" T_HOME "/" T_GONE " (deleted)");
	anon_free(a);
	anon_free(b);
}

/* Names are judged where the log's symlinks lead: every path to a file
 * gives it one name. */
static void keep_links(void)
{
	const char *const k[] = { "/usr" };
	struct anon *a = make(false, k, 1);

	if (!a)
		return;
	CHECK_EQ(anon_add_link(a, "/usr/share/docs", "/home/alice"), 0);
	CHECK_EQ(anon_add_link(a, "/usr/share/docs", "/usr/lib"), 0);	/* the first counts */
	CHECK_EQ(anon_add_link(a, "/home/b", "../usr/lib"), 0);
	CHECK_EQ(anon_add_link(a, "/usr/loop", "loop2"), 0);
	CHECK_EQ(anon_add_link(a, "/usr/loop2", "/usr/loop"), 0);
	/* out of the kept prefix: the link's name stays, what lies beyond goes */
	CHECK_STR(path(a, "/usr/share/docs/notes", NULL, 0), "/usr/share/docs/" T_NOTES);
	CHECK_STR(path(a, "/home/alice/notes", NULL, 0), "/" T_HOME "/" T_ALICE "/" T_NOTES);
	/* '..' from where the link led: /home, not /usr/share; there b leads
	 * to /usr/lib, where a is kept */
	CHECK_STR(path(a, "/usr/share/docs/../b/a", NULL, 0), "/usr/share/docs/../" T_B "/a");
	CHECK_STR(path(a, "/usr/share/docs/../notes", NULL, 0), "/usr/share/docs/../" T_NOTES);
	/* into it: beyond the hashed link, the name is kept */
	CHECK_STR(path(a, "/home/b/libc.so", NULL, 0), "/" T_HOME "/" T_B "/libc.so");
	CHECK_STR(path(a, "libc.so", "/home/b", 0), "libc.so");
	CHECK_STR(path(a, "/home/b/../lib", NULL, 0), "/" T_HOME "/" T_B "/../lib");
	/* a relative base is walked through them too */
	CHECK_STR(path(a, "notes", "/usr/share/docs", 0), T_NOTES);
	/* a loop: past 40 links the rest is hashed */
	CHECK_STR(path(a, "/usr/loop/a", NULL, 0), "/usr/loop/" T_A);
	anon_free(a);
}

static void keep(void)
{
	const char *const k[] = { "/usr/", "/home/alice/./notes" };
	struct anon *a = make(false, k, 2);
	struct anon_opts o = { .key = KEY, .key_len = 4 };
	char err[256];

	if (!a)
		return;
	CHECK_STR(path(a, "/usr/lib/libc.so.6", NULL, 0), "/usr/lib/libc.so.6");
	CHECK_STR(path(a, "/usr", NULL, 0), "/usr");
	/* whole components: /usrlocal is not beneath /usr */
	CHECK_STR(path(a, "/usrlocal/lib", NULL, 0), "/" T_USRLOCAL "/" T_LIB);
	/* the ancestors of a prefix stay everywhere, their other children go */
	CHECK_STR(path(a, "/home/alice/notes/a", NULL, 0), "/home/alice/notes/a");
	CHECK_STR(path(a, "/home/./alice/./notes/a", NULL, 0), "/home/./alice/./notes/a");
	CHECK_STR(path(a, "/home/alice/b", NULL, 0), "/home/alice/" T_B);
	CHECK_STR(path(a, "/home/b", NULL, 0), "/home/" T_B);
	/* relative paths by their position */
	CHECK_STR(path(a, "notes/a", "/home/alice", 0), "notes/a");
	CHECK_STR(path(a, "../lib/x/..", "/usr/share", 0), "../lib/x/..");
	CHECK_STR(path(a, "../../home/b", "/usr/share", 0), "../../home/" T_B);
	CHECK_STR(path(a, "notes/a", "/home/b", 0), T_NOTES "/" T_A);
	/* an unknown base hides everything */
	CHECK_STR(path(a, "notes/a", NULL, 0), T_NOTES "/" T_A);
	anon_free(a);

	CHECK_EQ(anon_check_keep("usr", err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--keep usr: not an absolute path");
	CHECK_EQ(anon_check_keep("/a/..", err, sizeof(err)), -EINVAL);
	CHECK_EQ(anon_check_keep("/usr/lib", err, sizeof(err)), 0);
	o.keep = (const char *const[]){ "//" };
	o.nkeep = 1;
	CHECK(anon_new(&o, err, sizeof(err)) == NULL);
	CHECK_EQ(errno, EINVAL);
}

static void names(void)
{
	struct anon *a = make(false, NULL, 0);
	char b[128];

	if (!a)
		return;
	CHECK_EQ(anon_comm(a, "postgres", b, sizeof(b)), 15);
	CHECK_STR(b, C_POSTGRES);
	CHECK_EQ(anon_comm(a, "", b, sizeof(b)), 0);
	CHECK_STR(b, "");
	anon_xattr_name(a, "user.secret", b, sizeof(b));
	CHECK_STR(b, "user." X_SECRET);
	anon_xattr_name(a, "trusted.secret", b, sizeof(b));
	CHECK_STR(b, "trusted." X_SECRET);
	anon_xattr_name(a, "system.posix_acl_access", b, sizeof(b));
	CHECK_STR(b, "system.posix_acl_access");
	anon_xattr_name(a, "security.selinux", b, sizeof(b));
	CHECK_STR(b, "security.selinux");
	anon_xattr_name(a, "secret", b, sizeof(b));
	CHECK_STR(b, X_SECRET);
	/* past one HMAC's 51 characters: 60 x's */
	CHECK_EQ(anon_xattr_name(a, "user.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
				 b, sizeof(b)), 65);
	CHECK_STR(b, "user." X_LONG);
	CHECK(anon_xattr_value_kept("system.posix_acl_access"));
	CHECK(!anon_xattr_value_kept("user.secret"));
	anon_free(a);
}

/* ---- a log through the pass ---- */

static const struct riot_log_header hdr = {
	.host = "db-prod-7", .kernel = "6.1.0", .arch = "x86_64", .riot_version = "0.0.9",
	.cmdline = "riot capture -o /home/alice/x.riot -- postgres", .options = "--path /home",
	.target = "postgres", .boot_to_wall_ns = 1000, .start_t = 5,
};

static void add(struct riot_writer *w, struct riot_rec r)
{
	CHECK_EQ(riot_writer_add(w, &r), 0);
}

static void write_log(const char *p, bool complete)
{
	struct riot_writer *w = riot_writer_open(p, &hdr, NULL);
	static const uint8_t acl[] = { 2, 0, 0, 0, 1, 0, 6, 0 };
	struct run_device dev = { .dev = 7, .name = "loop3", .kind = "loop",
				  .note = "loop device: backed by /home/alice/img" };
	struct run_block blk = { .window_ns = 10, .dev = &dev, .ndev = 1 };
	uint8_t *sec;
	size_t len;

	CHECK(w != NULL);
	if (!w)
		return;
	add(w, (struct riot_rec){ .type = RIOT_REC_SNAP_PROC, .sproc = { .pid = 10, .ppid = 1, .t = 5,
		.cwd = { "/home/alice" }, .comm = { "postgres" } } });
	add(w, (struct riot_rec){ .type = RIOT_REC_SNAP_FD, .sfd = { .pid = 10, .fd = 4, .t = 5,
		.path = { "pipe:[12]" }, .ftype = 0010000 } });
	add(w, (struct riot_rec){ .type = RIOT_REC_SNAP_FD, .sfd = { .pid = 10, .fd = 5, .t = 5,
		.path = { "/home/gone (deleted)" }, .ftype = 0100000, .size = 3 } });
	add(w, (struct riot_rec){ .type = RIOT_REC_SYSCALL, .sc = { .sys = RIOT_SYS_openat,
		.pid = 10, .tid = 10, .t = 10, .dur = 2, .ret = 6,
		.has = RIOT_HAS_DIRFD | RIOT_HAS_PATH | RIOT_HAS_FLAGS | RIOT_HAS_SIZE,
		.dirfd = -100, .path = { "notes" }, .flags = 0200000, .size = 4096 } });
	add(w, (struct riot_rec){ .type = RIOT_REC_SYSCALL, .sc = { .sys = RIOT_SYS_symlinkat,
		.pid = 10, .tid = 10, .t = 20, .dur = 2, .ret = 0,
		.has = RIOT_HAS_DIRFD | RIOT_HAS_PATH | RIOT_HAS_PATH2,
		.dirfd = 6, .path = { "l" }, .path2 = { "../b" } } });
	add(w, (struct riot_rec){ .type = RIOT_REC_SYSCALL, .sc = { .sys = RIOT_SYS_setxattr,
		.pid = 10, .tid = 10, .t = 30, .dur = 2, .ret = 0,
		.has = RIOT_HAS_PATH | RIOT_HAS_PATH2 | RIOT_HAS_COUNT | RIOT_HAS_VALUE,
		.path = { "notes/a" }, .path2 = { "user.secret" }, .count = 3,
		.value = (const uint8_t *)"xyz", .value_len = 3 } });
	add(w, (struct riot_rec){ .type = RIOT_REC_SYSCALL, .sc = { .sys = RIOT_SYS_setxattr,
		.pid = 10, .tid = 10, .t = 40, .dur = 2, .ret = 0,
		.has = RIOT_HAS_PATH | RIOT_HAS_PATH2 | RIOT_HAS_COUNT | RIOT_HAS_VALUE,
		.path = { "/home/alice/notes/a" }, .path2 = { "system.posix_acl_access" },
		.count = sizeof(acl), .value = acl, .value_len = sizeof(acl) } });
	add(w, (struct riot_rec){ .type = RIOT_REC_PROC, .proc = { .kind = RIOT_PROC_EXEC,
		.pid = 10, .tid = 10, .t = 50, .comm = { "postgres" }, .path = { "../b" } } });
	add(w, (struct riot_rec){ .type = RIOT_REC_DROP, .drop = { .cpu = 1, .count = 9,
		.t_first = 60, .t_last = 61 } });
	CHECK_EQ(run_block_encode(&blk, &sec, &len), 0);
	CHECK_EQ(riot_writer_end_section(w, RIOT_END_DEVICES, sec, len), 0);
	free(sec);
	if (complete)
		CHECK_EQ(riot_writer_close(w), 0);
	else
		riot_writer_abort(w);
}

static void log_pass(const char *dir)
{
	char in[512], outp[512], err[512];
	struct anon_opts o = { .key = KEY, .key_len = 4 };
	struct anon_stats st;
	struct riot_reader *r;
	struct riot_rec rec;
	const struct riot_log_header *h;
	struct run_block blk = { 0 };
	const void *sec;
	size_t len;
	int n = 0;

	snprintf(in, sizeof(in), "%s/in.riot", dir);
	snprintf(outp, sizeof(outp), "%s/out.riot", dir);
	write_log(in, true);
	CHECK_EQ(anon_log(RIOT_LOGS_ONE(in), outp, &o, &st, err, sizeof(err)), 0);
	CHECK_U64(st.records, 9);
	CHECK_U64(st.xattr_values, 1);
	CHECK_U64(st.device_notes, 1);
	CHECK(st.complete);
	r = riot_reader_open(outp, err, sizeof(err));
	CHECK(r != NULL);
	if (!r)
		return;
	h = riot_reader_header(r);
	CHECK_STR(h->host, "anonymized");
	CHECK_STR(h->cmdline, "riot anonymize");
	CHECK_STR(h->options, "");
	CHECK_STR(h->target, "");
	CHECK_STR(h->kernel, "6.1.0");
	CHECK_EQ(h->boot_to_wall_ns, 1000);
	CHECK_U64(h->start_t, 5);
	while (riot_reader_next(r, &rec) > 0) {
		if (rec.type == RIOT_REC_STRING)
			continue;
		switch (n++) {
		case 0:
			CHECK_STR(rec.sproc.cwd.s, "/" T_HOME "/" T_ALICE);
			CHECK_STR(rec.sproc.comm.s, C_POSTGRES);
			break;
		case 1:
			CHECK_STR(rec.sfd.path.s, "pipe:[12]");
			break;
		case 2:
			CHECK_STR(rec.sfd.path.s, "/" T_HOME "/" T_GONE " (deleted)");
			CHECK_U64(rec.sfd.size, 3);
			break;
		case 3:
			CHECK_STR(rec.sc.path.s, T_NOTES);
			CHECK_EQ(rec.sc.ret, 6);
			CHECK_U64(rec.sc.flags, 0200000);
			CHECK_U64(rec.sc.size, 4096);
			CHECK_U64(rec.sc.t, 10);
			break;
		case 4:	/* the target relative to the link's directory */
			CHECK_STR(rec.sc.path.s, T_L);
			CHECK_STR(rec.sc.path2.s, "../" T_B);
			CHECK_EQ(rec.sc.dirfd, 6);
			break;
		case 5:
			CHECK_STR(rec.sc.path.s, T_NOTES "/" T_A);
			CHECK_STR(rec.sc.path2.s, "user." X_SECRET);
			CHECK(!(rec.sc.has & RIOT_HAS_VALUE));
			CHECK_U64(rec.sc.count, 3);
			break;
		case 6:
			CHECK_STR(rec.sc.path2.s, "system.posix_acl_access");
			CHECK(rec.sc.has & RIOT_HAS_VALUE);
			CHECK_EQ(rec.sc.value_len, 8);
			break;
		case 7:
			CHECK_STR(rec.proc.comm.s, C_POSTGRES);
			CHECK_STR(rec.proc.path.s, "../" T_B);
			break;
		case 8:
			CHECK_U64(rec.drop.count, 9);
			break;
		}
	}
	CHECK_EQ(n, 9);
	CHECK(riot_reader_complete(r));
	sec = riot_reader_end_section(r, RIOT_END_DEVICES, &len);
	CHECK(sec && run_block_decode(sec, len, &blk) == 0);
	CHECK_EQ(blk.ndev, 1);
	if (blk.ndev == 1) {
		CHECK_STR(blk.dev[0].name, "loop3");
		CHECK_STR(blk.dev[0].note, "");
	}
	run_block_free(&blk);
	riot_reader_close(r);

	/* the output may not be the input; a failed pass leaves no output */
	CHECK_EQ(anon_log(RIOT_LOGS_ONE(in), in, &o, &st, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "the output is an input") != NULL);
	CHECK_EQ(anon_log(RIOT_LOGS_ONE("/nonexistent/in.riot"), outp, &o, &st, err, sizeof(err)), -ENOENT);

	/* a log cut short gives a copy cut short, with every record */
	write_log(in, false);
	CHECK_EQ(anon_log(RIOT_LOGS_ONE(in), outp, &o, &st, err, sizeof(err)), 0);
	CHECK(!st.complete);
	CHECK_U64(st.records, 9);
	r = riot_reader_open(outp, err, sizeof(err));
	n = 0;
	while (r && riot_reader_next(r, &rec) > 0)
		n += rec.type != RIOT_REC_STRING;
	CHECK_EQ(n, 9);
	CHECK(r && !riot_reader_complete(r));
	riot_reader_close(r);
	unlink(in);
	unlink(outp);
}

int main(void)
{
	char dir[] = "/tmp/riot-anon.XXXXXX";

	paths();
	keep_ext();
	keep();
	keep_links();
	names();
	if (mkdtemp(dir)) {
		log_pass(dir);
		rmdir(dir);
	} else {
		CHECK(!"mkdtemp");
	}
	return unit_done();
}
