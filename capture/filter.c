/* capture/filter.c: --path PREFIX. The fd tables and cwds come from the
 * resolver (model/) fed every record, logged or not, so the filter sees
 * them as a reader of an unfiltered log would; a path a call names is made
 * absolute lexically (lib/pathname.h: "." and ".." folded, symlinks not
 * followed) against the cwd or dirfd the model holds. A directory opened
 * outside the prefix may be the base of a path that leads inside ("../in/a"
 * against it): the first kept call that names it so is preceded by a
 * SNAP_FD record of it (the fd as found open then), and from then on the
 * calls that copy and close that fd are kept, so a reader resolves the
 * path. Memory is the model's (live fds and processes, and the distinct
 * paths seen, up to MODEL_PATH_BYTES_MAX of text) plus one entry per fd so
 * logged. Should the model fail (out of memory, too much path text), every
 * record is kept from then on: a log longer than asked, never one short of
 * a call. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture_int.h"
#include "lib/map.h"
#include "lib/pathname.h"
#include "model/model.h"

struct path_filter {
	char *prefix;
	size_t plen;
	struct model *model;
	/* fds outside the prefix logged as a SNAP_FD: pid << 32 | fd -> the
	 * id of the file object that fd held then. An entry counts while the
	 * fd still holds that object. */
	struct u64map shown;
	int err;		/* the model's failure: every record kept since */
	char buf[MODEL_PATH_MAX];
};

static uint64_t fd_key(uint32_t pid, int32_t fd)
{
	return (uint64_t)pid << 32 | (uint32_t)fd;
}

struct path_filter *path_filter_new(const char *prefix)
{
	struct path_filter *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	map_init(&f->shown, map_seed());
	f->prefix = strdup(prefix);
	f->plen = strlen(prefix);
	f->model = model_new_tables();
	if (!f->prefix || !f->model) {
		path_filter_free(f);
		return NULL;
	}
	return f;
}

void path_filter_free(struct path_filter *f)
{
	if (!f)
		return;
	model_free(f->model);
	map_fini(&f->shown);
	free(f->prefix);
	free(f);
}

int path_filter_error(const struct path_filter *f)
{
	return f->err;
}

static bool under(const struct path_filter *f, const char *abs)
{
	if (f->plen == 1)
		return abs[0] == '/';
	return strncmp(abs, f->prefix, f->plen) == 0 &&
	       (abs[f->plen] == '/' || abs[f->plen] == 0);
}

/* The absolute path a syscall of (pid, tid) named, into f->buf; false when
 * its base (cwd or dirfd) is unknown. */
static bool resolve(struct path_filter *f, uint32_t pid, uint32_t tid, bool has_dirfd,
		    int32_t dirfd, const char *path)
{
	const char *base = "/";
	bool truncated = false;

	if (path[0] != '/')
		base = (!has_dirfd || dirfd == AT_FDCWD) ?
			       model_cwd(f->model, pid, tid) :
			       model_fd_path(f->model, pid, tid, dirfd);
	if (!base)
		return false;
	path_resolve(f->buf, sizeof(f->buf), base, strlen(base), path, &truncated);
	return true;
}

/* Unknown base: keep; a missing record would be a wrong number. */
static bool path_is_under(struct path_filter *f, const struct riot_syscall *sc,
			  bool second)
{
	const char *p = second ? sc->path2.s : sc->path.s;
	bool has_dirfd = sc->has & (second ? RIOT_HAS_DIRFD2 : RIOT_HAS_DIRFD);
	int32_t dirfd = second ? sc->dirfd2 : sc->dirfd;

	if (!resolve(f, sc->pid, sc->tid, has_dirfd, dirfd, p))
		return true;
	return under(f, f->buf);
}

static bool fd_is_under(struct path_filter *f, const struct riot_syscall *sc, int32_t fd)
{
	const char *p = model_fd_path(f->model, sc->pid, sc->tid, fd);

	return p && under(f, p);
}

/* The file object fd holds, if it was logged as a SNAP_FD: else 0. */
static uint64_t shown_file(struct path_filter *f, const struct riot_syscall *sc, int32_t fd)
{
	const struct model_file *mf = model_fd_file(f->model, sc->pid, sc->tid, fd);
	uint64_t *v = mf ? map_get(&f->shown, fd_key(sc->pid, fd)) : NULL;

	return v && *v == mf->id ? mf->id : 0;
}

/* Under the prefix, or logged as a base: its fd-table calls are kept. */
static bool fd_table_keeps(struct path_filter *f, const struct riot_syscall *sc, int32_t fd)
{
	return fd_is_under(f, sc, fd) || shown_file(f, sc, fd);
}

/* close, dup, fcntl: the calls that change the fd table. */
static bool fd_table_call(uint16_t sys)
{
	return sys == RIOT_SYS_close || sys == RIOT_SYS_dup ||
	       sys == RIOT_SYS_dup2 || sys == RIOT_SYS_dup3 ||
	       sys == RIOT_SYS_fcntl;
}

static bool names_path2(const struct riot_sys_info *si)
{
	for (int i = 0; i < 6; i++)
		if (si->args[i] == RIOT_ARG_PATH2)
			return true;
	return false;
}

/* The fds close_range names that the filter looks at (no more than 65536). */
static int64_t range_end(const struct riot_syscall *sc)
{
	return sc->fd2 < (int64_t)sc->fd + 65535 ? sc->fd2 : (int64_t)sc->fd + 65535;
}

/* Whether a syscall touches the prefix, before the state update. */
static bool syscall_touches(struct path_filter *f, const struct riot_syscall *sc,
			    const struct riot_sys_info *si)
{
	bool any = false;

	if (si->cls == RIOT_CLASS_PROC || si->cls == RIOT_CLASS_CWD)
		return true;
	if ((sc->has & RIOT_HAS_PATH) && path_is_under(f, sc, false))
		return true;
	if ((sc->has & RIOT_HAS_PATH2) && names_path2(si) && path_is_under(f, sc, true))
		return true;
	if ((sc->has & RIOT_HAS_FD) && sc->sys != RIOT_SYS_close_range) {
		any = true;
		if (fd_table_call(sc->sys) ? fd_table_keeps(f, sc, sc->fd) :
					     fd_is_under(f, sc, sc->fd))
			return true;
	}
	if ((sc->has & RIOT_HAS_FD2) && sc->sys != RIOT_SYS_close_range &&
	    fd_is_under(f, sc, sc->fd2))
		return true;
	if (sc->sys == RIOT_SYS_close_range) {
		for (int64_t fd = sc->fd; fd <= range_end(sc); fd++)
			if (fd_table_keeps(f, sc, (int32_t)fd))
				return true;
		return false;
	}
	/* sync and the like name no file: they concern every file. */
	return !any && !(sc->has & (RIOT_HAS_PATH | RIOT_HAS_FD | RIOT_HAS_FD2 |
				    RIOT_HAS_ARG));
}

/* Drops the shown entries of pid for fds in [lo, hi]. */
static void unshow(struct path_filter *f, uint32_t pid, int64_t lo, int64_t hi)
{
	for (uint32_t i = 0; f->shown.len && i < f->shown.cap;) {
		uint64_t k = f->shown.keys[i];
		int32_t fd = (int32_t)(uint32_t)k;

		if (k != MAP_EMPTY && k >> 32 == pid && fd >= lo && fd <= hi)
			map_del_at(&f->shown, i);	/* slot i again */
		else
			i++;
	}
}

/* The shown entries a call leaves: a copy of a shown fd is shown as well,
 * a closed fd forgets it. shown: the file the call's fd held if shown. */
static void shown_update(struct path_filter *f, const struct riot_syscall *sc, uint64_t shown)
{
	bool dup = sc->sys == RIOT_SYS_dup || sc->sys == RIOT_SYS_dup2 ||
		   sc->sys == RIOT_SYS_dup3 ||
		   (sc->sys == RIOT_SYS_fcntl &&
		    (sc->cmd == F_DUPFD || sc->cmd == F_DUPFD_CLOEXEC));

	if (sc->ret < 0 || !f->shown.len)
		return;
	if (sc->sys == RIOT_SYS_close)
		map_del(&f->shown, fd_key(sc->pid, sc->fd), NULL);
	else if (sc->sys == RIOT_SYS_close_range)
		unshow(f, sc->pid, sc->fd, range_end(sc));
	else if (dup && (!shown || map_put(&f->shown, fd_key(sc->pid, (int32_t)sc->ret), shown)))
		map_del(&f->shown, fd_key(sc->pid, (int32_t)sc->ret), NULL);
}

/* A new process starts with its parent's shown fds; an ended one forgets
 * its own. */
static void shown_proc(struct path_filter *f, const struct riot_proc *p)
{
	if (!f->shown.len)
		return;
	if (p->kind == RIOT_PROC_FORK && p->child_pid != p->pid) {
		struct u64map copy;

		if (map_copy(&copy, &f->shown))
			return;	/* fewer fd-table calls of those fds kept */
		for (uint32_t i = 0; i < copy.cap; i++)
			if (copy.keys[i] != MAP_EMPTY && copy.keys[i] >> 32 == p->pid)
				map_put(&f->shown, (uint64_t)p->child_pid << 32 |
							   (uint32_t)copy.keys[i],
					copy.vals[i]);
		map_fini(&copy);
	} else if (p->kind == RIOT_PROC_EXIT && p->tid == p->pid) {
		unshow(f, p->pid, INT32_MIN, INT32_MAX);
	}
}

/* A kept call names a path relative to dirfd: a directory outside the
 * prefix not logged yet is logged now, as found open. */
static int show_base(struct path_filter *f, const struct riot_syscall *sc,
		     int32_t dirfd, path_filter_emit_fn emit, void *ctx)
{
	const struct model_file *mf;
	const char *path;
	struct riot_rec r = { .type = RIOT_REC_SNAP_FD };

	if (dirfd == AT_FDCWD || !(mf = model_fd_file(f->model, sc->pid, sc->tid, dirfd)) ||
	    !(path = model_fd_path(f->model, sc->pid, sc->tid, dirfd)) ||
	    under(f, path) || shown_file(f, sc, dirfd))
		return 0;
	if (map_put(&f->shown, fd_key(sc->pid, dirfd), mf->id))
		return -ENOMEM;
	r.sfd = (struct riot_snap_fd){
		.pid = sc->pid, .fd = dirfd, .t = sc->t,
		.path = { path, false }, .flags = (uint32_t)mf->open_flags,
		.size = mf->size, .ino = mf->ino, .dev = mf->dev, .ftype = mf->ftype,
	};
	return emit(ctx, &r);
}

static int show_bases(struct path_filter *f, const struct riot_syscall *sc,
		      path_filter_emit_fn emit, void *ctx)
{
	int err = 0;

	if ((sc->has & RIOT_HAS_DIRFD) && sc->path.s && sc->path.s[0] != '/')
		err = show_base(f, sc, sc->dirfd, emit, ctx);
	if (!err && (sc->has & RIOT_HAS_DIRFD2) && sc->path2.s &&
	    sc->path2.s[0] != '/')
		err = show_base(f, sc, sc->dirfd2, emit, ctx);
	if (!err && sc->sys == RIOT_SYS_fchdir)
		err = show_base(f, sc, sc->fd, emit, ctx);
	return err;
}

static bool syscall_keep(struct path_filter *f, const struct riot_rec *rec,
			 path_filter_emit_fn emit, void *ctx)
{
	const struct riot_syscall *sc = &rec->sc;
	const struct riot_sys_info *si = riot_sys_info(sc->sys);
	uint64_t shown;
	bool keep;

	if (!si)
		return true;
	keep = syscall_touches(f, sc, si);
	/* emit keeps its own error: the call is kept either way. */
	if (keep)
		show_bases(f, sc, emit, ctx);
	shown = f->shown.len && (sc->has & RIOT_HAS_FD) ? shown_file(f, sc, sc->fd) : 0;
	if ((f->err = model_apply(f->model, rec, NULL)))
		return true;
	shown_update(f, sc, shown);
	/* An open's own result decides it too (dirfd unknown before). */
	if (!keep && si->cls == RIOT_CLASS_OPEN && sc->ret >= 0)
		keep = fd_is_under(f, sc, (int32_t)sc->ret);
	return keep;
}

bool path_filter_keep(struct path_filter *f, const struct riot_rec *rec,
		      path_filter_emit_fn emit, void *ctx)
{
	bool keep = true;

	if (f->err)
		return true;
	switch (rec->type) {
	case RIOT_REC_SYSCALL:
		return syscall_keep(f, rec, emit, ctx);
	case RIOT_REC_SNAP_FD:
		keep = rec->sfd.path.s && under(f, rec->sfd.path.s);
		break;
	case RIOT_REC_PROC:
		shown_proc(f, &rec->proc);
		break;
	}
	if ((f->err = model_apply(f->model, rec, NULL)))
		return true;
	return keep;
}
