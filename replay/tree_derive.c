/* replay/tree_derive.c: derives the initial tree from a log (rules in
 * replay/init.h). One pass through riot_reader and the model; one entry per
 * distinct path (and per ancestor of one), plus a read position per live
 * open file description. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/log.h"
#include "formats/semantics.h"
#include "lib/grow.h"
#include "lib/map.h"
#include "model/model.h"
#include "replay/tree_derive.h"

enum ent_state { ST_UNKNOWN, ST_PRESENT, ST_ABSENT };
#define KIND_SPECIAL 8	/* socket, fifo, device: beyond enum init_kind */

/* One per path and ancestor: 16 bytes, as a log may name millions of
 * paths of which few are present; what only present ones have lies in a
 * struct tree_extra of their own. */
struct tree_ent {
	uint32_t path;		/* the table model's path id */
	uint32_t parent;	/* index; 0: directly beneath "/" */
	uint32_t extra;		/* index in the table's extras; 0: none */
	uint8_t state;		/* ST_*: decided by the first evidence */
	uint8_t kind;		/* enum init_kind, KIND_SPECIAL, 0 unknown */
	bool kind_sure : 1;	/* kind from an S_IFMT fact or a readlink */
	bool changed : 1;	/* the workload changed it: what it observes
				 * after that says nothing about the start */
	bool truncated : 1;	/* a cut path: no evidence is taken from it */
	bool pseudo : 1;	/* under /proc, /sys, /dev */
	bool has_perm : 1;	/* perm seen before any change of it */
	bool perm_changed : 1;	/* the workload changed the mode (chmod) */
	bool executable : 1;	/* access(X_OK) succeeded on it */
};

struct tree_extra {
	uint64_t size;
	char *target;
	struct init_xattr *xattrs;
	uint32_t perm;
};

/* Entries by model path id. The model (the builder's) holds every path
 * string, the ancestors' too: one copy of each path, whatever reads it. */
struct tree_table {
	struct tree_ent *ents;	/* ents[0] unused */
	uint32_t n, cap;
	struct tree_extra *extras;	/* extras[0] unused */
	uint32_t nextras, extras_cap;
	uint32_t *by_pid, npid;
	struct model *m;	/* owned */
};

struct builder {
	struct tree_table *tt;
	/* Read positions per open file description, keyed by model file id.
	 * Swept of the closed ones when it reaches sweep_at entries, so it
	 * stays proportional to the live descriptions. */
	struct u64map pos;
	uint32_t sweep_at;
	struct model *m;
	int err;		/* sticky -ENOMEM */
};

static uint64_t hash_path(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

uint64_t init_path_seed(const char *path, uint64_t seed)
{
	uint64_t z = hash_path(path, strlen(path)) ^ seed;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#define ENT(tt, i) (&(tt)->ents[i])

static const char *ent_path(const struct tree_table *tt, const struct tree_ent *e)
{
	return model_path(tt->m, e->path);
}

/* What e has beyond its state; NULL when it has none yet. */
static struct tree_extra *extra_get(const struct tree_table *tt, const struct tree_ent *e)
{
	return e->extra ? &tt->extras[e->extra] : NULL;
}

/* The same, made when missing; NULL when out of memory. The pointer lasts
 * until the next one is made. */
static struct tree_extra *extra_make(struct tree_table *tt, struct tree_ent *e)
{
	if (e->extra)
		return &tt->extras[e->extra];
	if (GROW(tt->extras, tt->extras_cap, (size_t)tt->nextras + 2, 64))
		return NULL;
	if (!tt->nextras)
		tt->nextras = 1;
	e->extra = tt->nextras++;
	return &tt->extras[e->extra];
}

static bool is_pseudo(const char *p, size_t n)
{
	static const char *const fs[] = { "/proc", "/sys", "/dev" };

	for (unsigned k = 0; k < 3; k++) {
		size_t l = strlen(fs[k]);

		if (n >= l && memcmp(p, fs[k], l) == 0 && (n == l || p[l] == '/'))
			return true;
	}
	return false;
}

static int table_get(struct tree_table *tt, const char *p, size_t n, uint32_t *out);

/* The entry of path id, made (after its ancestors) when new. */
static int table_add(struct tree_table *tt, uint32_t id, uint32_t *out)
{
	const char *p = model_path(tt->m, id), *slash;
	size_t n = strlen(p);
	uint32_t parent = 0;
	struct tree_ent *e;
	int rc;

	slash = memrchr(p, '/', n);
	/* the parent first */
	if (slash && slash > p && (rc = table_get(tt, p, (size_t)(slash - p), &parent)) < 0)
		return rc;
	if (GROW(tt->ents, tt->cap, (size_t)tt->n + 2, 1024) ||
	    GROW(tt->by_pid, tt->npid, (size_t)id + 1, 1024))
		return -ENOMEM;
	e = ENT(tt, ++tt->n);
	memset(e, 0, sizeof(*e));
	e->path = id;
	e->parent = parent;
	e->pseudo = is_pseudo(p, n);
	tt->by_pid[id] = tt->n;
	*out = tt->n;
	return 0;
}

/* The entry of path p[0..n), made (with its ancestors) when new. "/" is 0. */
static int table_get(struct tree_table *tt, const char *p, size_t n, uint32_t *out)
{
	uint32_t id;

	*out = 0;
	if (n <= 1)
		return 0;
	id = model_path_intern(tt->m, p, n);
	if (!id)
		return -errno;
	if (id < tt->npid && tt->by_pid[id]) {
		*out = tt->by_pid[id];
		return 0;
	}
	return table_add(tt, id, out);
}

static void table_free(struct tree_table *tt)
{
	if (!tt)
		return;
	for (uint32_t i = 1; i <= tt->n; i++) {
		const struct tree_extra *ex = extra_get(tt, ENT(tt, i));

		if (!ex)
			continue;
		free(ex->target);
		for (struct init_xattr *x = ex->xattrs, *n; x; x = n) {
			n = (struct init_xattr *)x->next;
			free((char *)x->name);
			free(x);
		}
	}
	free(tt->ents);
	free(tt->extras);
	free(tt->by_pid);
	model_free(tt->m);
	free(tt);
}

/* The entry of a model path id; 0 for none (no path, not absolute). */
static uint32_t ent_of_path(struct builder *b, uint32_t pid, const char *path, bool truncated)
{
	struct tree_table *tt = b->tt;
	uint32_t i = 0;

	if (!pid || !path || path[0] != '/' || b->err)
		return 0;
	if (pid < tt->npid && tt->by_pid[pid])
		i = tt->by_pid[pid];
	else if (strlen(path) <= 1)
		return 0;	/* "/" */
	else if ((b->err = table_add(tt, pid, &i)) < 0)
		return 0;
	if (i && truncated)
		ENT(tt, i)->truncated = true;
	return i;
}

static uint32_t op_ent(struct builder *b, const struct model_op *op, bool second)
{
	if (second)
		return ent_of_path(b, op->path2_id, op->path2,
				   op->flags & MODEL_OP_PATH2_TRUNCATED);
	return ent_of_path(b, op->path_id, op->path, op->flags & MODEL_OP_PATH_TRUNCATED);
}

/* ---- evidence ---- */

/* Every ancestor of a path in use exists; one with no evidence of its own
 * was there at the start, as a directory. Stops at the first ancestor whose
 * state is known (its own ancestors were handled then) and never looks
 * through a symlink. */
static void mark_ancestors(struct tree_table *tt, uint32_t i)
{
	if (ENT(tt, i)->pseudo)
		return;
	for (uint32_t p = ENT(tt, i)->parent; p; p = ENT(tt, p)->parent) {
		struct tree_ent *e = ENT(tt, p);

		if (e->kind == INIT_SYMLINK)
			return;
		if (e->state == ST_PRESENT && !e->kind)
			e->kind = INIT_DIR;
		if (e->state != ST_UNKNOWN)
			return;
		e->state = ST_PRESENT;
		e->kind = INIT_DIR;
	}
}

static void note_present(struct builder *b, uint32_t i, uint8_t kind, bool sure)
{
	struct tree_ent *e;

	if (!i || (e = ENT(b->tt, i))->truncated)
		return;
	if (e->state == ST_UNKNOWN)
		e->state = ST_PRESENT;
	if (e->state == ST_PRESENT && !e->changed && kind) {
		if (sure && !e->kind_sure) {
			e->kind = kind;
			e->kind_sure = true;
		} else if (!e->kind) {
			e->kind = kind;
		}
	}
	mark_ancestors(b->tt, i);
}

/* created: the workload made it (its ancestors existed then); otherwise it
 * failed with ENOENT: expected absent, nothing said about ancestors. */
static void note_absent(struct builder *b, uint32_t i, bool created)
{
	struct tree_ent *e;

	if (!i || (e = ENT(b->tt, i))->truncated)
		return;
	if (e->state == ST_UNKNOWN)
		e->state = ST_ABSENT;
	if (created) {
		e->changed = true;
		mark_ancestors(b->tt, i);
	}
}

static void note_size(struct builder *b, uint32_t i, uint64_t size)
{
	struct tree_ent *e = i ? ENT(b->tt, i) : NULL;
	const struct tree_extra *ex;
	struct tree_extra *w;

	if (!e || e->state != ST_PRESENT || e->changed || e->truncated)
		return;
	ex = extra_get(b->tt, e);
	if (size <= (ex ? ex->size : 0))
		return;
	if (!(w = extra_make(b->tt, e)))
		b->err = -ENOMEM;
	else
		w->size = size;
}

/* The permission bits the workload saw first, before it changed them. */
static void note_perm(struct builder *b, uint32_t i, uint32_t perm)
{
	struct tree_ent *e = i ? ENT(b->tt, i) : NULL;

	struct tree_extra *w;

	if (e && e->state == ST_PRESENT && !e->has_perm && !e->perm_changed && !e->truncated) {
		if (!(w = extra_make(b->tt, e))) {
			b->err = -ENOMEM;
			return;
		}
		w->perm = perm & 07777;
		e->has_perm = true;
	}
}

static void note_changed(struct builder *b, uint32_t i)
{
	if (i)
		ENT(b->tt, i)->changed = true;
}

static void note_symlink(struct builder *b, uint32_t i, const char *target)
{
	struct tree_ent *e;
	struct tree_extra *w;

	note_present(b, i, 0, false);
	if (!i || (e = ENT(b->tt, i))->truncated || e->state != ST_PRESENT || e->changed)
		return;
	e->kind = INIT_SYMLINK;
	e->kind_sure = true;
	if (!target || (extra_get(b->tt, e) && extra_get(b->tt, e)->target))
		return;
	if (!(w = extra_make(b->tt, e)) || !(w->target = strdup(target)))
		b->err = -ENOMEM;
}

static uint8_t kind_of_ftype(uint32_t ftype)
{
	switch (ftype & S_IFMT) {
	case 0:
		return 0;
	case S_IFREG:
		return INIT_FILE;
	case S_IFDIR:
		return INIT_DIR;
	case S_IFLNK:
		return INIT_SYMLINK;
	default:
		return KIND_SPECIAL;
	}
}

/* ---- read positions ---- */

/* The position of file id, starting at its snapshot position (0 for a
 * file opened in the trace). NULL on ENOMEM. */
static uint64_t *pos_of(struct builder *b, uint64_t id)
{
	const struct model_file *f;
	uint64_t *v = map_get(&b->pos, id);

	if (v)
		return v;
	if (b->pos.len >= b->sweep_at) {
		for (uint32_t i = 0; i < b->pos.cap;) {
			if (b->pos.keys[i] != MAP_EMPTY && !model_file(b->m, b->pos.keys[i]))
				map_del_at(&b->pos, i);	/* slot i refilled: look again */
			else
				i++;
		}
		b->sweep_at = b->pos.len * 2 > 64 ? b->pos.len * 2 : 64;
	}
	f = model_file(b->m, id);
	if (map_put(&b->pos, id, f ? f->pos : 0))
		return NULL;
	return map_get(&b->pos, id);
}

/* Advances the position of a non-positional transfer; returns the end of
 * the byte range it covered. */
static uint64_t transfer_end(struct builder *b, uint64_t file, bool has_off, uint64_t off,
			     uint64_t bytes)
{
	uint64_t *pos;

	if (has_off && off != UINT64_MAX)
		return off + bytes;
	if (!file)
		return 0;
	pos = pos_of(b, file);
	if (!pos) {
		b->err = -ENOMEM;
		return 0;
	}
	*pos += bytes;
	return *pos;
}

/* ---- syscalls ---- */

/* Whether a stat describes a final symlink itself (STAT_SELF: lstat,
 * fstat; STAT_AT by its flags), not its target. */
static bool is_nofollow_stat(const struct riot_syscall *sc, unsigned init)
{
	return init == RIOT_INIT_STAT_SELF ||
	       (init == RIOT_INIT_STAT_AT && (sc->flags & (AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)));
}

static void on_open(struct builder *b, const struct riot_syscall *sc, const struct model_op *op)
{
	uint64_t flags = riot_open_flags(sc);
	uint32_t i = op_ent(b, op, false);
	uint8_t kind;
	bool created;

	if (sc->ret < 0) {
		if (sc->ret == -ENOENT)
			note_absent(b, i, false);
		else if (sc->ret == -EEXIST)
			note_present(b, i, 0, false);
		else if (sc->ret == -EISDIR)
			note_present(b, i, INIT_DIR, true);
		return;
	}
	if ((flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
		created = true;
	else if (sc->has & RIOT_HAS_CREATED)
		created = sc->created;
	else
		created = flags & O_CREAT;
	if (created) {
		note_absent(b, i, true);
		return;
	}
	kind = sc->has & RIOT_HAS_FTYPE ? kind_of_ftype(sc->ftype) :
	       flags & O_DIRECTORY ? INIT_DIR : 0;
	note_present(b, i, kind, sc->has & RIOT_HAS_FTYPE);
	if (sc->has & RIOT_HAS_SIZE)
		note_size(b, i, sc->size);
	if (sc->has & RIOT_HAS_PERM)
		note_perm(b, i, sc->perm);
	if (flags & O_TRUNC && (flags & O_ACCMODE) != O_RDONLY)
		note_changed(b, i);
}

static void on_stat(struct builder *b, const struct riot_syscall *sc, const struct model_op *op,
		    unsigned init)
{
	uint32_t i = op_ent(b, op, false);
	uint8_t kind;

	if (!i)
		return;
	if (sc->ret < 0) {
		if (sc->ret == -ENOENT)
			note_absent(b, i, false);
		return;
	}
	/* a followed stat of a known symlink describes its target */
	if (!is_nofollow_stat(sc, init) && ENT(b->tt, i)->kind == INIT_SYMLINK) {
		note_present(b, i, 0, false);
		return;
	}
	if (init == RIOT_INIT_ACCESS && (sc->mode & X_OK) &&
	    !ENT(b->tt, i)->perm_changed)
		ENT(b->tt, i)->executable = true;
	kind = sc->has & RIOT_HAS_FTYPE ? kind_of_ftype(sc->ftype) : 0;
	note_present(b, i, kind, kind != 0);
	if (sc->has & RIOT_HAS_SIZE && kind == INIT_FILE)
		note_size(b, i, sc->size);
	if (sc->has & RIOT_HAS_PERM && kind != INIT_SYMLINK)
		note_perm(b, i, sc->perm);
}

static void on_read(struct builder *b, const struct riot_syscall *sc, const struct model_op *op)
{
	uint64_t end;
	uint32_t i;

	if (sc->ret <= 0)
		return;
	end = transfer_end(b, op->file, sc->has & RIOT_HAS_OFF, sc->off, (uint64_t)sc->ret);
	i = op_ent(b, op, false);
	note_present(b, i, 0, false);
	note_size(b, i, end);
}

static void on_write(struct builder *b, const struct riot_syscall *sc, const struct model_op *op,
		     unsigned init)
{
	uint32_t i;

	if (sc->ret < 0) {
		if (init == RIOT_INIT_TRUNCATE && sc->ret == -ENOENT)
			note_absent(b, op_ent(b, op, false), false);
		return;
	}
	i = op_ent(b, op, false);
	if (init == RIOT_INIT_TRUNCATE)
		note_present(b, i, 0, false);
	if (init == RIOT_INIT_WRITE_POS)
		transfer_end(b, op->file, false, 0, (uint64_t)sc->ret);
	note_changed(b, i);
}

static void on_copy(struct builder *b, const struct riot_syscall *sc, const struct model_op *op)
{
	uint64_t end;
	uint32_t in;

	if (sc->ret <= 0)
		return;
	end = transfer_end(b, op->file, sc->has & RIOT_HAS_OFF, sc->off, (uint64_t)sc->ret);
	in = op_ent(b, op, false);
	note_present(b, in, 0, false);
	note_size(b, in, end);
	transfer_end(b, op->file2, sc->has & RIOT_HAS_OFF2, sc->off2, (uint64_t)sc->ret);
	note_changed(b, op_ent(b, op, true));
}

/* The generic rule for a call naming a path: success shows it existed,
 * ENOENT that it was expected absent. */
static void on_path_call(struct builder *b, const struct riot_syscall *sc,
			 const struct model_op *op, uint8_t kind)
{
	uint32_t i = op_ent(b, op, false);

	if (sc->ret >= 0)
		note_present(b, i, kind, false);
	else if (sc->ret == -ENOENT)
		note_absent(b, i, false);
}

/* mkdir, mknod, symlink: made by the workload, or EEXIST: there before. */
static void on_make(struct builder *b, const struct riot_syscall *sc,
		    const struct model_op *op, uint8_t kind_if_exists)
{
	uint32_t i = op_ent(b, op, false);

	if (sc->ret >= 0)
		note_absent(b, i, true);
	else if (sc->ret == -EEXIST)
		note_present(b, i, kind_if_exists, false);
	else if (sc->ret == -ENOENT)
		note_absent(b, i, false);
}

static void on_remove(struct builder *b, const struct riot_syscall *sc,
		      const struct model_op *op, uint8_t kind)
{
	on_path_call(b, sc, op, kind);
	if (sc->ret >= 0)
		note_changed(b, op_ent(b, op, false));
}

/* rename and link: the source existed, the target is the workload's. */
static void on_rename_link(struct builder *b, const struct riot_syscall *sc,
			   const struct model_op *op, bool rename)
{
	uint32_t from = op_ent(b, op, false), to = op_ent(b, op, true);
	bool exchange = sc->sys == RIOT_SYS_renameat2 && sc->flags & RENAME_EXCHANGE;

	if (sc->ret < 0) {
		if (sc->ret == -ENOENT)
			note_absent(b, from, false);
		else if (sc->ret == -EEXIST)
			note_present(b, to, 0, false);
		return;
	}
	note_present(b, from, 0, false);
	if (exchange)
		note_present(b, to, 0, false);
	else
		note_absent(b, to, true);
	if (rename)
		note_changed(b, from);
	note_changed(b, to);
}

static void on_readlink(struct builder *b, const struct riot_syscall *sc,
			const struct model_op *op)
{
	uint32_t i = op_ent(b, op, false);

	if (sc->ret >= 0 && op->text && !sc->path2.truncated)
		note_symlink(b, i, op->text);
	else if (sc->ret >= 0 || sc->ret == -EINVAL)
		note_present(b, i, 0, false);
	else if (sc->ret == -ENOENT)
		note_absent(b, i, false);
}

/* The first evidence about an xattr name decides: a get that found it
 * (created with its size), an ENODATA, a set or a removal (not created). */
static void note_xattr(struct builder *b, uint32_t i, const char *name, int64_t size,
		       bool create)
{
	struct tree_ent *e = i ? ENT(b->tt, i) : NULL;
	struct tree_extra *w;
	struct init_xattr *x;

	if (!e || !name || e->truncated || (strncmp(name, "user.", 5) != 0 &&
					    strncmp(name, "trusted.", 8) != 0))
		return;
	if (!(w = extra_make(b->tt, e))) {
		b->err = -ENOMEM;
		return;
	}
	for (x = w->xattrs; x; x = (struct init_xattr *)x->next)
		if (strcmp(x->name, name) == 0)
			return;
	x = calloc(1, sizeof(*x));
	if (!x || !(x->name = strdup(name))) {
		free(x);
		b->err = -ENOMEM;
		return;
	}
	x->size = size > 0 && size <= 65536 ? (uint32_t)size : 0;
	x->create = create && e->state == ST_PRESENT && !e->changed;
	x->next = w->xattrs;
	w->xattrs = x;
}

static void on_xattr(struct builder *b, const struct riot_syscall *sc, const struct model_op *op,
		     bool get)
{
	uint32_t i = op_ent(b, op, false);

	if (get && (sc->ret >= 0 || sc->ret == -ENODATA))
		note_xattr(b, i, op->text, sc->ret, sc->ret >= 0);
	else if (!get && sc->ret >= 0)
		note_xattr(b, i, op->text, 0, false);
}

/* After a chmod the modes the workload sees are its own doing. */
static void on_chmod(struct builder *b, const struct model_op *op)
{
	uint32_t i = op_ent(b, op, false);

	if (i)
		ENT(b->tt, i)->perm_changed = true;
}

/* A call, by its init evidence in formats/semantics.def. */
static void on_syscall(struct builder *b, const struct riot_syscall *sc, const struct model_op *op)
{
	const struct riot_sys_sem *sem = riot_sys_sem(sc->sys);
	unsigned init = sem ? sem->init : RIOT_INIT_NONE;
	uint64_t *pos;

	switch ((enum riot_init)init) {
	case RIOT_INIT_UNSET:	/* no row has it: test_semantics */
	case RIOT_INIT_COUNT:
	case RIOT_INIT_NONE:
		break;
	case RIOT_INIT_OPEN:
		on_open(b, sc, op);
		break;
	case RIOT_INIT_READ:
		on_read(b, sc, op);
		break;
	case RIOT_INIT_WRITE:
	case RIOT_INIT_WRITE_POS:
	case RIOT_INIT_TRUNCATE:
		on_write(b, sc, op, init);
		break;
	case RIOT_INIT_COPY:
		on_copy(b, sc, op);
		break;
	case RIOT_INIT_SEEK:
		if (sc->ret >= 0 && op->file) {
			if ((pos = pos_of(b, op->file)))
				*pos = (uint64_t)sc->ret;
			else
				b->err = -ENOMEM;
		}
		break;
	case RIOT_INIT_STAT:
	case RIOT_INIT_STAT_SELF:
	case RIOT_INIT_STAT_AT:
	case RIOT_INIT_ACCESS:
		on_stat(b, sc, op, init);
		break;
	case RIOT_INIT_DIR:
		if (sc->ret >= 0)
			note_present(b, op_ent(b, op, false), INIT_DIR, false);
		break;
	case RIOT_INIT_MKDIR:
		on_make(b, sc, op, INIT_DIR);
		break;
	case RIOT_INIT_MAKE:
		on_make(b, sc, op, 0);
		break;
	case RIOT_INIT_RMDIR:
		on_remove(b, sc, op, INIT_DIR);
		break;
	case RIOT_INIT_UNLINK:
		on_remove(b, sc, op, 0);
		break;
	case RIOT_INIT_UNLINKAT:
		on_remove(b, sc, op, sc->flags & AT_REMOVEDIR ? INIT_DIR : 0);
		break;
	case RIOT_INIT_RENAME:
		on_rename_link(b, sc, op, true);
		break;
	case RIOT_INIT_LINK:
		on_rename_link(b, sc, op, false);
		break;
	case RIOT_INIT_READLINK:
		on_readlink(b, sc, op);
		break;
	case RIOT_INIT_CHDIR:
		on_path_call(b, sc, op, INIT_DIR);
		break;
	case RIOT_INIT_ATTR:
	case RIOT_INIT_CHMOD:
	case RIOT_INIT_XATTR_GET:
	case RIOT_INIT_XATTR_SET:
		if (sc->has & RIOT_HAS_PATH)
			on_path_call(b, sc, op, 0);
		if (init == RIOT_INIT_CHMOD && sc->ret >= 0)
			on_chmod(b, op);
		if (init == RIOT_INIT_XATTR_GET || init == RIOT_INIT_XATTR_SET)
			on_xattr(b, sc, op, init == RIOT_INIT_XATTR_GET);
		break;
	}
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

static void on_record(struct builder *b, const struct riot_rec *r, const struct model_op *op)
{
	uint32_t i;

	switch (r->type) {
	case RIOT_REC_SYSCALL:
		on_syscall(b, &r->sc, op);
		break;
	case RIOT_REC_SNAP_PROC:
		note_present(b, op_ent(b, op, false), INIT_DIR, true);
		break;
	case RIOT_REC_SNAP_FD:
		/* an fd of an unlinked file has no place in the tree */
		if (!op->path || ends_with(op->path, " (deleted)"))
			break;
		i = op_ent(b, op, false);
		note_present(b, i, kind_of_ftype(r->sfd.ftype), r->sfd.ftype != 0);
		if (kind_of_ftype(r->sfd.ftype) == INIT_FILE)
			note_size(b, i, r->sfd.size);
		if (r->sfd.has_perm)
			note_perm(b, i, r->sfd.perm);
		break;
	default:
		break;
	}
}

/* ---- the result ---- */

static bool under_absent(const struct tree_table *tt, uint32_t i)
{
	for (uint32_t p = tt->ents[i].parent; p; p = tt->ents[p].parent)
		if (tt->ents[p].state == ST_ABSENT)
			return true;
	return false;
}

/* Classifies a present entry: its kind to create, or a skip reason as a
 * negative number (-1 - enum init_skip). */
static int classify(const struct tree_table *tt, const struct tree_ent *e)
{
	const struct tree_extra *ex = extra_get(tt, e);
	const char *target = ex ? ex->target : NULL;
	int rc = replay_root_check_path(ent_path(tt, e));

	if (rc == -EXDEV)
		return -1 - INIT_SKIP_PSEUDO;
	if (rc < 0)
		return -1 - INIT_SKIP_HOSTILE;
	if (e->kind == KIND_SPECIAL)
		return -1 - INIT_SKIP_SPECIAL;
	if (e->kind == INIT_SYMLINK && !target)
		return -1 - INIT_SKIP_NO_TARGET;
	if (e->kind == INIT_SYMLINK && replay_root_check_target(ent_path(tt, e), target) < 0)
		return -1 - INIT_SKIP_HOSTILE;
	return e->kind ? e->kind : INIT_FILE;
}

static int entry_order(const void *a, const void *b)
{
	const struct init_entry *x = a, *y = b;
	static const int group[] = { [INIT_DIR] = 0, [INIT_SYMLINK] = 1, [INIT_FILE] = 2 };

	if (x->kind != y->kind)
		return group[x->kind] - group[y->kind];
	return strcmp(x->path, y->path);
}

static void add_entry(struct init_tree *t, const struct tree_ent *e, int kind)
{
	const struct tree_extra none = { 0 }, *ex = extra_get(t->table, e);
	struct init_entry *out = &t->ents[t->n++];

	if (!ex)
		ex = &none;
	*out = (struct init_entry){ .kind = (enum init_kind)kind, .path = ent_path(t->table, e),
				    .xattrs = kind == INIT_SYMLINK ? NULL : ex->xattrs,
				    .has_mode = e->has_perm && kind != INIT_SYMLINK,
				    .mode = ex->perm };
	/* without its mode, a file access(X_OK) found executable is 0755 */
	if (kind == INIT_FILE && !e->has_perm && e->executable) {
		out->has_mode = true;
		out->mode = 0755;
	}
	if (kind == INIT_FILE) {
		out->size = ex->size;
		t->bytes += ex->size;
		t->nfiles++;
	} else if (kind == INIT_SYMLINK) {
		out->target = ex->target;
		t->nsymlinks++;
	} else {
		t->ndirs++;
	}
}

static int collect(struct init_tree *t)
{
	struct tree_table *tt = t->table;

	size_t nents = 1, nabsent = 1;

	/* sized to what is kept: a log of many paths that were absent or
	 * unknown needs few entries */
	for (uint32_t i = 1; i <= tt->n; i++) {
		const struct tree_ent *e = ENT(tt, i);

		if (e->state == ST_ABSENT)
			nabsent++;
		else if (e->state == ST_PRESENT)
			nents++;
	}
	t->ents = calloc(nents, sizeof(*t->ents));
	t->absent = calloc(nabsent, sizeof(*t->absent));
	if (!t->ents || !t->absent)
		return -ENOMEM;
	for (uint32_t i = 1; i <= tt->n; i++) {
		const struct tree_ent *e = ENT(tt, i);
		int kind;

		if (e->state == ST_UNKNOWN && e->truncated)
			t->skipped[INIT_SKIP_TRUNCATED]++;
		if (e->state == ST_UNKNOWN || under_absent(tt, i))
			continue;
		if (e->state == ST_ABSENT) {
			if (replay_root_check_path(ent_path(tt, e)) == 0)
				t->absent[t->nabsent++] = ent_path(tt, e);
			continue;
		}
		kind = classify(tt, e);
		if (kind < 0)
			t->skipped[-1 - kind]++;
		else
			add_entry(t, e, kind);
	}
	qsort(t->ents, t->n, sizeof(*t->ents), entry_order);
	return 0;
}

static int stream_log(struct builder *b, const struct riot_logs *logs, uint64_t *max_open,
		      char *err, size_t errlen)
{
	const char *log_path = logs->paths[0];
	struct riot_reader *rd = riot_reader_open_logs(logs, err, errlen);
	struct riot_rec rec;
	struct model_op op;
	int rc;

	if (!rd)
		return -errno;
	while ((rc = riot_reader_next(rd, &rec)) > 0) {
		if ((rc = model_apply(b->m, &rec, &op)) < 0)
			break;
		if (b->tt)
			on_record(b, &rec, &op);
		if ((rc = b->err) < 0)
			break;
		if (model_stats(b->m)->live_files > *max_open)
			*max_open = model_stats(b->m)->live_files;
	}
	if (rc == -ENOMEM || rc == -E2BIG)
		snprintf(err, errlen, "%s: %s", log_path, model_strerror(rc));
	else if (rc < 0)
		snprintf(err, errlen, "%s: %s", log_path, riot_reader_error(rd));
	riot_reader_close(rd);
	return rc;
}

int init_tree_build(const struct riot_logs *logs, struct init_tree *t, char *err, size_t errlen)
{
	struct builder b = { 0 };
	int rc = -ENOMEM;

	memset(t, 0, sizeof(*t));
	b.tt = t->table = calloc(1, sizeof(*t->table));
	b.m = model_new();
	if (b.tt)
		b.tt->m = b.m;	/* the table's from now on */
	map_init(&b.pos, map_seed());
	b.sweep_at = 64;
	if (b.tt && b.m)
		rc = stream_log(&b, logs, &t->max_open, err, errlen);
	else
		snprintf(err, errlen, "out of memory");
	if (!b.tt)
		model_free(b.m);
	map_fini(&b.pos);
	if (rc == 0 && (rc = collect(t)) < 0)
		snprintf(err, errlen, "out of memory");
	if (rc < 0)
		init_tree_free(t);
	return rc;
}

int init_tree_max_open(const struct riot_logs *logs, uint64_t *max_open, char *err,
		       size_t errlen)
{
	struct builder b = { .m = model_new() };
	int rc = -ENOMEM;

	*max_open = 0;
	if (b.m)
		rc = stream_log(&b, logs, max_open, err, errlen);
	else
		snprintf(err, errlen, "out of memory");
	model_free(b.m);
	return rc;
}

void init_tree_free(struct init_tree *t)
{
	free(t->ents);
	free(t->absent);
	table_free(t->table);
	memset(t, 0, sizeof(*t));
}
