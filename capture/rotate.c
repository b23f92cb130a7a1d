/* capture/rotate.c: a capture written as a series of segments, each a
 * complete log that opens with the state the segments before it left
 * (formats/FORMAT.md, "Segments"). The state comes from a model fed with
 * every record written, so it is the state a reader of the earlier
 * segments holds at the boundary, consistent with the events around it;
 * only a process's parent and comm are read from /proc. The model is
 * rebuilt from that state at each boundary, so memory follows what one
 * segment holds, never the whole capture. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/capture_int.h"
#include "lib/clock.h"
#include "model/model.h"

#define SEG_EXT ".riot"
#define SEG_BLOCK_MIN 4096u
#define SEG_BLOCK_MAX (256u << 10)	/* the writer's default block */

struct rotation {
	const struct capture_opts *o;
	struct riot_log_header h;	/* copied into every segment */
	struct riot_writer_opts wo;
	char id[33];			/* the capture id, hex */
	char path[PATH_MAX];		/* the segment being written */
	uint64_t t_begin;		/* boot ns it began at */
	struct model *m;		/* what the log holds so far */
	struct rotation_totals tot;	/* of the closed segments */
};

int rotation_name(const char *out, uint64_t index, char *buf, size_t len)
{
	size_t n = strlen(out), e = strlen(SEG_EXT);
	const char *base = strrchr(out, '/');

	base = base ? base + 1 : out;
	if (n <= e || strcmp(out + n - e, SEG_EXT) != 0 || (size_t)(out + n - base) <= e)
		return -EINVAL;
	if (snprintf(buf, len, "%.*s.%06llu%s", (int)(n - e), out, (unsigned long long)index,
		     SEG_EXT) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

struct rotation *rotation_new(const struct capture_opts *o, const struct riot_log_header *h,
			      const struct riot_writer_opts *wo)
{
	struct rotation *rt = calloc(1, sizeof(*rt));
	uint8_t raw[16];

	if (!rt)
		return NULL;
	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
		free(rt);
		errno = EIO;
		return NULL;
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(rt->id + 2 * i, 3, "%02x", raw[i]);
	rt->o = o;
	rt->h = *h;
	rt->h.capture_id = rt->id;
	rt->wo = *wo;
	/* a segment ends at the first block boundary past the size: blocks
	 * of a quarter of it keep the overshoot small */
	if (o->rotate_bytes) {
		uint64_t b = o->rotate_bytes / 4;

		rt->wo.block_bytes = b < SEG_BLOCK_MIN ? SEG_BLOCK_MIN :
				     b > SEG_BLOCK_MAX ? SEG_BLOCK_MAX : (size_t)b;
	}
	return rt;
}

static struct riot_writer *segment_open(struct rotation *rt, uint64_t t)
{
	int rc = rotation_name(rt->o->out, rt->h.segment, rt->path, sizeof(rt->path));

	if (rc) {
		errno = -rc;
		return NULL;
	}
	rt->h.start_t = t;
	rt->t_begin = riot_now_ns(CLOCK_BOOTTIME);
	return riot_writer_open(rt->path, &rt->h, &rt->wo);
}

struct riot_writer *rotation_first(struct rotation *rt, uint64_t t)
{
	rt->m = model_new();
	if (!rt->m)
		return NULL;
	rt->h.segment = 1;
	rt->h.restated = 0;
	return segment_open(rt, t);
}

const char *rotation_path(const struct rotation *rt)
{
	return rt->path;
}

int rotation_note(struct rotation *rt, const struct riot_rec *rec)
{
	return model_apply(rt->m, rec, NULL);
}

bool rotation_full(const struct rotation *rt, const struct riot_writer *w)
{
	return rt->o->rotate_bytes && riot_writer_bytes(w) >= rt->o->rotate_bytes;
}

bool rotation_timed_out(const struct rotation *rt, uint64_t now)
{
	return rt->o->rotate_secs > 0 && now - rt->t_begin >= rt->o->rotate_secs * 1e9;
}

/* ---- the state at a boundary ---- */

/* Where the restated records go: counted only (w NULL), or written to w
 * and applied to the next segment's model. */
struct restate {
	const struct model *src;	/* the state restated */
	struct riot_writer *w;
	struct model *m;
	uint64_t t, n;
};

static int restate_rec(struct restate *s, const struct riot_rec *rec)
{
	int rc;

	s->n++;
	if (!s->w)
		return 0;
	rc = riot_writer_add(s->w, rec);
	return rc ? rc : model_apply(s->m, rec, NULL);
}

static int restate_proc(void *ctx, uint32_t pid, const char *cwd)
{
	struct restate *s = ctx;
	struct riot_rec rec = { .type = RIOT_REC_SNAP_PROC };
	char comm[64] = "";

	if (s->w)
		snapshot_ids((pid_t)pid, &rec.sproc.ppid, comm, sizeof(comm));
	rec.sproc.pid = pid;
	rec.sproc.t = s->t;
	rec.sproc.cwd.s = cwd;
	rec.sproc.comm.s = comm[0] ? comm : NULL;
	return restate_rec(s, &rec);
}

static int restate_fd(void *ctx, uint32_t pid, int32_t fd, bool cloexec,
		      const struct model_file *f)
{
	struct restate *s = ctx;
	struct riot_rec rec = { .type = RIOT_REC_SNAP_FD };
	struct riot_snap_fd *sf = &rec.sfd;

	sf->pid = pid;
	sf->fd = fd;
	sf->t = s->t;
	sf->path.s = f->path_id ? model_path(s->src, f->path_id) : NULL;
	sf->path.truncated = f->flags & MODEL_FILE_TRUNCATED;
	/* the flags an open file keeps (the kernel drops these at open) */
	sf->flags = (uint32_t)(f->open_flags & ~(uint64_t)(O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC)) |
		    (cloexec ? O_CLOEXEC : 0);
	sf->pos = f->at;
	sf->size = f->end;
	sf->ino = f->ino;
	sf->dev = f->dev;
	sf->ftype = f->ftype;
	sf->perm = f->perm;
	sf->has_perm = f->has & RIOT_HAS_PERM;
	return restate_rec(s, &rec);
}

int rotation_next(struct rotation *rt, struct riot_writer **w)
{
	struct restate s = { .src = rt->m };
	uint64_t t = riot_writer_t_last(*w);
	char old[PATH_MAX];
	struct stat st;
	int rc;

	if (t < rt->h.start_t)
		t = rt->h.start_t;
	rt->tot.syscalls += riot_writer_count(*w, RIOT_REC_SYSCALL);
	rt->tot.procs += riot_writer_count(*w, RIOT_REC_PROC);
	rc = riot_writer_close(*w);
	*w = NULL;
	if (rc)
		return rc;
	rt->tot.segments++;
	if (stat(rt->path, &st) == 0)
		rt->tot.bytes += (uint64_t)st.st_size;
	s.t = t;
	if ((rc = model_walk(rt->m, restate_proc, restate_fd, &s)))
		return rc;
	rt->h.segment++;
	rt->h.restated = s.n;
	s.n = 0;
	if (!(s.m = model_new()))
		return -ENOMEM;
	if (!(s.w = segment_open(rt, t))) {
		rc = -errno;
		model_free(s.m);
		return rc;
	}
	rc = model_walk(rt->m, restate_proc, restate_fd, &s);
	if (!rc && s.n != rt->h.restated)
		rc = -EIO;	/* the model changed under the walk: a bug */
	if (!rc)
		rc = riot_writer_flush(s.w);
	model_free(rt->m);
	rt->m = s.m;
	*w = s.w;
	if (rc)
		return rc;
	/* --keep N: the segment N back from this one goes */
	if (rt->o->keep && rt->h.segment > rt->o->keep &&
	    rotation_name(rt->o->out, rt->h.segment - rt->o->keep, old, sizeof(old)) == 0 &&
	    unlink(old) && errno != ENOENT)
		return -errno;
	return 0;
}

const struct rotation_totals *rotation_totals(const struct rotation *rt)
{
	return &rt->tot;
}

void rotation_free(struct rotation *rt)
{
	if (!rt)
		return;
	model_free(rt->m);
	free(rt);
}
