/* inspect/cmd_dump.c: `riot dump FILE [--format text|csv|jsonl] [--limit N]`.
 *
 * One line per record, every field present, times in ns from the start of
 * the capture. Syscall records also show what model/ resolved: absolute
 * paths and file object ids beside the raw fds and paths. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inspect/emit.h"
#include "formats/log.h"
#include "inspect/inspect.h"
#include "inspect/inspect_int.h"
#include "lib/cli.h"
#include "model/model.h"

#define RIOT_VALUE_MAX_DUMP 256	/* value bytes dump shows, in hex */

const char cmd_dump_help[] =
	"Usage: riot dump FILE [--format text|csv|jsonl] [--limit N] [--type T[,T...]]\n"
	"\n"
	"Prints one line per record of a .riot log with every field that is\n"
	"present. Times (t) are ns since the start of the capture; dur is ns.\n"
	"Syscall records carry the fields as captured (fd, path_raw, ...) and as\n"
	"resolved by riot's model: path (absolute, normalised; for fd-based calls\n"
	"the path of the file the fd refers to) and file (the id of the open file\n"
	"description). String records show how the log interns paths.\n"
	"Names stand beside the numbers they decode: errno beside a failed\n"
	"call's ret (ret=-2 errno=ENOENT), flag_names beside the flags of open,\n"
	"openat and openat2 and of fds found open (O_RDWR|O_CREAT|O_CLOEXEC),\n"
	"ftype_name beside a file type (S_IFREG).\n"
	"gap_ns is a call's think time: t minus the end (t + dur) of the same\n"
	"thread's previous call, absent for a thread's first call and for\n"
	"asynchronous requests (io_uring, AIO). CSV keeps its columns' order:\n"
	"gap_ns is the last column.\n"
	"\n"
	"  -f, --format F   text (default), csv (one header row, fixed columns)\n"
	"                   or jsonl (one JSON object per line)\n"
	"      --type T,... only records of these types: syscall, proc,\n"
	"                   snap_proc, snap_fd, drop, string (all are read:\n"
	"                   paths still resolve)\n"
	"  -n, --limit N    stop after N records shown\n";

static const char *const type_names[RIOT_REC_TYPE_MAX] = {
	[RIOT_REC_STRING] = "string", [RIOT_REC_SYSCALL] = "syscall", [RIOT_REC_PROC] = "proc",
	[RIOT_REC_SNAP_PROC] = "snap_proc", [RIOT_REC_SNAP_FD] = "snap_fd",
	[RIOT_REC_DROP] = "drop",
};

struct dump {
	struct emitter e;
	unsigned types;		/* bit per RIOT_REC_* shown; 0: all */
	uint64_t t0;		/* capture start: times are shown from here */
	struct model *model;
};

static uint64_t rel(const struct dump *d, uint64_t t)
{
	return t >= d->t0 ? t - d->t0 : 0;
}

static void emit_fields_syscall(struct dump *d, const struct riot_syscall *sc,
				const struct model_op *op)
{
	struct emitter *e = &d->e;
	const struct riot_sys_info *si = riot_sys_info(sc->sys);
	uint32_t h = sc->has;

	emit_u64(e, "t", rel(d, sc->t));
	if (si)
		emit_str(e, "op", si->name);
	else
		emit_u64(e, "op", sc->sys);
	emit_u64(e, "pid", sc->pid);
	emit_u64(e, "tid", sc->tid);
	emit_u64(e, "dur", sc->dur);
	if (op->has_gap)
		emit_u64(e, "gap_ns", op->gap_ns);
	emit_i64(e, "ret", sc->ret);
	emit_str(e, "errno", riot_errno_str(sc->ret));
	if (h & RIOT_HAS_FD)
		emit_i64(e, "fd", sc->fd);
	if (op->file)
		emit_u64(e, "file", op->file);
	if (h & RIOT_HAS_FD2)
		emit_i64(e, "fd2", sc->fd2);
	if (op->file2)
		emit_u64(e, "file2", op->file2);
	if (h & RIOT_HAS_DIRFD)
		emit_i64(e, "dirfd", sc->dirfd);
	if (h & RIOT_HAS_DIRFD2)
		emit_i64(e, "dirfd2", sc->dirfd2);
	emit_str(e, "path", op->path);
	if (h & RIOT_HAS_PATH)
		emit_str(e, "path_raw", sc->path.s);
	emit_str(e, "path2", op->path2);
	if (h & RIOT_HAS_PATH2)
		emit_str(e, "path2_raw", sc->path2.s);
	if (sc->path.truncated || sc->path2.truncated)
		emit_bool(e, "path_truncated", true);
	if (h & RIOT_HAS_OFF)
		emit_u64(e, "off", sc->off);
	if (h & RIOT_HAS_OFF2)
		emit_u64(e, "off2", sc->off2);
	if (h & RIOT_HAS_COUNT)
		emit_u64(e, "count", sc->count);
	if (h & RIOT_HAS_FLAGS) {
		char names[256];

		emit_u64(e, "flags", sc->flags);
		if (sc->sys == RIOT_SYS_open || sc->sys == RIOT_SYS_openat ||
		    sc->sys == RIOT_SYS_openat2 || sc->sys == RIOT_SYS_uring_openat ||
		    sc->sys == RIOT_SYS_uring_openat2)
			emit_str(e, "flag_names", riot_open_flags_str(sc->flags, names, sizeof(names)));
	}
	if (h & RIOT_HAS_MODE)
		emit_u64(e, "mode", sc->mode);
	if (h & RIOT_HAS_CMD)
		emit_u64(e, "cmd", sc->cmd);
	if (h & RIOT_HAS_ARG)
		emit_u64(e, "arg", sc->arg);
	if (h & RIOT_HAS_CTX)
		emit_u64(e, "ctx", sc->ctx);
	if (h & RIOT_HAS_IOVCNT)
		emit_u64(e, "iovcnt", sc->iovcnt);
	if (h & RIOT_HAS_UID)
		emit_u64(e, "uid", sc->uid);
	if (h & RIOT_HAS_GID)
		emit_u64(e, "gid", sc->gid);
	if (h & RIOT_HAS_SIZE)
		emit_u64(e, "size", sc->size);
	if (h & RIOT_HAS_FTYPE) {
		emit_u64(e, "ftype", sc->ftype);
		emit_str(e, "ftype_name", riot_ftype_str(sc->ftype));
	}
	if (h & RIOT_HAS_INO)
		emit_u64(e, "ino", sc->ino);
	if (h & RIOT_HAS_DEV)
		emit_u64(e, "dev", sc->dev);
	if (h & RIOT_HAS_CREATED)
		emit_u64(e, "created", sc->created);
	if (h & RIOT_HAS_PERM)
		emit_u64(e, "perm", sc->perm);
	if (h & RIOT_HAS_VALUE) {
		char hex[2 * RIOT_VALUE_MAX_DUMP + 1];
		uint32_t n = sc->value_len < RIOT_VALUE_MAX_DUMP ? sc->value_len : RIOT_VALUE_MAX_DUMP;

		for (uint32_t i = 0; i < n; i++)
			snprintf(hex + 2 * i, 3, "%02x", sc->value[i]);
		hex[2 * n] = '\0';
		emit_str(e, "value", hex);
	}
}

static const char *proc_kind(unsigned k)
{
	switch (k) {
	case RIOT_PROC_FORK: return "fork";
	case RIOT_PROC_EXEC: return "exec";
	case RIOT_PROC_EXIT: return "exit";
	default: return "unknown";
	}
}

static void emit_fields_proc(struct dump *d, const struct riot_proc *p)
{
	struct emitter *e = &d->e;

	emit_str(e, "kind", proc_kind(p->kind));
	emit_u64(e, "t", rel(d, p->t));
	emit_u64(e, "pid", p->pid);
	emit_u64(e, "tid", p->tid);
	switch (p->kind) {
	case RIOT_PROC_FORK:
		emit_u64(e, "child_pid", p->child_pid);
		emit_u64(e, "child_tid", p->child_tid);
		emit_u64(e, "clone_flags", p->clone_flags);
		break;
	case RIOT_PROC_EXEC:
		emit_str(e, "comm", p->comm.s);
		emit_str(e, "path", p->path.s);
		break;
	case RIOT_PROC_EXIT:
		emit_i64(e, "exit_code", p->exit_code);
		break;
	}
}

static void emit_record(struct dump *d, const struct riot_rec *r,
			const struct model_op *op)
{
	struct emitter *e = &d->e;
	char names[256];

	switch (r->type) {
	case RIOT_REC_SYSCALL:
		emit_begin(e, "syscall");
		emit_fields_syscall(d, &r->sc, op);
		break;
	case RIOT_REC_PROC:
		emit_begin(e, "proc");
		emit_fields_proc(d, &r->proc);
		break;
	case RIOT_REC_SNAP_PROC:
		emit_begin(e, "snap_proc");
		emit_u64(e, "t", rel(d, r->sproc.t));
		emit_u64(e, "pid", r->sproc.pid);
		emit_u64(e, "ppid", r->sproc.ppid);
		emit_str(e, "cwd", r->sproc.cwd.s);
		emit_str(e, "comm", r->sproc.comm.s);
		break;
	case RIOT_REC_SNAP_FD:
		emit_begin(e, "snap_fd");
		emit_u64(e, "t", rel(d, r->sfd.t));
		emit_u64(e, "pid", r->sfd.pid);
		emit_i64(e, "fd", r->sfd.fd);
		if (op->file)
			emit_u64(e, "file", op->file);
		emit_str(e, "path", r->sfd.path.s);
		emit_u64(e, "flags", r->sfd.flags);
		emit_str(e, "flag_names", riot_open_flags_str(r->sfd.flags, names, sizeof(names)));
		emit_u64(e, "pos", r->sfd.pos);
		emit_u64(e, "size", r->sfd.size);
		emit_u64(e, "ftype", r->sfd.ftype);
		emit_str(e, "ftype_name", riot_ftype_str(r->sfd.ftype));
		if (r->sfd.has_perm)
			emit_u64(e, "perm", r->sfd.perm);
		emit_u64(e, "ino", r->sfd.ino);
		emit_u64(e, "dev", r->sfd.dev);
		break;
	case RIOT_REC_DROP:
		emit_begin(e, "drop");
		emit_u64(e, "cpu", r->drop.cpu);
		emit_u64(e, "count", r->drop.count);
		emit_u64(e, "t_first", rel(d, r->drop.t_first));
		emit_u64(e, "t_last", rel(d, r->drop.t_last));
		break;
	case RIOT_REC_STRING:
		emit_begin(e, "string");
		emit_u64(e, "id", r->string.id);
		emit_str(e, "str", r->string.str.s);
		emit_bool(e, "truncated", r->string.str.truncated);
		break;
	default:
		emit_begin(e, "unknown");
		emit_u64(e, "id", r->type);
		break;
	}
	emit_end(e);
}

/* --type syscall,proc,...: a bit per record type. */
static int parse_types(char *s, unsigned *types)
{
	for (char *t = strtok(s, ","); t; t = strtok(NULL, ",")) {
		unsigned k = 1;

		while (k < RIOT_REC_TYPE_MAX && strcmp(t, type_names[k]) != 0)
			k++;
		if (k == RIOT_REC_TYPE_MAX)
			return -EINVAL;
		*types |= 1u << k;
	}
	return *types ? 0 : -EINVAL;
}

static int parse_format(const char *s, enum emit_format *fmt)
{
	if (strcmp(s, "text") == 0)
		*fmt = EMIT_TEXT;
	else if (strcmp(s, "csv") == 0)
		*fmt = EMIT_CSV;
	else if (strcmp(s, "jsonl") == 0 || strcmp(s, "json") == 0)
		*fmt = EMIT_JSONL;
	else
		return -EINVAL;
	return 0;
}

/* Streams every record to stdout. 0, or -errno with the reason printed. */
static int dump_log(struct dump *d, struct riot_reader *rd, const char *file,
		    uint64_t limit)
{
	struct riot_rec rec;
	struct model_op op;
	uint64_t n = 0;
	int rc;

	while (n < limit && (rc = riot_reader_next(rd, &rec)) > 0) {
		rc = model_apply(d->model, &rec, &op);
		if (rc < 0) {
			riot_err("%s: %s", file, model_strerror(rc));
			return rc;
		}
		if (d->types && (rec.type >= RIOT_REC_TYPE_MAX || !(d->types >> rec.type & 1)))
			continue;
		emit_record(d, &rec, &op);
		n++;
	}
	if (n < limit && rc < 0) {
		fflush(stdout);
		riot_err("%s: %s", file, riot_reader_error(rd));
		return rc;
	}
	if (n < limit && !riot_reader_complete(rd))
		fprintf(stderr, "riot: dump: %s: log is incomplete: %s\n", file,
			riot_reader_incomplete_reason(rd));
	return 0;
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "limit", required_argument, NULL, 'n' },
		{ "type", required_argument, NULL, 't' },
		{ 0 }
	};
	enum emit_format fmt = EMIT_TEXT;
	unsigned types = 0;
	uint64_t limit = UINT64_MAX;
	struct riot_reader *rd;
	struct riot_logs logs;
	struct dump d;
	int c, rc;

	while ((c = getopt_long(argc, argv, "f:n:", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (parse_format(optarg, &fmt))
				return riot_usage("unknown format '%s' (text, csv or jsonl)", optarg);
			break;
		case 'n':
			if (riot_parse_u64(optarg, &limit))
				return riot_usage("--limit needs a whole number, not '%s'", optarg);
			break;
		case 't':
			if (parse_types(optarg, &types))
				return riot_usage("--type wants syscall, proc, snap_proc, snap_fd, "
						  "drop or string, comma-separated");
			break;
		default:
			return riot_usage("bad option");
		}
	}
	rd = inspect_open_logs(argc, argv, &logs, &c);
	if (!rd)
		return c;
	memset(&d, 0, sizeof(d));
	d.types = types;
	d.t0 = riot_reader_header(rd)->start_t;
	d.model = model_new();
	if (!d.model) {
		riot_err("out of memory");
		riot_reader_close(rd);
		return RIOT_EXIT_FAIL;
	}
	emit_init(&d.e, fmt, stdout);
	rc = dump_log(&d, rd, logs.paths[0], limit);
	emit_fini(&d.e);
	model_free(d.model);
	riot_reader_close(rd);
	return rc ? RIOT_EXIT_FAIL : RIOT_EXIT_OK;
}
