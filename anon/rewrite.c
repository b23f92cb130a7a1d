/* anon/rewrite.c: a log streamed into its anonymised copy (anon_log()).
 *
 * Each record is read, fed as it is to the resolver (model/), which knows
 * the cwd and the dirfds its relative paths start from, then copied with
 * its strings rewritten (names.c) and written. Memory: one block of each
 * log, two string buffers, and the resolver's state. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "anon/anon.h"
#include "formats/devices.h"
#include "formats/log.h"
#include "model/model.h"

#define STR_BUF (RIOT_STR_LEN_MAX + 1)

struct pass {
	struct riot_reader *rd;
	struct riot_writer *w;
	struct model *m;
	struct anon *a;
	struct anon_stats *st;
	char *buf[2];			/* the rewritten strings of a record */
	char comm[ANON_COMM_LEN + 1];
	char dir[MODEL_PATH_MAX];	/* a symlink's directory */
};

/* What path2 of syscall sys holds: RIOT_ARG_PATH2, _TARGET, _LINKBUF,
 * _XNAME, or RIOT_ARG_NONE (a syscall this riot does not know). */
static enum riot_arg path2_role(unsigned sys)
{
	const struct riot_sys_info *si = riot_sys_info(sys);

	for (unsigned i = 0; si && i < 6; i++)
		if (si->args[i] == RIOT_ARG_PATH2 || si->args[i] == RIOT_ARG_TARGET ||
		    si->args[i] == RIOT_ARG_LINKBUF || si->args[i] == RIOT_ARG_XNAME)
			return si->args[i];
	return RIOT_ARG_NONE;
}

/* The directory a relative path of (pid, tid) starts from, as the resolver
 * will see it: dirfd's file, or the cwd; NULL when unknown. */
static const char *base_of(struct pass *p, uint32_t pid, uint32_t tid, bool has_dirfd,
			   int32_t dirfd)
{
	if (has_dirfd && dirfd != AT_FDCWD)
		return model_fd_path(p->m, pid, tid, dirfd);
	return model_cwd(p->m, pid, tid);
}

/* The directory of a resolved path (a symlink: its target is relative to
 * it), or NULL. */
static const char *dir_of(struct pass *p, const char *path, bool truncated)
{
	size_t n;

	if (!path || path[0] != '/' || truncated || (n = strlen(path)) >= sizeof(p->dir))
		return NULL;
	memcpy(p->dir, path, n + 1);
	while (n > 1 && p->dir[n - 1] != '/')
		n--;
	p->dir[n > 1 ? n - 1 : 1] = '\0';
	return p->dir;
}

static void put_path(struct pass *p, struct riot_str *s, const char *base, unsigned flags,
		     int slot)
{
	bool cut = false;
	size_t n;

	if (!s->s)
		return;
	n = anon_path(p->a, s->s, base, flags, p->buf[slot], STR_BUF, &cut);
	if (cut)
		p->st->cut++;
	if (n >= MODEL_PATH_MAX && strnlen(s->s, MODEL_PATH_MAX) < MODEL_PATH_MAX)
		p->st->long_paths++;
	s->s = p->buf[slot];
	s->truncated |= cut;
	p->st->strings++;
}

static void put_comm(struct pass *p, struct riot_str *s)
{
	if (!s->s)
		return;
	anon_comm(p->a, s->s, p->comm, sizeof(p->comm));
	s->s = p->comm;
	s->truncated = false;
	p->st->strings++;
}

/* The kernel's text for an fd that names no file ("pipe:[12]",
 * "anon_inode:[eventfd]"): it names nothing of the user's. */
static bool kernel_text(const char *s)
{
	const char *c = s;

	while ((*c >= 'a' && *c <= 'z') || *c == '_')
		c++;
	return c > s && *c == ':' && !strchr(c, '/');
}

static int syscall_rec(struct pass *p, struct riot_rec *r)
{
	struct riot_syscall *sc = &r->sc;
	enum riot_arg role = path2_role(sc->sys);
	const char *base1 = NULL, *base2 = NULL;
	struct model_op op;
	int rc;

	if (sc->path.s && sc->path.s[0] != '/')
		base1 = base_of(p, sc->pid, sc->tid, sc->has & RIOT_HAS_DIRFD, sc->dirfd);
	if (sc->path2.s && sc->path2.s[0] != '/' && role == RIOT_ARG_PATH2)
		base2 = base_of(p, sc->pid, sc->tid, sc->has & RIOT_HAS_DIRFD2, sc->dirfd2);
	rc = model_apply(p->m, r, &op);
	if (rc)
		return rc;
	if (role == RIOT_ARG_TARGET || role == RIOT_ARG_LINKBUF)
		base2 = dir_of(p, op.path, op.flags & MODEL_OP_PATH_TRUNCATED);
	/* the value first: it is judged by the name as recorded */
	if ((sc->has & RIOT_HAS_VALUE) && role == RIOT_ARG_XNAME &&
	    !anon_xattr_value_kept(sc->path2.s ? sc->path2.s : "")) {
		sc->has &= ~RIOT_HAS_VALUE;
		sc->value = NULL;
		sc->value_len = 0;
		p->st->xattr_values++;
	}
	put_path(p, &sc->path, base1, 0, 0);
	if (sc->path2.s && role == RIOT_ARG_XNAME) {
		anon_xattr_name(p->a, sc->path2.s, p->buf[1], STR_BUF);
		sc->path2.s = p->buf[1];
		p->st->strings++;
	} else {
		put_path(p, &sc->path2, base2, 0, 1);
	}
	return 0;
}

/* One record rewritten in place (its strings point into p's buffers). */
static int rewrite(struct pass *p, struct riot_rec *r)
{
	const char *base = NULL;
	int rc;

	switch (r->type) {
	case RIOT_REC_SYSCALL:
		return syscall_rec(p, r);
	case RIOT_REC_PROC:
		if (r->proc.kind == RIOT_PROC_EXEC && r->proc.path.s && r->proc.path.s[0] != '/')
			base = model_cwd(p->m, r->proc.pid, r->proc.tid);
		rc = model_apply(p->m, r, NULL);
		put_path(p, &r->proc.path, base, 0, 0);
		put_comm(p, &r->proc.comm);
		return rc;
	case RIOT_REC_SNAP_PROC:
		rc = model_apply(p->m, r, NULL);
		put_path(p, &r->sproc.cwd, NULL, ANON_PATH_FD, 0);
		put_comm(p, &r->sproc.comm);
		return rc;
	case RIOT_REC_SNAP_FD:
		rc = model_apply(p->m, r, NULL);
		if (r->sfd.path.s && !kernel_text(r->sfd.path.s))
			put_path(p, &r->sfd.path, NULL, ANON_PATH_FD, 0);
		return rc;
	default:
		return model_apply(p->m, r, NULL);
	}
}

/* The command line the copy's header names as its writer: the options
 * that shaped its names, not the files (their names may say too much). */
static char *cmdline_of(const struct anon_opts *o)
{
	size_t len = 64;
	char *s;

	for (unsigned i = 0; i < o->nkeep; i++)
		len += strlen(o->keep[i]) + 8;
	s = malloc(len);
	if (!s)
		return NULL;
	snprintf(s, len, "riot anonymize%s", o->keep_ext ? " --keep-ext" : "");
	for (unsigned i = 0; i < o->nkeep; i++) {
		size_t n = strlen(s);

		snprintf(s + n, len - n, " --keep %s", o->keep[i]);
	}
	return s;
}

/* The devices section (riot capture --block) with its notes dropped: they
 * name backing files. */
static int copy_devices(struct pass *p)
{
	size_t len, outlen;
	const void *sec = riot_reader_end_section(p->rd, RIOT_END_DEVICES, &len);
	struct run_block b = { 0 };
	uint8_t *out = NULL;
	int rc;

	if (!sec)
		return 0;
	rc = run_block_decode(sec, len, &b);
	for (unsigned i = 0; !rc && i < b.ndev; i++)
		if (b.dev[i].note[0]) {
			b.dev[i].note[0] = '\0';
			p->st->device_notes++;
		}
	rc = rc ? rc : run_block_encode(&b, &out, &outlen);
	rc = rc ? rc : riot_writer_end_section(p->w, RIOT_END_DEVICES, out, outlen);
	free(out);
	run_block_free(&b);
	return rc;
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

static int pass_run(struct pass *p, const char *in, const char *out, const struct anon_opts *o,
		    char *err, size_t errlen)
{
	const struct riot_log_header *h = riot_reader_header(p->rd);
	/* what describes the machine and the clock stays (the probe time
	 * too); what names the host, the program, its files or the user goes */
	struct riot_log_header oh = {
		.host = "anonymized", .kernel = h->kernel, .arch = h->arch,
		.riot_version = RIOT_VERSION,
		.boot_to_wall_ns = h->boot_to_wall_ns, .start_t = h->start_t,
		.probe_ns = h->probe_ns, .probe_calls = h->probe_calls,
		.probe_untraced_ns = h->probe_untraced_ns,
		.probe_recorded_ns = h->probe_recorded_ns,
		.fallbacks = riot_fmt_has(h, 8) ? h->fallbacks : NULL,
	};
	struct riot_rec r;
	char *cmdline = cmdline_of(o);
	int rc;

	if (!cmdline) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	oh.cmdline = cmdline;
	p->w = riot_writer_open(out, &oh, NULL);
	free(cmdline);
	if (!p->w) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", out, strerror(-rc));
		return rc;
	}
	while ((rc = riot_reader_next(p->rd, &r)) > 0) {
		if (r.type == RIOT_REC_STRING)
			continue;	/* the writer defines its own */
		if (r.type >= RIOT_REC_TYPE_MAX) {
			p->st->unknown++;
			continue;
		}
		rc = rewrite(p, &r);
		if (rc) {
			snprintf(err, errlen, "%s: %s", in, model_strerror(rc));
			return rc;
		}
		rc = riot_writer_add(p->w, &r);
		if (rc) {
			snprintf(err, errlen, "%s: %s", out, strerror(-rc));
			return rc;
		}
		p->st->records++;
	}
	if (rc < 0) {
		snprintf(err, errlen, "%s", riot_reader_error(p->rd));
		return rc;
	}
	p->st->complete = riot_reader_complete(p->rd);
	if (p->st->complete && (rc = copy_devices(p))) {
		snprintf(err, errlen, "%s: the end record's device section: %s", in,
			 rc == -EBADMSG ? "malformed" : strerror(-rc));
		return rc;
	}
	return 0;
}

/* The first pass: the symlinks the log shows, each at its resolved path
 * (a readlink that succeeded, a symlink call that did), for anon_path()
 * to follow. Only names under --keep depend on them. */
static int find_links(struct pass *p, const struct riot_logs *in, char *err, size_t errlen)
{
	struct riot_reader *rd = riot_reader_open_logs(in, err, errlen);
	struct model *m = model_new();
	struct riot_rec r;
	int rc = m ? 0 : -ENOMEM;

	if (!rd) {
		model_free(m);
		return -errno;
	}
	while (!rc && (rc = riot_reader_next(rd, &r)) > 0) {
		enum riot_arg role;
		struct model_op op;

		rc = 0;
		if (r.type >= RIOT_REC_TYPE_MAX || r.type == RIOT_REC_STRING)
			continue;
		rc = model_apply(m, &r, &op);
		if (rc || r.type != RIOT_REC_SYSCALL)
			continue;
		role = path2_role(r.sc.sys);
		if ((role == RIOT_ARG_TARGET || role == RIOT_ARG_LINKBUF) && r.sc.ret >= 0 &&
		    r.sc.path2.s && !r.sc.path2.truncated && op.path &&
		    !(op.flags & MODEL_OP_PATH_TRUNCATED))
			rc = anon_add_link(p->a, op.path, r.sc.path2.s);
	}
	if (rc == -ENOMEM || rc == -E2BIG)
		snprintf(err, errlen, "%s: %s", in->paths[0], model_strerror(rc));
	else if (rc < 0)
		snprintf(err, errlen, "%s", riot_reader_error(rd));
	riot_reader_close(rd);
	model_free(m);
	return rc < 0 ? rc : 0;
}

int anon_log(const struct riot_logs *in, const char *out, const struct anon_opts *o,
	     struct anon_stats *st, char *err, size_t errlen)
{
	struct pass p = { .st = st };
	int rc = 0;

	memset(st, 0, sizeof(*st));
	for (unsigned i = 0; i < in->n; i++) {
		if (same_file(in->paths[i], out)) {
			snprintf(err, errlen, "%s: the output is an input", out);
			return -EINVAL;
		}
	}
	p.a = anon_new(o, err, errlen);
	if (!p.a)
		return -errno;
	p.m = model_new();
	p.buf[0] = malloc(STR_BUF);
	p.buf[1] = malloc(STR_BUF);
	if (!p.m || !p.buf[0] || !p.buf[1]) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	if (o->nkeep && (rc = find_links(&p, in, err, errlen)) < 0)
		goto out;
	p.rd = riot_reader_open_logs(in, err, errlen);
	if (!p.rd) {
		rc = -errno;
		goto out;
	}
	rc = pass_run(&p, in->paths[0], out, o, err, errlen);
	st->comps = *anon_counts(p.a);
	if (p.w) {
		if (rc || !st->complete) {
			riot_writer_abort(p.w);
		} else if ((rc = riot_writer_close(p.w))) {
			snprintf(err, errlen, "%s: %s", out, strerror(-rc));
		}
		if (rc)
			unlink(out);
	}
out:
	riot_reader_close(p.rd);
	model_free(p.m);
	anon_free(p.a);
	free(p.buf[0]);
	free(p.buf[1]);
	return rc;
}
