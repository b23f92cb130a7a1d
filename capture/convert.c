/* capture/convert.c: a ring-buffer record (bpf/events.h) into a log record
 * (formats/log.h), placing each argument where its role in
 * bpf/syscalls.def says. */
#include <errno.h>
#include <linux/fs.h>
#include <sched.h>
#include <signal.h>
#include <string.h>

#include "capture/capture_int.h"

/* What a clone makes a thread with (glibc's pthread_create). */
#define CLONE_THREAD_SET (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD)

/* A path field of a record: len bytes with the NUL, or absent. */
static struct riot_str ev_str(const char *p, unsigned len, bool trunc)
{
	struct riot_str s = { NULL, false };

	if (len && p[len - 1] == 0) {
		s.s = p;
		s.truncated = trunc;
	}
	return s;
}

/* The bytes a syscall event takes on the wire, from its header alone; 0
 * when they are more than avail. */
static size_t syscall_size(const void *p, size_t avail)
{
	const struct riot_ev_syscall *h = p;
	size_t n = RIOT_EV_SYSCALL_HDR;

	if (avail < n || h->nargs > 6)
		return 0;
	n += h->nargs * 8u + h->path_len + h->path2_len;
	if (h->flags & RIOT_EVF_EXT)
		n += sizeof(struct riot_ev_ext);
	if (h->flags & RIOT_EVF_VALUE)
		n += h->value_len;
	return n <= avail ? n : 0;
}

/* One argument in its place: the value itself (riot_put_arg()), or what
 * capture read behind a pointer (in the event's extension). */
static void put_arg(struct riot_syscall *sc, const struct riot_ev_syscall *ev,
		    const struct riot_ev_ext *x, enum riot_arg role, uint64_t val)
{
	if (riot_put_arg(sc, role, val))
		return;
	switch (role) {
	case RIOT_ARG_OFFP:
		if (ev->flags & RIOT_EVF_OFF)
			riot_put_arg(sc, RIOT_ARG_OFF, x->off);
		break;
	case RIOT_ARG_OFF2P:
		if (ev->flags & RIOT_EVF_OFF2) {
			sc->off2 = x->off2;
			sc->has |= RIOT_HAS_OFF2;
		}
		break;
	case RIOT_ARG_FDPAIR:
		if (ev->flags & RIOT_EVF_FDPAIR) {
			riot_put_arg(sc, RIOT_ARG_FD, x->off);
			riot_put_arg(sc, RIOT_ARG_FD2, x->off2);
		}
		break;
	case RIOT_ARG_HOW:
		if (ev->flags & RIOT_EVF_HOW) {
			riot_put_arg(sc, RIOT_ARG_FLAGS, x->how[0]);
			riot_put_arg(sc, RIOT_ARG_MODE, x->how[1]);
			riot_put_arg(sc, RIOT_ARG_ARG, x->how[2]);
		}
		break;
	case RIOT_ARG_CLONEARGS:
		if (ev->flags & RIOT_EVF_CLONEARGS)
			riot_put_arg(sc, RIOT_ARG_FLAGS, x->how[0]);
		break;
	default:	/* strings below; buffers are not recorded */
		break;
	}
}

/* ioctl(FICLONE) names its source fd in its argument, FICLONERANGE in the
 * struct file_clone_range capture sent as the value: the source goes to
 * fd2, the range to off (source offset), count (length) and off2
 * (destination offset), as copy_file_range has them. */
static void clone_args(struct riot_syscall *sc)
{
	struct file_clone_range r;

	if (sc->sys != RIOT_SYS_ioctl)
		return;
	if (sc->cmd == FICLONE) {
		sc->fd2 = (int32_t)sc->arg;
		sc->has |= RIOT_HAS_FD2;
	} else if (sc->cmd == FICLONERANGE && (sc->has & RIOT_HAS_VALUE) &&
		   sc->value_len == sizeof(r)) {
		memcpy(&r, sc->value, sizeof(r));
		sc->fd2 = (int32_t)r.src_fd;
		sc->off = r.src_offset;
		sc->count = r.src_length;
		sc->off2 = r.dest_offset;
		sc->has |= RIOT_HAS_FD2 | RIOT_HAS_OFF | RIOT_HAS_COUNT | RIOT_HAS_OFF2;
	}
	sc->has &= ~RIOT_HAS_VALUE;
	sc->value = NULL;
	sc->value_len = 0;
}

/* A page of a mapping holds the file's bytes up to its end: that many are
 * its result (the tail of the last page is no file data), as a read of
 * the same range returns. */
static void mmap_result(struct riot_syscall *sc)
{
	if ((sc->sys != RIOT_SYS_mmap_read && sc->sys != RIOT_SYS_mmap_write) ||
	    !(sc->has & RIOT_HAS_SIZE) || sc->off + sc->count <= sc->size)
		return;
	sc->ret = sc->off < sc->size ? (int64_t)(sc->size - sc->off) : 0;
}

/* rec all zero, in stores of 32 bytes: a memset() of this size compiles
 * to `rep stos` on x86, whose start-up costs more than the stores (a
 * quarter of converting a stat). */
static void rec_zero(struct riot_rec *rec)
{
	typedef uint64_t zeros __attribute__((vector_size(32)));
	char *p = (char *)rec;
	size_t i;

	for (i = 0; i + sizeof(zeros) <= sizeof(*rec); i += sizeof(zeros))
		memcpy(p + i, &(zeros){ 0 }, sizeof(zeros));
	memset(p + i, 0, sizeof(*rec) - i);
}

/* The extension of an event that has none: every field 0. */
static const struct riot_ev_ext no_ext;

/* Reads the event in place (events sit at 8-byte boundaries): only the
 * header and the arguments sent, no copy of either. */
static int convert_syscall(const void *data, size_t size, struct riot_rec *rec)
{
	struct riot_syscall *sc = &rec->sc;
	const struct riot_ev_syscall *ev = data;
	const struct riot_sys_info *si;
	const struct riot_ev_ext *x = &no_ext;
	const uint64_t *wire;
	const char *str;
	unsigned k = 0;

	if (!syscall_size(data, size) || !(si = riot_sys_info(ev->sys)))
		return -EINVAL;
	wire = (const uint64_t *)((const char *)data + RIOT_EV_SYSCALL_HDR);
	str = (const char *)(wire + ev->nargs);
	if (ev->flags & RIOT_EVF_EXT) {
		x = (const struct riot_ev_ext *)str;
		str += sizeof(*x);
	}
	rec_zero(rec);
	rec->type = RIOT_REC_SYSCALL;
	sc->sys = ev->sys;
	sc->pid = ev->pid;
	sc->tid = ev->tid;
	sc->t = ev->t;
	sc->dur = ev->dur;
	sc->ret = ev->ret;
	/* the sent arguments are the row's, in argument order */
	for (int i = 0; i < 6; i++) {
		enum riot_arg role = si->args[i];
		uint64_t val = 0;

		if (RIOT_ARG_ON_WIRE(role)) {
			if (k == ev->nargs)
				return -EINVAL;
			val = wire[k++];
		}
		if (role != RIOT_ARG_NONE)
			put_arg(sc, ev, x, role, val);
	}
	if (k != ev->nargs)
		return -EINVAL;
	sc->path = ev_str(str, ev->path_len, ev->flags & RIOT_EVF_PATH_TRUNC);
	if (sc->path.s)
		sc->has |= RIOT_HAS_PATH;
	sc->path2 = ev_str(str + ev->path_len, ev->path2_len,
			   ev->flags & RIOT_EVF_PATH2_TRUNC);
	if (sc->path2.s)
		sc->has |= RIOT_HAS_PATH2;
	if ((ev->flags & RIOT_EVF_VALUE) && ev->value_len <= RIOT_VALUE_MAX) {
		sc->value = (const uint8_t *)str + ev->path_len + ev->path2_len;
		sc->value_len = ev->value_len;
		sc->has |= RIOT_HAS_VALUE;
	}
	if (ev->flags & RIOT_EVF_FACTS) {
		sc->size = x->size;
		sc->ftype = x->ftype;
		sc->perm = x->perm;
		sc->ino = x->ino;
		sc->dev = x->dev;
		sc->has |= RIOT_HAS_SIZE | RIOT_HAS_FTYPE | RIOT_HAS_INO |
			   RIOT_HAS_DEV | RIOT_HAS_PERM;
		if (si->flags & RIOT_SF_RET_FD) {
			sc->created = !!(ev->flags & RIOT_EVF_CREATED);
			sc->has |= RIOT_HAS_CREATED;
		}
	}
	/* the file offset the mapping's address maps */
	if ((si->flags & RIOT_SF_VMA) && (ev->flags & RIOT_EVF_OFF2)) {
		sc->off2 = x->off2;
		sc->has |= RIOT_HAS_OFF2;
	}
	clone_args(sc);
	uring_convert(sc);
	mmap_result(sc);
	return 1;
}

static int convert_proc(const struct riot_ev_proc *ev, size_t size,
			struct riot_rec *rec)
{
	struct riot_proc *p = &rec->proc;

	if (size < sizeof(*ev) + ev->path_len)
		return -EINVAL;
	memset(rec, 0, sizeof(*rec));
	rec->type = RIOT_REC_PROC;
	p->pid = ev->pid;
	p->tid = ev->tid;
	p->t = ev->t;
	switch (ev->type) {
	case RIOT_EV_FORK:
		p->kind = RIOT_PROC_FORK;
		p->child_pid = ev->child_pid;
		p->child_tid = ev->child_tid;
		p->clone_flags = ev->clone_flags;
		/* Only a kernel thread forks outside a clone syscall (or the
		 * parent's slot could not be allocated): say what kind of
		 * task it made. */
		if (!(ev->flags & RIOT_EVP_FLAGS_KNOWN))
			p->clone_flags = ev->flags & RIOT_EVP_NEW_PROCESS ?
					 SIGCHLD : CLONE_THREAD_SET;
		break;
	case RIOT_EV_EXEC:
		p->kind = RIOT_PROC_EXEC;
		p->comm = ev_str(ev->comm, strnlen(ev->comm, RIOT_COMM_LEN) + 1,
				 false);
		if (strnlen(ev->comm, RIOT_COMM_LEN) == RIOT_COMM_LEN)
			p->comm.s = NULL;
		p->path = ev_str((const char *)(ev + 1), ev->path_len,
				 ev->flags & RIOT_EVP_PATH_TRUNC);
		break;
	case RIOT_EV_EXIT:
		p->kind = RIOT_PROC_EXIT;
		p->exit_code = ev->exit_code;
		break;
	default:
		return -EINVAL;
	}
	return 1;
}

/* An fd the capture did not see made, introduced at its first use: a
 * SNAP_FD record at that time (formats/FORMAT.md). */
static int convert_fd(const struct riot_ev_fd *ev, size_t size,
		      struct riot_rec *rec)
{
	struct riot_snap_fd *f = &rec->sfd;

	if (size < sizeof(*ev) + ev->path_len)
		return -EINVAL;
	memset(rec, 0, sizeof(*rec));
	rec->type = RIOT_REC_SNAP_FD;
	f->pid = ev->pid;
	f->fd = ev->fd;
	f->t = ev->t;
	if (!(ev->flags & RIOT_EVD_NOFILE))
		f->path = ev_str((const char *)(ev + 1), ev->path_len,
				 ev->flags & RIOT_EVD_PATH_TRUNC);
	f->flags = ev->f_flags;
	f->pos = ev->pos;
	f->size = ev->size;
	f->ino = ev->ino;
	f->dev = ev->dev;
	f->ftype = ev->ftype;
	f->perm = ev->perm;
	f->has_perm = true;
	return 1;
}

int convert_event(const void *data, size_t size, struct riot_rec *rec)
{
	const uint8_t *type = data;

	if (size < 1)
		return -EINVAL;
	if (*type == RIOT_EV_SYSCALL)
		return convert_syscall(data, size, rec);
	if (*type == RIOT_EV_FD)
		return size < sizeof(struct riot_ev_fd) ? -EINVAL :
		       convert_fd(data, size, rec);
	if (size < sizeof(struct riot_ev_proc))
		return -EINVAL;
	return convert_proc(data, size, rec);
}

size_t event_size(const void *data, size_t avail)
{
	const struct riot_ev_proc *p = data;
	size_t n;

	if (avail < 1)
		return 0;
	/* Its arguments are checked against the syscall's row when it is
	 * converted. */
	if (*(const uint8_t *)data == RIOT_EV_SYSCALL)
		return syscall_size(data, avail);
	if (*(const uint8_t *)data == RIOT_EV_FD) {
		const struct riot_ev_fd *f = data;

		if (avail < sizeof(*f))
			return 0;
		n = sizeof(*f) + f->path_len;
		return n <= avail ? n : 0;
	}
	if (avail < sizeof(*p))
		return 0;
	n = sizeof(*p) + p->path_len;
	return n <= avail ? n : 0;
}

uint64_t event_time(const void *data, size_t size)
{
	const struct riot_ev_syscall *sc = data;
	const struct riot_ev_proc *p = data;

	if (size >= RIOT_EV_SYSCALL_HDR && sc->type == RIOT_EV_SYSCALL)
		return sc->t + sc->dur;
	if (size >= sizeof(struct riot_ev_fd) && sc->type == RIOT_EV_FD)
		return ((const struct riot_ev_fd *)data)->t;
	if (size >= sizeof(*p))
		return p->t;
	return 0;
}
