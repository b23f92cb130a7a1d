/* capture/filter.c: --path PREFIX. Follows, from the records themselves,
 * each process's cwd and the path behind each fd (start state, opens, dup,
 * fcntl F_DUPFD, close, fork), so relative paths, dirfd-relative paths and
 * fd-based calls can be tested against the prefix. Paths are made absolute
 * lexically ("." and ".." folded, symlinks not followed). A directory
 * opened outside the prefix may be the base of a path that leads inside
 * ("../in/a" against it): the first kept call that names it so is preceded
 * by a SNAP_FD record of it (the fd as found open then), and from then on
 * the calls that copy and close that fd are kept, so a reader resolves
 * the path. Memory grows with the fds open at once, not with the length
 * of the capture. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture_int.h"

/* (tgid, fd) -> path, and tgid -> cwd (fd = CWD_FD), in one chained hash. */
#define CWD_FD INT32_MIN

/* What the open said of the file behind an fd. */
struct fd_facts {
	uint32_t flags, ftype;
	uint64_t size, ino, dev;
};

struct fd_entry {
	struct fd_entry *next;
	uint32_t pid;
	int32_t fd;
	bool shown;		/* outside, but logged: see the top */
	struct fd_facts facts;
	char path[];
};

struct path_filter {
	char *prefix;
	size_t plen;
	struct fd_entry **buckets;
	size_t nbuckets, count;
};

static size_t bucket_of(const struct path_filter *f, uint32_t pid, int32_t fd)
{
	uint64_t k = ((uint64_t)pid << 32) ^ (uint32_t)fd;

	k *= 0x9e3779b97f4a7c15ull;
	return (size_t)(k >> 20) & (f->nbuckets - 1);
}

static struct fd_entry **find(struct path_filter *f, uint32_t pid, int32_t fd)
{
	struct fd_entry **e = &f->buckets[bucket_of(f, pid, fd)];

	while (*e && ((*e)->pid != pid || (*e)->fd != fd))
		e = &(*e)->next;
	return e;
}

static const char *lookup(struct path_filter *f, uint32_t pid, int32_t fd)
{
	struct fd_entry *e = *find(f, pid, fd);

	return e ? e->path : NULL;
}

static void forget(struct path_filter *f, uint32_t pid, int32_t fd)
{
	struct fd_entry **e = find(f, pid, fd), *dead = *e;

	if (!dead)
		return;
	*e = dead->next;
	free(dead);
	f->count--;
}

static void grow(struct path_filter *f)
{
	size_t old_n = f->nbuckets;
	struct fd_entry **old = f->buckets, *e, *next;
	struct fd_entry **nb = calloc(old_n * 2, sizeof(*nb));

	if (!nb)
		return;		/* longer chains, still correct */
	f->buckets = nb;
	f->nbuckets = old_n * 2;
	for (size_t i = 0; i < old_n; i++) {
		for (e = old[i]; e; e = next) {
			size_t b = bucket_of(f, e->pid, e->fd);

			next = e->next;
			e->next = nb[b];
			nb[b] = e;
		}
	}
	free(old);
}

/* path NULL: forget. On allocation failure the entry is forgotten, which
 * only makes the filter keep fewer fd-based records of that fd. */
static void remember(struct path_filter *f, uint32_t pid, int32_t fd,
		     const char *path, const struct fd_facts *facts,
		     bool shown)
{
	struct fd_entry *e;
	size_t n;

	forget(f, pid, fd);
	if (!path)
		return;
	n = strlen(path) + 1;
	e = malloc(sizeof(*e) + n);
	if (!e)
		return;
	e->pid = pid;
	e->fd = fd;
	e->shown = shown;
	e->facts = facts ? *facts : (struct fd_facts){ 0 };
	memcpy(e->path, path, n);
	if (f->count >= f->nbuckets)
		grow(f);
	struct fd_entry **b = &f->buckets[bucket_of(f, pid, fd)];
	e->next = *b;
	*b = e;
	f->count++;
}

struct path_filter *path_filter_new(const char *prefix)
{
	struct path_filter *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->prefix = strdup(prefix);
	f->plen = strlen(prefix);
	f->nbuckets = 1024;
	f->buckets = calloc(f->nbuckets, sizeof(*f->buckets));
	if (!f->prefix || !f->buckets) {
		path_filter_free(f);
		return NULL;
	}
	return f;
}

void path_filter_free(struct path_filter *f)
{
	if (!f)
		return;
	for (size_t i = 0; f->buckets && i < f->nbuckets; i++) {
		struct fd_entry *e = f->buckets[i], *next;

		for (; e; e = next) {
			next = e->next;
			free(e);
		}
	}
	free(f->buckets);
	free(f->prefix);
	free(f);
}

/* base + "/" + rel with ".", ".." and repeated "/" folded, into out
 * (2 * PATH_MAX bytes). rel absolute: base ignored. */
static void join_norm(const char *base, const char *rel, char *out)
{
	size_t n = 0;
	const char *parts[2] = { rel[0] == '/' ? "" : base, rel };

	out[0] = 0;
	for (int i = 0; i < 2; i++) {
		const char *p = parts[i];

		while (*p) {
			const char *end;
			size_t len;

			while (*p == '/')
				p++;
			end = strchrnul(p, '/');
			len = end - p;
			if (len == 0 || (len == 1 && p[0] == '.')) {
				/* nothing */
			} else if (len == 2 && p[0] == '.' && p[1] == '.') {
				while (n && out[n - 1] != '/')
					n--;
				if (n)
					n--;
			} else if (n + len + 2 < 2 * 4096) {
				out[n++] = '/';
				memcpy(out + n, p, len);
				n += len;
			}
			p = end;
		}
	}
	if (!n)
		out[n++] = '/';
	out[n] = 0;
}

static bool under(const struct path_filter *f, const char *abs)
{
	if (f->plen == 1)
		return abs[0] == '/';
	return strncmp(abs, f->prefix, f->plen) == 0 &&
	       (abs[f->plen] == '/' || abs[f->plen] == 0);
}

/* The absolute path a syscall named, into out; false when its base (cwd
 * or dirfd) is unknown. */
static bool resolve(struct path_filter *f, uint32_t pid, bool has_dirfd,
		    int32_t dirfd, const char *path, char *out)
{
	const char *base;

	if (path[0] == '/') {
		join_norm("/", path, out);
		return true;
	}
	base = (!has_dirfd || dirfd == AT_FDCWD) ? lookup(f, pid, CWD_FD) :
						   lookup(f, pid, dirfd);
	if (!base || base[0] != '/')
		return false;
	join_norm(base, path, out);
	return true;
}

/* Unknown base: keep; a missing record would be a wrong number. */
static bool path_is_under(struct path_filter *f, const struct riot_syscall *sc,
			  bool second, char *buf)
{
	const char *p = second ? sc->path2.s : sc->path.s;
	bool has_dirfd = sc->has & (second ? RIOT_HAS_DIRFD2 : RIOT_HAS_DIRFD);
	int32_t dirfd = second ? sc->dirfd2 : sc->dirfd;

	if (!resolve(f, sc->pid, has_dirfd, dirfd, p, buf))
		return true;
	return under(f, buf);
}

static bool fd_is_under(struct path_filter *f, uint32_t pid, int32_t fd)
{
	const char *p = lookup(f, pid, fd);

	return p && under(f, p);
}

/* Under the prefix, or logged as a base: its fd-table calls are kept. */
static bool fd_table_keeps(struct path_filter *f, uint32_t pid, int32_t fd)
{
	struct fd_entry *e = *find(f, pid, fd);

	return e && (e->shown || under(f, e->path));
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

/* Whether a syscall touches the prefix, before the state update. */
static bool syscall_touches(struct path_filter *f, const struct riot_syscall *sc,
			    const struct riot_sys_info *si, char *buf)
{
	bool any = false;

	if (si->cls == RIOT_CLASS_PROC || si->cls == RIOT_CLASS_CWD)
		return true;
	if ((sc->has & RIOT_HAS_PATH) && path_is_under(f, sc, false, buf))
		return true;
	if ((sc->has & RIOT_HAS_PATH2) && names_path2(si) &&
	    path_is_under(f, sc, true, buf))
		return true;
	if ((sc->has & RIOT_HAS_FD) && sc->sys != RIOT_SYS_close_range) {
		any = true;
		if (fd_table_call(sc->sys) ? fd_table_keeps(f, sc->pid, sc->fd) :
					     fd_is_under(f, sc->pid, sc->fd))
			return true;
	}
	if ((sc->has & RIOT_HAS_FD2) && sc->sys != RIOT_SYS_close_range &&
	    fd_is_under(f, sc->pid, sc->fd2))
		return true;
	if (sc->sys == RIOT_SYS_close_range) {
		for (int64_t fd = sc->fd; fd <= sc->fd2 && fd < sc->fd + 65536; fd++)
			if (fd_table_keeps(f, sc->pid, (int32_t)fd))
				return true;
		return false;
	}
	/* sync and the like name no file: they concern every file. */
	return !any && !(sc->has & (RIOT_HAS_PATH | RIOT_HAS_FD | RIOT_HAS_FD2 |
				    RIOT_HAS_ARG));
}

static void copy_fd(struct path_filter *f, uint32_t pid, int32_t from,
		    int32_t to)
{
	struct fd_entry *e = *find(f, pid, from);
	struct fd_facts facts = e ? e->facts : (struct fd_facts){ 0 };
	bool shown = e && e->shown;
	char *dup = e ? strdup(e->path) : NULL;

	remember(f, pid, to, dup, &facts, shown);
	free(dup);
}

/* Follows what a completed syscall did to cwds and fd tables. */
static void syscall_update(struct path_filter *f, const struct riot_syscall *sc,
			   const struct riot_sys_info *si, char *buf)
{
	if (sc->ret < 0)
		return;
	if (si->cls == RIOT_CLASS_OPEN && (sc->has & RIOT_HAS_PATH)) {
		bool ok = resolve(f, sc->pid, sc->has & RIOT_HAS_DIRFD,
				  sc->dirfd, sc->path.s, buf);
		struct fd_facts facts = {
			(uint32_t)sc->flags, sc->ftype, sc->size, sc->ino,
			sc->dev };

		remember(f, sc->pid, (int32_t)sc->ret, ok ? buf : NULL, &facts,
			 false);
		return;
	}
	switch (sc->sys) {
	case RIOT_SYS_close:
		forget(f, sc->pid, sc->fd);
		break;
	case RIOT_SYS_close_range:
		for (int64_t fd = sc->fd; fd <= sc->fd2 && fd < sc->fd + 65536; fd++)
			forget(f, sc->pid, (int32_t)fd);
		break;
	case RIOT_SYS_dup:
	case RIOT_SYS_dup2:
	case RIOT_SYS_dup3:
		copy_fd(f, sc->pid, sc->fd, (int32_t)sc->ret);
		break;
	case RIOT_SYS_fcntl:
		if (sc->cmd == F_DUPFD || sc->cmd == F_DUPFD_CLOEXEC)
			copy_fd(f, sc->pid, sc->fd, (int32_t)sc->ret);
		break;
	case RIOT_SYS_chdir:
		if (resolve(f, sc->pid, false, 0, sc->path.s ? sc->path.s : "", buf))
			remember(f, sc->pid, CWD_FD, buf, NULL, true);
		break;
	case RIOT_SYS_fchdir:
		copy_fd(f, sc->pid, sc->fd, CWD_FD);
		break;
	}
}

/* A new process starts with a copy of its parent's fds and cwd. */
static void fork_copy(struct path_filter *f, uint32_t parent, uint32_t child)
{
	for (size_t i = 0; i < f->nbuckets; i++) {
		for (struct fd_entry *e = f->buckets[i]; e; e = e->next) {
			if (e->pid != parent)
				continue;
			char *p = strdup(e->path);
			int32_t fd = e->fd;

			/* remember() may rehash: restart the walk after. */
			if (p) {
				size_t before = f->nbuckets;

				remember(f, child, fd, p, &e->facts, e->shown);
				free(p);
				if (f->nbuckets != before) {
					fork_copy(f, parent, child);
					return;
				}
			}
		}
	}
}

static void forget_process(struct path_filter *f, uint32_t pid)
{
	for (size_t i = 0; i < f->nbuckets; i++) {
		struct fd_entry **e = &f->buckets[i];

		while (*e) {
			if ((*e)->pid == pid) {
				struct fd_entry *dead = *e;

				*e = dead->next;
				free(dead);
				f->count--;
			} else {
				e = &(*e)->next;
			}
		}
	}
}

static bool proc_keep(struct path_filter *f, const struct riot_proc *p)
{
	if (p->kind == RIOT_PROC_FORK && p->child_pid != p->pid)
		fork_copy(f, p->pid, p->child_pid);
	else if (p->kind == RIOT_PROC_EXIT && p->tid == p->pid)
		forget_process(f, p->pid);
	return true;
}

/* A kept call names a path relative to dirfd: a directory outside the
 * prefix not logged yet is logged now, as found open. */
static int show_base(struct path_filter *f, const struct riot_syscall *sc,
		     int32_t dirfd, path_filter_emit_fn emit, void *ctx)
{
	struct fd_entry *e;
	struct riot_rec r = { .type = RIOT_REC_SNAP_FD };

	if (dirfd == AT_FDCWD || !(e = *find(f, sc->pid, dirfd)) || e->shown ||
	    under(f, e->path))
		return 0;
	e->shown = true;
	r.sfd = (struct riot_snap_fd){
		.pid = sc->pid, .fd = dirfd, .t = sc->t,
		.path = { e->path, false }, .flags = e->facts.flags,
		.size = e->facts.size, .ino = e->facts.ino,
		.dev = e->facts.dev, .ftype = e->facts.ftype,
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

bool path_filter_keep(struct path_filter *f, const struct riot_rec *rec,
		      path_filter_emit_fn emit, void *ctx)
{
	static char buf[2 * 4096];
	const struct riot_sys_info *si;
	bool keep;

	switch (rec->type) {
	case RIOT_REC_SNAP_PROC:
		if (rec->sproc.cwd.s)
			remember(f, rec->sproc.pid, CWD_FD, rec->sproc.cwd.s,
				 NULL, true);
		return true;
	case RIOT_REC_SNAP_FD:
		remember(f, rec->sfd.pid, rec->sfd.fd, rec->sfd.path.s,
			 &(struct fd_facts){ rec->sfd.flags, rec->sfd.ftype,
					     rec->sfd.size, rec->sfd.ino,
					     rec->sfd.dev },
			 rec->sfd.path.s && under(f, rec->sfd.path.s));
		return rec->sfd.path.s && under(f, rec->sfd.path.s);
	case RIOT_REC_PROC:
		return proc_keep(f, &rec->proc);
	case RIOT_REC_SYSCALL:
		si = riot_sys_info(rec->sc.sys);
		if (!si)
			return true;
		keep = syscall_touches(f, &rec->sc, si, buf);
		/* emit keeps its own error: the call is kept either way. */
		if (keep)
			show_bases(f, &rec->sc, emit, ctx);
		syscall_update(f, &rec->sc, si, buf);
		/* An open's own result decides it too (dirfd unknown before). */
		if (!keep && si->cls == RIOT_CLASS_OPEN && rec->sc.ret >= 0)
			keep = fd_is_under(f, rec->sc.pid, (int32_t)rec->sc.ret);
		return keep;
	default:
		return true;
	}
}
