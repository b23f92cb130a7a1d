/* convert/import_strace.c: strace -f -ttt -T [-y|-yy] lines into log
 * records (convert/strace.h).
 *
 * Each finished call becomes a SYSCALL record, its arguments placed by the
 * roles of bpf/syscalls.def; clone/fork/vfork, execve and "+++" lines also
 * become PROC records. A private model (model/) follows the records made so
 * far, so the importer can ask it what the log already tells: an fd whose
 * -y annotation names a file the model does not know was open before the
 * trace began, and becomes a SNAP_FD just before its first use; a cwd from
 * "AT_FDCWD</dir>" that the model does not know (or knows differently)
 * becomes a SNAP_PROC. Readers resolve the log with the same model, so they
 * see exactly what the importer checked.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "convert/import_strace_lex.h"
#include "convert/strace.h"
#include "formats/log.h"
#include "lib/map.h"
#include "model/model.h"

#define STRACE_PATH_MAX 8192	/* a decoded path or text argument */
#define COMM_MAX 15		/* TASK_COMM_LEN - 1 */

static const char *const skip_names[STRACE_SKIP_COUNT] = {
	[STRACE_SKIP_OTHER_SYSCALL] = "other_syscall",
	[STRACE_SKIP_SIGNAL] = "signal",
	[STRACE_SKIP_NO_RESULT] = "no_result",
	[STRACE_SKIP_RESTARTED] = "restarted",
	[STRACE_SKIP_ORPHAN_RESUME] = "orphan_resume",
	[STRACE_SKIP_UNFINISHED] = "unfinished",
	[STRACE_SKIP_NO_TIMESTAMP] = "no_timestamp",
	[STRACE_SKIP_BAD_ARGS] = "bad_args",
	[STRACE_SKIP_TOO_LONG] = "too_long",
	[STRACE_SKIP_MESSAGE] = "strace_message",
	[STRACE_SKIP_UNPARSED] = "unparsed",
};

const char *strace_skip_name(enum strace_skip s)
{
	return s < STRACE_SKIP_COUNT ? skip_names[s] : "unknown";
}

/* A traced task (thread), alive from its first line to its "+++" line. */
struct task {
	uint32_t tid, tgid;	/* tid 0: free slot */
	char *partial;		/* "<unfinished ...>" call: name NUL args */
	size_t partial_len;	/* bytes of args after the name's NUL */
	uint64_t partial_t;
	uint64_t clone_seq;	/* non-zero: a clone-family call is pending */
	uint64_t clone_flags;
	uint32_t clone_child;	/* child already tied to the pending clone */
};

/* A clone-family call left unfinished, oldest first: the task whose
 * clone_seq is seq, if it still waits for its child. */
struct pending_clone {
	uint32_t tid;
	uint64_t seq;
};

/* The live tasks by tid (lib/map.h, a struct task * each), so memory
 * follows the live tasks. The pending clones wait in a queue, so a new
 * task finds its parent without a scan of the map (a scan per new task is
 * quadratic in live tasks). */
struct task_map {
	struct u64map by_tid;
	size_t pending;		/* tasks with clone_seq && !clone_child */
	struct pending_clone *q;
	size_t q_head, q_len, q_cap;
};

struct strace_importer {
	struct strace_import_opts opts;
	strace_emit_fn emit;
	void *arg;
	struct model *model;
	struct task_map tasks;
	uint64_t clone_seq;
	struct strace_stats st;
	char *joined;		/* resumed call: partial + rest */
	size_t joined_cap;
	char path[STRACE_PATH_MAX], path2[STRACE_PATH_MAX];
	char note[STRACE_PATH_MAX];
};

/* ---- tasks ---- */

static struct task *task_find(struct task_map *m, uint32_t tid)
{
	uint64_t *v = tid ? map_get(&m->by_tid, tid) : NULL;

	return v ? (struct task *)(uintptr_t)*v : NULL;
}

static bool task_pending(const struct task *t)
{
	return t->clone_seq && !t->clone_child;
}

static struct task *task_add(struct task_map *m, uint32_t tid, uint32_t tgid)
{
	struct task *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->tid = tid;
	t->tgid = tgid;
	if (map_put(&m->by_tid, tid, (uintptr_t)t)) {
		free(t);
		return NULL;
	}
	return t;
}

static void task_del(struct task_map *m, struct task *t)
{
	m->pending -= task_pending(t);
	map_del(&m->by_tid, t->tid, NULL);
	free(t->partial);
	free(t);
}

/* The task waiting longest for the child of its clone-family call, or NULL:
 * stale entries (the call returned, the child came, the task is gone) are
 * dropped on the way. */
static struct task *pending_oldest(struct task_map *m)
{
	while (m->q_len) {
		struct pending_clone *p = &m->q[m->q_head];
		struct task *t = task_find(m, p->tid);

		if (t && t->clone_seq == p->seq && !t->clone_child)
			return t;
		m->q_head = (m->q_head + 1) % m->q_cap;
		m->q_len--;
	}
	return NULL;
}

/* Queues t's new pending clone (t->clone_seq already set and counted in
 * m->pending, the largest seq so far). A full queue is compacted to its
 * live entries (at most m->pending) in room for four times as many, so it
 * stays within a few times the pending clones, at constant amortized
 * cost. */
static int pending_push(struct task_map *m, const struct task *t)
{
	if (m->q_len == m->q_cap) {
		size_t cap = 4 * m->pending + 64, n = 0;
		struct pending_clone *q = malloc(cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		for (size_t k = 0; k < m->q_len; k++) {
			struct pending_clone *p = &m->q[(m->q_head + k) % m->q_cap];
			struct task *x = task_find(m, p->tid);

			if (x && x->clone_seq == p->seq && !x->clone_child)
				q[n++] = *p;
		}
		free(m->q);
		m->q = q;
		m->q_cap = cap;
		m->q_head = 0;
		m->q_len = n;
	}
	m->q[(m->q_head + m->q_len) % m->q_cap] = (struct pending_clone){ t->tid, t->clone_seq };
	m->q_len++;
	return 0;
}

/* ---- emitting ---- */

static int put(struct strace_importer *im, const struct riot_rec *r)
{
	int rc = im->emit(r, im->arg);

	if (rc)
		return rc;
	rc = model_apply(im->model, r, NULL);
	if (rc)
		return rc;
	switch (r->type) {
	case RIOT_REC_SYSCALL: im->st.syscalls++; break;
	case RIOT_REC_PROC: im->st.procs++; break;
	case RIOT_REC_SNAP_FD: im->st.snap_fds++; break;
	case RIOT_REC_SNAP_PROC: im->st.snap_procs++; break;
	default: break;
	}
	return 0;
}

static int put_proc(struct strace_importer *im, uint8_t kind, const struct task *tk,
		    uint64_t t, struct riot_proc *p)
{
	struct riot_rec r = { .type = RIOT_REC_PROC };

	p->kind = kind;
	p->pid = tk->tgid;
	p->tid = tk->tid;
	p->t = t;
	r.proc = *p;
	return put(im, &r);
}

static int put_fork(struct strace_importer *im, struct task *parent, uint32_t child,
		    uint64_t flags, uint64_t t)
{
	uint32_t tgid = flags & CLONE_THREAD ? parent->tgid : child;
	struct riot_proc p = { .child_pid = tgid, .child_tid = child,
			       .clone_flags = flags };
	struct task *c;
	int rc = put_proc(im, RIOT_PROC_FORK, parent, t, &p);

	if (rc)
		return rc;
	c = task_find(&im->tasks, child);
	if (c)	/* a stale task whose "+++" line was lost */
		task_del(&im->tasks, c);
	return task_add(&im->tasks, child, tgid) ? 0 : -ENOMEM;
}

static int put_snap_proc(struct strace_importer *im, const struct task *tk,
			 uint64_t t, const char *cwd, bool truncated)
{
	struct riot_rec r = { .type = RIOT_REC_SNAP_PROC };

	r.sproc.pid = tk->tgid;
	r.sproc.t = t;
	r.sproc.cwd.s = cwd;
	r.sproc.cwd.truncated = truncated;
	return put(im, &r);
}

/* The file type an annotation implies: a device note says it; a pipe or
 * socket says so by name; an fd used as a directory is one; any other
 * path is taken for a regular file. */
static uint32_t note_ftype(const char *path, uint32_t dev_type, bool as_dir)
{
	if (dev_type)
		return dev_type;
	if (strncmp(path, "pipe:", 5) == 0)
		return S_IFIFO;
	if (path[0] != '/')
		return S_IFSOCK;
	return as_dir ? S_IFDIR : S_IFREG;
}

/* An fd argument annotated "N<path>": a SNAP_FD before the record when the
 * model does not know N (opened before the trace began). */
static int snap_fd(struct strace_importer *im, const struct task *tk, uint64_t t,
		   int32_t fd, struct sv note, bool as_dir)
{
	struct riot_rec r = { .type = RIOT_REC_SNAP_FD };
	uint32_t dev_type;
	bool trunc;

	if (fd < 0 || !note.p || model_fd_known(im->model, tk->tgid, tk->tid, fd))
		return 0;
	if (strace_note_path(note, im->note, sizeof(im->note), &trunc, &dev_type))
		return 0;
	r.sfd.pid = tk->tgid;
	r.sfd.fd = fd;
	r.sfd.t = t;
	r.sfd.path.s = im->note;
	r.sfd.path.truncated = trunc;
	r.sfd.ftype = note_ftype(im->note, dev_type, as_dir);
	/* the access mode is not in the trace: allow both, so a replay can
	 * do whatever the workload did with the fd */
	r.sfd.flags = r.sfd.ftype == S_IFDIR ? O_RDONLY | O_DIRECTORY : O_RDWR;
	return put(im, &r);
}

/* "AT_FDCWD</dir>": a SNAP_PROC when the model's cwd is unknown or other. */
static int snap_cwd(struct strace_importer *im, const struct task *tk, uint64_t t,
		    struct sv note)
{
	const char *cwd;
	uint32_t dev_type;
	bool trunc;

	if (!note.p || strace_note_path(note, im->note, sizeof(im->note), &trunc, &dev_type))
		return 0;
	if (im->note[0] != '/')
		return 0;
	cwd = model_cwd(im->model, tk->tgid, tk->tid);
	if (cwd && strcmp(cwd, im->note) == 0)
		return 0;
	return put_snap_proc(im, tk, t, im->note, trunc);
}

/* ---- one finished call ---- */

/* Annotations of the fd-like arguments of the call being built. */
struct call_notes {
	struct sv fd, fd2, dirfd, dirfd2;
};

static int take_path(struct sv arg, char *buf, struct riot_str *out, uint32_t *has,
		     uint32_t bit)
{
	bool trunc;

	if (strace_string(arg, buf, STRACE_PATH_MAX, &trunc))
		return 0;	/* NULL or a bad pointer: no string */
	out->s = buf;
	out->truncated = trunc;
	*has |= bit;
	return 0;
}

/* Symbolic flags into *v: true when they parse, names riot does not know
 * counted and left out. */
static bool take_flags(struct strace_importer *im, struct sv arg, uint64_t *v)
{
	int rc = strace_flags(arg, v);

	if (rc == -ENOENT)
		im->st.unknown_flags++;
	return rc == 0 || rc == -ENOENT;
}

/* Where strace's "fd</path>" annotation of an fd argument goes. */
static struct sv *fd_note(struct call_notes *cn, enum riot_arg role)
{
	switch (role) {
	case RIOT_ARG_FD: return &cn->fd;
	case RIOT_ARG_FD2: return &cn->fd2;
	case RIOT_ARG_DFD: return &cn->dirfd;
	default: return &cn->dirfd2;
	}
}

static void take_stat(struct sv arg, struct riot_syscall *sc)
{
	struct sv v;
	uint64_t mode, size, ino;

	if (!(strace_field(arg, "st_mode", &v) || strace_field(arg, "stx_mode", &v)) ||
	    strace_flags(v, &mode))
		return;
	if (!(strace_field(arg, "st_size", &v) || strace_field(arg, "stx_size", &v)) ||
	    strace_flags(v, &size))
		return;
	sc->ftype = (uint32_t)(mode & S_IFMT);
	sc->size = size;
	sc->has |= RIOT_HAS_FTYPE | RIOT_HAS_SIZE;
	if ((strace_field(arg, "st_ino", &v) || strace_field(arg, "stx_ino", &v)) &&
	    !strace_flags(v, &ino)) {
		sc->ino = ino;
		sc->has |= RIOT_HAS_INO;
	}
}

/* Places one argument by its role (riot_put_arg() once its text is a
 * number); -EINVAL when an fd or number that the record cannot do without
 * does not parse. */
static int put_arg(struct strace_importer *im, struct riot_syscall *sc, enum riot_arg role,
		   struct sv arg, struct call_notes *cn)
{
	uint64_t v;
	int64_t n;
	struct sv f;

	switch (role) {
	case RIOT_ARG_FD: case RIOT_ARG_FD2: case RIOT_ARG_DFD: case RIOT_ARG_DFD2:
		if (strace_int(arg, &n, fd_note(cn, role)) || n < INT32_MIN || n > INT32_MAX)
			return -EINVAL;
		riot_put_arg(sc, role, (uint64_t)n);
		return 0;
	case RIOT_ARG_CNT: case RIOT_ARG_OFF: case RIOT_ARG_IOVCNT:
	case RIOT_ARG_UID: case RIOT_ARG_GID:
		if (strace_int(arg, &n, NULL))
			return -EINVAL;
		riot_put_arg(sc, role, (uint64_t)n);
		return 0;
	case RIOT_ARG_FLAGS: case RIOT_ARG_MODE: case RIOT_ARG_CMD:
		if (take_flags(im, arg, &v))
			riot_put_arg(sc, role, v);
		return 0;
	case RIOT_ARG_ARG: case RIOT_ARG_ADDR:
		if (!strace_flags(arg, &v))
			riot_put_arg(sc, role, v);
		return 0;
	case RIOT_ARG_PATH: return take_path(arg, im->path, &sc->path, &sc->has, RIOT_HAS_PATH);
	case RIOT_ARG_PATH2: case RIOT_ARG_TARGET: case RIOT_ARG_LINKBUF: case RIOT_ARG_XNAME:
		return take_path(arg, im->path2, &sc->path2, &sc->has, RIOT_HAS_PATH2);
	case RIOT_ARG_OFFP:
		if (!strace_offp(arg, &v))
			riot_put_arg(sc, RIOT_ARG_OFF, v);
		return 0;
	case RIOT_ARG_OFF2P:
		if (!strace_offp(arg, &sc->off2))
			sc->has |= RIOT_HAS_OFF2;
		return 0;
	case RIOT_ARG_HOW:
		if (strace_field(arg, "flags", &f) && take_flags(im, f, &v))
			riot_put_arg(sc, RIOT_ARG_FLAGS, v);
		if (strace_field(arg, "mode", &f) && take_flags(im, f, &v))
			riot_put_arg(sc, RIOT_ARG_MODE, v);
		if (strace_field(arg, "resolve", &f) && take_flags(im, f, &v))
			riot_put_arg(sc, RIOT_ARG_ARG, v);
		return 0;
	case RIOT_ARG_CLONEARGS:
		if (strace_field(arg, "flags", &f) && take_flags(im, f, &v))
			riot_put_arg(sc, RIOT_ARG_FLAGS, v);
		if (strace_field(arg, "exit_signal", &f) && !strace_flags(f, &v))
			sc->flags |= v;
		return 0;
	case RIOT_ARG_STATBUF:
		take_stat(arg, sc);
		return 0;
	default:	/* buffers, iovecs, the asynchronous context, absent arguments */
		return 0;
	}
}

/* strace prints preadv2/pwritev2's offset as one argument where the kernel
 * takes two (pos_l, pos_h): the flags come one position early. */
static unsigned role_index(unsigned sys, unsigned i)
{
	if ((sys == RIOT_SYS_preadv2 || sys == RIOT_SYS_pwritev2) && i == 4)
		return 5;
	return i;
}

static uint64_t clone_flags_of(unsigned sys, struct sv args)
{
	struct sv f;
	uint64_t v = 0;

	switch (sys) {
	case RIOT_SYS_fork: return SIGCHLD;
	case RIOT_SYS_vfork: return CLONE_VM | CLONE_VFORK | SIGCHLD;
	case RIOT_SYS_clone:	/* named arguments: child_stack=, flags=, ... */
		if (strace_field(args, "flags", &f))
			strace_flags(f, &v);
		return v;
	case RIOT_SYS_clone3: {
		struct sv first;
		uint64_t sig = 0;

		if (!strace_next_arg(&args, &first))
			return 0;
		if (strace_field(first, "flags", &f))
			strace_flags(f, &v);
		if (strace_field(first, "exit_signal", &f))
			strace_flags(f, &sig);
		return v | sig;
	}
	default:
		return 0;
	}
}

static bool is_clone(unsigned sys)
{
	return sys == RIOT_SYS_clone || sys == RIOT_SYS_clone3 ||
	       sys == RIOT_SYS_fork || sys == RIOT_SYS_vfork;
}

static int build_syscall(struct strace_importer *im, struct riot_syscall *sc,
			 struct sv args, struct call_notes *cn)
{
	const struct riot_sys_info *si = riot_sys_info(sc->sys);
	struct sv arg;

	if (sc->sys == RIOT_SYS_clone) {
		sc->flags = clone_flags_of(sc->sys, args);
		sc->has |= RIOT_HAS_FLAGS;
		return 0;
	}
	for (unsigned i = 0; i < 6 && strace_next_arg(&args, &arg); i++)
		if (put_arg(im, sc, si->args[role_index(sc->sys, i)], arg, cn))
			return -EINVAL;
	return 0;
}

/* Snapshots for every annotated fd argument, then the cwd. */
static int snap_notes(struct strace_importer *im, const struct task *tk,
		      const struct riot_syscall *sc, const struct call_notes *cn)
{
	bool dir_fd = sc->sys == RIOT_SYS_fchdir || sc->sys == RIOT_SYS_getdents64 ||
		      sc->sys == RIOT_SYS_getdents;
	int rc = 0;

	if (sc->has & RIOT_HAS_FD)
		rc = snap_fd(im, tk, sc->t, sc->fd, cn->fd, dir_fd);
	if (!rc && (sc->has & RIOT_HAS_FD2))
		rc = snap_fd(im, tk, sc->t, sc->fd2, cn->fd2, false);
	if (!rc && (sc->has & RIOT_HAS_DIRFD))
		rc = sc->dirfd == AT_FDCWD ? snap_cwd(im, tk, sc->t, cn->dirfd) :
		     snap_fd(im, tk, sc->t, sc->dirfd, cn->dirfd, true);
	if (!rc && (sc->has & RIOT_HAS_DIRFD2))
		rc = sc->dirfd2 == AT_FDCWD ? snap_cwd(im, tk, sc->t, cn->dirfd2) :
		     snap_fd(im, tk, sc->t, sc->dirfd2, cn->dirfd2, true);
	return rc;
}

static int put_exec(struct strace_importer *im, struct task *tk, const struct riot_syscall *sc)
{
	struct riot_proc p = { 0 };
	char comm[COMM_MAX + 1];
	const char *base;

	if (!(sc->has & RIOT_HAS_PATH))
		return 0;
	base = strrchr(sc->path.s, '/');
	base = base ? base + 1 : sc->path.s;
	snprintf(comm, sizeof(comm), "%s", base);
	p.path = sc->path;
	p.comm.s = comm;
	if (tk->tid != tk->tgid) {	/* a thread exec'd: it takes the pid */
		uint32_t tgid = tk->tgid;

		task_del(&im->tasks, tk);
		tk = task_find(&im->tasks, tgid);
		if (!tk)
			tk = task_add(&im->tasks, tgid, tgid);
		if (!tk)
			return -ENOMEM;
	}
	return put_proc(im, RIOT_PROC_EXEC, tk, sc->t + sc->dur, &p);
}

/* After a clone-family call returned: the FORK, unless a line of the child
 * already made it. A stale task of the child's tid is freed. */
static int finish_clone(struct strace_importer *im, struct task *tk,
			const struct riot_syscall *sc)
{
	uint32_t child = sc->ret > 0 && sc->ret <= UINT32_MAX ? (uint32_t)sc->ret : 0;
	uint32_t announced = tk->clone_child;
	uint64_t flags = tk->clone_seq ? tk->clone_flags :
			 sc->has & RIOT_HAS_FLAGS ? sc->flags :
			 clone_flags_of(sc->sys, (struct sv){ 0 });

	im->tasks.pending -= task_pending(tk);
	tk->clone_seq = 0;
	tk->clone_child = 0;
	if (!child || child == announced)
		return 0;
	return put_fork(im, tk, child, flags, sc->t + sc->dur);
}

static int do_call(struct strace_importer *im, struct task *tk, struct sv name,
		   struct sv text, uint64_t t)
{
	struct riot_rec r = { .type = RIOT_REC_SYSCALL };
	struct riot_syscall *sc = &r.sc;
	struct strace_result res;
	struct call_notes cn = { 0 };
	char nbuf[64];
	int sys, rc;

	if (name.n >= sizeof(nbuf))
		return STRACE_SKIP_OTHER_SYSCALL + 1;
	memcpy(nbuf, name.p, name.n);
	nbuf[name.n] = 0;
	sys = riot_sys_by_name(nbuf);
	/* strace does not say whether an address maps a file, and malloc
	 * advises and moves anonymous memory all the time: capture records
	 * these for file mappings only, the import leaves them all out */
	if (sys < 0 || sys == RIOT_SYS_madvise || sys == RIOT_SYS_mremap)
		return STRACE_SKIP_OTHER_SYSCALL + 1;
	if (strace_split_result(text, &res))
		return STRACE_SKIP_BAD_ARGS + 1;
	if (res.restarted)
		return STRACE_SKIP_RESTARTED + 1;
	if (res.no_result)
		return STRACE_SKIP_NO_RESULT + 1;
	sc->sys = (uint16_t)sys;
	sc->pid = tk->tgid;
	sc->tid = tk->tid;
	sc->t = t;
	sc->dur = res.dur;
	sc->ret = res.ret;
	if (build_syscall(im, sc, res.args, &cn))
		return STRACE_SKIP_BAD_ARGS + 1;
	rc = snap_notes(im, tk, sc, &cn);
	if (!rc && is_clone(sc->sys))
		rc = finish_clone(im, tk, sc);
	else if (!rc && sc->ret == 0 &&
		 (sc->sys == RIOT_SYS_execve || sc->sys == RIOT_SYS_execveat)) {
		rc = put_exec(im, tk, sc);
		sc->tid = sc->pid;	/* a thread's exec makes it the leader */
	}
	if (!rc)
		rc = put(im, &r);
	return rc < 0 ? rc : 0;
}

/* ---- lines ---- */

/* The task of a line: its tid prefix, else the one task strace is tracing
 * (it drops the prefix then), else opts.pid, else 1. A task first seen
 * while a clone-family call is pending is that call's child. */
static int line_task(struct strace_importer *im, const struct strace_line *ln,
		     struct task **out)
{
	uint32_t tid = ln->has_tid ? ln->tid : 0;
	struct task *tk, *parent;

	/* the map shrinks with the live tasks: this scan is short */
	if (!tid && im->tasks.by_tid.len == 1) {
		for (uint32_t i = 0; i < im->tasks.by_tid.cap; i++)
			if (im->tasks.by_tid.keys[i] != MAP_EMPTY)
				tid = (uint32_t)im->tasks.by_tid.keys[i];
	}
	if (!tid)
		tid = im->opts.pid ? im->opts.pid : 1;
	tk = task_find(&im->tasks, tid);
	if (tk) {
		*out = tk;
		return 0;
	}
	parent = pending_oldest(&im->tasks);
	if (parent) {
		int rc;

		im->st.forks_guessed += im->tasks.pending > 1;
		parent->clone_child = tid;
		im->tasks.pending--;
		rc = put_fork(im, parent, tid, parent->clone_flags, ln->t);
		if (rc)
			return rc;
		*out = task_find(&im->tasks, tid);
		return 0;
	}
	tk = task_add(&im->tasks, tid, tid);
	if (!tk)
		return -ENOMEM;
	*out = tk;
	if (im->opts.cwd)
		return put_snap_proc(im, tk, ln->t, im->opts.cwd, false);
	return 0;
}

static int do_unfinished(struct strace_importer *im, struct task *tk,
			 const struct strace_line *ln)
{
	char *p = malloc(ln->name.n + 1 + ln->rest.n);
	char nbuf[64];
	int sys;

	if (!p)
		return -ENOMEM;
	if (tk->partial)
		im->st.skipped[STRACE_SKIP_UNFINISHED]++, im->st.skipped_total++;
	free(tk->partial);
	memcpy(p, ln->name.p, ln->name.n);
	p[ln->name.n] = 0;
	memcpy(p + ln->name.n + 1, ln->rest.p, ln->rest.n);
	tk->partial = p;
	tk->partial_len = ln->rest.n;
	tk->partial_t = ln->t;
	if (ln->name.n < sizeof(nbuf)) {
		memcpy(nbuf, ln->name.p, ln->name.n);
		nbuf[ln->name.n] = 0;
		sys = riot_sys_by_name(nbuf);
		if (sys >= 0 && is_clone((unsigned)sys)) {
			im->tasks.pending += !task_pending(tk);
			tk->clone_seq = ++im->clone_seq;
			tk->clone_flags = clone_flags_of((unsigned)sys, ln->rest);
			tk->clone_child = 0;
			return pending_push(&im->tasks, tk);
		}
	}
	return 0;
}

static int do_resumed(struct strace_importer *im, struct task *tk,
		      const struct strace_line *ln)
{
	size_t name_n, need;
	struct sv name;
	uint64_t t;

	if (!tk->partial)
		return STRACE_SKIP_ORPHAN_RESUME + 1;
	name_n = strlen(tk->partial);
	if (name_n != ln->name.n || memcmp(tk->partial, ln->name.p, name_n) != 0) {
		free(tk->partial);
		tk->partial = NULL;
		im->st.skipped[STRACE_SKIP_UNFINISHED]++, im->st.skipped_total++;
		return STRACE_SKIP_ORPHAN_RESUME + 1;
	}
	need = tk->partial_len + ln->rest.n + 1;
	if (need > im->joined_cap) {
		char *j = realloc(im->joined, need);

		if (!j)
			return -ENOMEM;
		im->joined = j;
		im->joined_cap = need;
	}
	memcpy(im->joined, tk->partial + name_n + 1, tk->partial_len);
	memcpy(im->joined + tk->partial_len, ln->rest.p, ln->rest.n);
	name = (struct sv){ ln->name.p, ln->name.n };
	t = tk->partial_t;
	free(tk->partial);
	tk->partial = NULL;
	return do_call(im, tk, name, (struct sv){ im->joined, tk->partial_len + ln->rest.n }, t);
}

static int do_exit(struct strace_importer *im, struct task *tk, const struct strace_line *ln)
{
	struct riot_proc p = { .exit_code = ln->status };
	int rc = put_proc(im, RIOT_PROC_EXIT, tk, ln->t, &p);

	if (tk->partial)
		im->st.skipped[STRACE_SKIP_UNFINISHED]++, im->st.skipped_total++;
	task_del(&im->tasks, tk);
	return rc;
}

/* 0 done, > 0 skipped (reason + 1), < 0 error. */
static int do_line(struct strace_importer *im, const char *s, size_t n)
{
	struct strace_line ln;
	struct task *tk;
	int rc;

	if (strace_split_line(s, n, &ln))
		return STRACE_SKIP_UNPARSED + 1;
	switch (ln.kind) {
	case STRACE_LINE_SIGNAL: return STRACE_SKIP_SIGNAL + 1;
	case STRACE_LINE_MESSAGE: return STRACE_SKIP_MESSAGE + 1;
	case STRACE_LINE_EMPTY: case STRACE_LINE_OTHER: return STRACE_SKIP_UNPARSED + 1;
	default: break;
	}
	if (!ln.has_t)
		return STRACE_SKIP_NO_TIMESTAMP + 1;
	if (!im->st.t_first || ln.t < im->st.t_first)
		im->st.t_first = ln.t;
	if (ln.t > im->st.t_last)
		im->st.t_last = ln.t;
	rc = line_task(im, &ln, &tk);
	if (rc)
		return rc;
	switch (ln.kind) {
	case STRACE_LINE_EXIT: return do_exit(im, tk, &ln);
	case STRACE_LINE_UNFINISHED: return do_unfinished(im, tk, &ln);
	case STRACE_LINE_RESUMED: return do_resumed(im, tk, &ln);
	default: return do_call(im, tk, ln.name, ln.rest, ln.t);
	}
}

/* ---- API ---- */

struct strace_importer *strace_importer_new(const struct strace_import_opts *o,
					    strace_emit_fn emit, void *arg)
{
	struct strace_importer *im = calloc(1, sizeof(*im));

	if (!im)
		return NULL;
	if (o)
		im->opts = *o;
	im->emit = emit;
	im->arg = arg;
	map_init(&im->tasks.by_tid, map_seed());
	im->model = model_new();
	if (!im->model) {
		free(im);
		return NULL;
	}
	return im;
}

int strace_importer_line(struct strace_importer *im, const char *line, size_t len)
{
	int rc;

	im->st.lines++;
	if (len > STRACE_LINE_MAX)
		rc = STRACE_SKIP_TOO_LONG + 1;
	else
		rc = do_line(im, line, len);
	if (rc > 0) {
		im->st.skipped[rc - 1]++;
		im->st.skipped_total++;
		rc = 0;
	}
	return rc;
}

int strace_importer_finish(struct strace_importer *im)
{
	const struct u64map *by_tid = &im->tasks.by_tid;

	for (uint32_t i = 0; i < by_tid->cap; i++) {
		struct task *t = (struct task *)(uintptr_t)by_tid->vals[i];

		if (by_tid->keys[i] != MAP_EMPTY && t->partial) {
			im->st.skipped[STRACE_SKIP_UNFINISHED]++;
			im->st.skipped_total++;
			free(t->partial);
			t->partial = NULL;
		}
	}
	return 0;
}

const struct strace_stats *strace_importer_stats(const struct strace_importer *im)
{
	return &im->st;
}

void strace_importer_free(struct strace_importer *im)
{
	if (!im)
		return;
	for (uint32_t i = 0; i < im->tasks.by_tid.cap; i++) {
		if (im->tasks.by_tid.keys[i] != MAP_EMPTY) {
			struct task *t = (struct task *)(uintptr_t)im->tasks.by_tid.vals[i];

			free(t->partial);
			free(t);
		}
	}
	map_fini(&im->tasks.by_tid);
	free(im->tasks.q);
	free(im->joined);
	model_free(im->model);
	free(im);
}
