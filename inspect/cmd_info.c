/* inspect/cmd_info.c: `riot info FILE [--json]`: what a log holds, in one read.
 *
 * Streams the log once through the reader and the resolver, so memory does
 * not grow with the number of events. */
#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats/log.h"
#include "inspect/inspect.h"
#include "inspect/inspect_int.h"
#include "lib/cli.h"
#include "lib/text.h"
#include "lib/json.h"
#include "model/model.h"

const char cmd_info_help[] =
	"Usage: riot info FILE [--json]\n"
	"\n"
	"Summarises a .riot log: its header (host, kernel, riot version, command\n"
	"line), time span, records per type and per syscall, processes, threads,\n"
	"distinct paths, bytes read and written, errors, drops, fds that could not\n"
	"be resolved, whether the log is complete, and its size in bytes per event.\n"
	"\n"
	"The workload line says whether the program was I/O-bound or think-bound:\n"
	"its threads' time inside their calls (durations, less the probe time\n"
	"riot report takes off them) against their time between calls (each\n"
	"call's gap_ns, as riot dump shows it: since the end of the same thread's\n"
	"previous call). I/O-bound when the calls took at least as long as the\n"
	"gaps, think-bound otherwise. Asynchronous requests count in neither,\n"
	"nor does the time in process calls (a vfork waits for its child).\n"
	"\n"
	"A log whose writer was killed is read up to its last complete block and\n"
	"reported as incomplete (exit 0). A corrupt log is an error (exit 1).\n"
	"\n"
	"  --json   one JSON object; keys include events, drops, complete,\n"
	"           duration_ns, bytes_per_event, time_in_calls_ns,\n"
	"           time_between_calls_ns, bound (io, think or null) and ops\n"
	"           (syscall -> count)\n";

struct info {
	uint64_t records[RIOT_REC_TYPE_MAX + 1];	/* last: unknown types */
	uint64_t ops[RIOT_SYS_COUNT];
	uint64_t errors[RIOT_SYS_COUNT];
	uint64_t errors_total;
	uint64_t events;		/* syscall + proc records */
	uint64_t drops;
	uint64_t bytes_read, bytes_written;
	uint64_t t_first, t_last;	/* earliest entry, latest exit */
	uint64_t truncated_paths;
	uint64_t probe_ns;		/* taken off each duration */
	uint64_t in_calls_ns;		/* the threads' calls' durations */
	uint64_t between_ns;		/* their gaps (model_op.gap_ns) */
};

static void note_time(struct info *in, uint64_t t, uint64_t end)
{
	if (!in->t_first || t < in->t_first)
		in->t_first = t;
	if (end > in->t_last)
		in->t_last = end;
}

static void count_syscall(struct info *in, const struct riot_syscall *sc)
{
	const struct riot_sys_info *si = riot_sys_info(sc->sys);

	note_time(in, sc->t, sc->t + sc->dur);
	if (!si)
		return;
	in->ops[sc->sys]++;
	if (sc->ret < 0) {
		in->errors[sc->sys]++;
		in->errors_total++;
		return;
	}
	switch (si->cls) {
	case RIOT_CLASS_DATA_READ:
		in->bytes_read += (uint64_t)sc->ret;
		break;
	case RIOT_CLASS_DATA_WRITE:
		/* truncate, ftruncate and fallocate return 0: they add no bytes */
		in->bytes_written += (uint64_t)sc->ret;
		break;
	case RIOT_CLASS_DATA_COPY:
		in->bytes_read += (uint64_t)sc->ret;
		in->bytes_written += (uint64_t)sc->ret;
		break;
	default:
		break;
	}
	if (sc->path.truncated || sc->path2.truncated)
		in->truncated_paths++;
}

/* A thread's time in its calls and between them. Asynchronous requests
 * overlap their thread's calls: they count in neither; nor does the time
 * in process calls (a vfork waits for its child, whose own calls count). */
static void count_think(struct info *in, const struct riot_syscall *sc,
			const struct model_op *op)
{
	const struct riot_sys_info *si = riot_sys_info(sc->sys);

	if (si && (si->flags & RIOT_SF_ASYNC))
		return;
	if (!si || si->cls != RIOT_CLASS_PROC)
		in->in_calls_ns += sc->dur > in->probe_ns ? sc->dur - in->probe_ns : 0;
	if (op->has_gap)
		in->between_ns += op->gap_ns;
}

static void count_record(struct info *in, const struct riot_rec *r)
{
	in->records[r->type < RIOT_REC_TYPE_MAX ? r->type : RIOT_REC_TYPE_MAX]++;
	switch (r->type) {
	case RIOT_REC_SYSCALL:
		in->events++;
		count_syscall(in, &r->sc);
		break;
	case RIOT_REC_PROC:
		in->events++;
		note_time(in, r->proc.t, r->proc.t);
		break;
	case RIOT_REC_DROP:
		in->drops += r->drop.count;
		break;
	default:
		break;
	}
}

static const char *const rec_names[RIOT_REC_TYPE_MAX + 1] = {
	[RIOT_REC_STRING] = "string",
	[RIOT_REC_SYSCALL] = "syscall",
	[RIOT_REC_PROC] = "proc",
	[RIOT_REC_SNAP_PROC] = "snap_proc",
	[RIOT_REC_SNAP_FD] = "snap_fd",
	[RIOT_REC_DROP] = "drop",
	[RIOT_REC_TYPE_MAX] = "unknown",
};

struct info_view {
	const char *file;
	const struct riot_log_header *h;
	const struct info *in;
	const struct model_stats *ms;
	bool complete;
	const char *incomplete;
	uint64_t file_bytes, blocks;
	unsigned files;		/* segments read as one log */
};

static uint64_t view_duration(const struct info_view *v)
{
	uint64_t start = v->h->start_t && v->h->start_t <= v->in->t_first ?
		v->h->start_t : v->in->t_first;

	return v->in->t_last > start ? v->in->t_last - start : 0;
}

static double view_bytes_per_event(const struct info_view *v)
{
	return v->in->events ? (double)v->file_bytes / (double)v->in->events : 0;
}

static void wall_time(const struct riot_log_header *h, char *buf, size_t len)
{
	int64_t ns = (int64_t)h->start_t + h->boot_to_wall_ns;
	time_t secs = (time_t)(ns / 1000000000);
	struct tm tm;

	if (!h->start_t || !gmtime_r(&secs, &tm)) {
		snprintf(buf, len, "unknown");
		return;
	}
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The rule of `riot info`'s workload line: I/O-bound when the threads
 * spent at least as long inside their calls as between them. NULL: no
 * time either way. */
static const char *bound_name(const struct info *in)
{
	if (!in->in_calls_ns && !in->between_ns)
		return NULL;
	return in->in_calls_ns >= in->between_ns ? "io" : "think";
}

/* ---- the facts, once; the text and JSON printers read them ---- */

/* When a fact is there: in JSON, and each text line that shows it. */
enum info_when {
	IW_ALWAYS,
	IW_SEGMENT,	/* a segment of a rotated capture, or several */
	IW_SEGMENTS,	/* several segments read as one */
	IW_ONE_SEGMENT,
	IW_PROBE,	/* format 1.7: the probe time */
	IW_FALLBACKS,	/* format 1.8 */
	IW_TARGET,
	IW_COUNT
};

/* Every fact of `riot info` but its per-type and per-syscall counts. */
struct info_row {
	bool when[IW_COUNT];
	const char *file;
	uint64_t format_major, format_minor;
	const char *host, *kernel, *arch, *riot_version, *cmdline, *options, *target;
	char start[64];
	const char *capture_id;
	uint64_t segment, segment_last, segments;
	uint64_t probe_ns, probe_calls, probe_untraced_ns, probe_recorded_ns;
	const char *fallbacks;
	bool complete;
	const char *incomplete_reason;
	uint64_t events, syscalls, proc_events, drops, duration_ns, file_bytes, blocks;
	double bytes_per_event;
	uint64_t bytes_read, bytes_written, errors;
	uint64_t processes, threads, paths, files, unresolved_fds, nonfile_fd_ops, unknown_cwd;
	uint64_t truncated_paths, time_in_calls_ns, time_between_calls_ns;
	const char *bound;
};

enum info_kind {
	IK_U64, IK_DOUBLE, IK_BOOL, IK_STR,	/* uint64_t, double, bool, const char * */
	IK_STR_BUF,				/* char [] */
	IK_OBJ, IK_END,				/* a JSON object opened, closed */
};

struct info_field {
	const char *key;	/* its JSON member and its name in text_lines[] */
	enum info_kind kind;
	size_t off;		/* in struct info_row */
	enum info_when when;
	bool text_only;		/* not in JSON */
};

#define IF(key, kind, when) { #key, kind, offsetof(struct info_row, key), when, false }
#define IF_TEXT(key, kind) { #key, kind, offsetof(struct info_row, key), IW_ALWAYS, true }

/* In JSON's order. */
static const struct info_field info_fields[] = {
	IF(file, IK_STR, IW_ALWAYS),
	{ "header", IK_OBJ, 0, IW_ALWAYS, false },
	IF(format_major, IK_U64, IW_ALWAYS),
	IF(format_minor, IK_U64, IW_ALWAYS),
	IF(host, IK_STR, IW_ALWAYS),
	IF(kernel, IK_STR, IW_ALWAYS),
	IF(arch, IK_STR, IW_ALWAYS),
	IF(riot_version, IK_STR, IW_ALWAYS),
	IF(cmdline, IK_STR, IW_ALWAYS),
	IF(options, IK_STR, IW_ALWAYS),
	IF(target, IK_STR, IW_ALWAYS),
	IF(start, IK_STR_BUF, IW_ALWAYS),
	IF(capture_id, IK_STR, IW_SEGMENT),
	IF(segment, IK_U64, IW_SEGMENT),
	IF(probe_ns, IK_U64, IW_PROBE),
	IF(probe_calls, IK_U64, IW_PROBE),
	IF(probe_untraced_ns, IK_U64, IW_PROBE),
	IF(probe_recorded_ns, IK_U64, IW_PROBE),
	IF(fallbacks, IK_STR, IW_FALLBACKS),
	{ "header", IK_END, 0, IW_ALWAYS, false },
	IF(segments, IK_U64, IW_SEGMENT),
	IF(complete, IK_BOOL, IW_ALWAYS),
	IF(incomplete_reason, IK_STR, IW_ALWAYS),
	IF(events, IK_U64, IW_ALWAYS),
	IF(syscalls, IK_U64, IW_ALWAYS),
	IF(drops, IK_U64, IW_ALWAYS),
	IF(duration_ns, IK_U64, IW_ALWAYS),
	IF(file_bytes, IK_U64, IW_ALWAYS),
	IF(blocks, IK_U64, IW_ALWAYS),
	IF(bytes_per_event, IK_DOUBLE, IW_ALWAYS),
	IF(bytes_read, IK_U64, IW_ALWAYS),
	IF(bytes_written, IK_U64, IW_ALWAYS),
	IF(errors, IK_U64, IW_ALWAYS),
	IF(processes, IK_U64, IW_ALWAYS),
	IF(threads, IK_U64, IW_ALWAYS),
	IF(paths, IK_U64, IW_ALWAYS),
	IF(files, IK_U64, IW_ALWAYS),
	IF(unresolved_fds, IK_U64, IW_ALWAYS),
	IF(nonfile_fd_ops, IK_U64, IW_ALWAYS),
	IF(unknown_cwd, IK_U64, IW_ALWAYS),
	IF(truncated_paths, IK_U64, IW_ALWAYS),
	IF(time_in_calls_ns, IK_U64, IW_ALWAYS),
	IF(time_between_calls_ns, IK_U64, IW_ALWAYS),
	IF(bound, IK_STR, IW_ALWAYS),
	IF_TEXT(segment_last, IK_U64),
	IF_TEXT(proc_events, IK_U64),
};

/* The text output's lines, in order: each {key} (or {key:how}) is a
 * field's value, as text_value() writes it; a line is printed when its
 * condition holds. */
static const struct info_line {
	enum info_when when;
	const char *text;
} text_lines[] = {
	{ IW_ALWAYS, "file:        {file:safe} ({file_bytes:bytes}, {blocks} blocks)" },
	{ IW_ALWAYS, "format:      {format_major}.{format_minor}" },
	{ IW_SEGMENTS, "segments:    {segment} to {segment_last} of capture {capture_id:safe}" },
	{ IW_ONE_SEGMENT, "segment:     {segment} of capture {capture_id:safe}" },
	{ IW_ALWAYS, "complete:    {complete}{incomplete_reason:after}" },
	{ IW_ALWAYS, "host:        {host:safe?} ({kernel:safe?}, {arch:safe?})" },
	{ IW_ALWAYS, "written by:  riot {riot_version:safe?}: {cmdline:put?}" },
	{ IW_TARGET, "target:      {target:put?}" },
	{ IW_FALLBACKS, "fallbacks:   {fallbacks:put_none}" },
	{ IW_ALWAYS, "start:       {start}" },
	{ IW_ALWAYS, "duration:    {duration_ns:s} s" },
	{ IW_PROBE, "probe time:  {probe_ns} ns a call, taken off durations by riot report "
		    "({probe_calls} newfstatat: {probe_untraced_ns} ns untraced, "
		    "{probe_recorded_ns} ns recorded)" },
	{ IW_ALWAYS, "events:      {events} ({syscalls} syscalls, {proc_events} process events)" },
	{ IW_ALWAYS, "drops:       {drops}{drops:lost}" },
	{ IW_ALWAYS, "size:        {bytes_per_event} bytes per event" },
	{ IW_ALWAYS, "processes:   {processes} ({threads} threads)" },
	{ IW_ALWAYS, "paths:       {paths} distinct, {files} files opened" },
	{ IW_ALWAYS, "bytes:       {bytes_read} read, {bytes_written} written" },
	{ IW_ALWAYS, "unresolved:  {unresolved_fds} fd operations, {unknown_cwd} relative "
		     "paths with unknown cwd, {truncated_paths} truncated paths" },
	{ IW_ALWAYS, "non-files:   {nonfile_fd_ops} fd operations on pipes, sockets and the like" },
	{ IW_ALWAYS, "workload:    {bound:workload}" },
};

static void fill_row(struct info_row *r, const struct info_view *v)
{
	const struct riot_log_header *h = v->h;
	const struct info *in = v->in;

	memset(r, 0, sizeof(*r));
	r->when[IW_ALWAYS] = true;
	r->when[IW_SEGMENT] = h->segment != 0;
	r->when[IW_SEGMENTS] = h->segment && v->files > 1;
	r->when[IW_ONE_SEGMENT] = h->segment && v->files <= 1;
	r->when[IW_PROBE] = h->probe_calls != 0;
	r->when[IW_FALLBACKS] = h->fallbacks_known;
	r->when[IW_TARGET] = h->target != NULL;
	r->file = v->file;
	r->format_major = h->major;
	r->format_minor = h->minor;
	r->host = h->host;
	r->kernel = h->kernel;
	r->arch = h->arch;
	r->riot_version = h->riot_version;
	r->cmdline = h->cmdline;
	r->options = h->options;
	r->target = h->target;
	wall_time(h, r->start, sizeof(r->start));
	r->capture_id = h->capture_id;
	r->segment = h->segment;
	r->segment_last = h->segment + v->files - 1;
	r->segments = v->files;
	r->probe_ns = h->probe_ns;
	r->probe_calls = h->probe_calls;
	r->probe_untraced_ns = h->probe_untraced_ns;
	r->probe_recorded_ns = h->probe_recorded_ns;
	r->fallbacks = h->fallbacks;
	r->complete = v->complete;
	r->incomplete_reason = v->incomplete;
	r->events = in->events;
	r->syscalls = in->records[RIOT_REC_SYSCALL];
	r->proc_events = in->records[RIOT_REC_PROC];
	r->drops = in->drops;
	r->duration_ns = view_duration(v);
	r->file_bytes = v->file_bytes;
	r->blocks = v->blocks;
	r->bytes_per_event = view_bytes_per_event(v);
	r->bytes_read = in->bytes_read;
	r->bytes_written = in->bytes_written;
	r->errors = in->errors_total;
	r->processes = v->ms->processes;
	r->threads = v->ms->threads;
	r->paths = v->ms->paths;
	r->files = v->ms->files;
	r->unresolved_fds = v->ms->unresolved_fd;
	r->nonfile_fd_ops = v->ms->nonfile_fd;
	r->unknown_cwd = v->ms->unknown_cwd;
	r->truncated_paths = in->truncated_paths;
	r->time_in_calls_ns = in->in_calls_ns;
	r->time_between_calls_ns = in->between_ns;
	r->bound = bound_name(in);
}

static uint64_t row_u64(const struct info_row *r, const struct info_field *f)
{
	uint64_t v;

	memcpy(&v, (const char *)r + f->off, sizeof(v));
	return v;
}

static const char *row_str(const struct info_row *r, const struct info_field *f)
{
	const char *v;

	if (f->kind == IK_STR_BUF)
		return (const char *)r + f->off;
	memcpy(&v, (const char *)r + f->off, sizeof(v));
	return v;
}

static double row_double(const struct info_row *r, const struct info_field *f)
{
	double v;

	memcpy(&v, (const char *)r + f->off, sizeof(v));
	return v;
}

static bool row_bool(const struct info_row *r, const struct info_field *f)
{
	bool v;

	memcpy(&v, (const char *)r + f->off, sizeof(v));
	return v;
}

/* The workload line: how much of the threads' time was in their calls. */
static void put_bound(const struct info_row *r)
{
	double all = (double)r->time_in_calls_ns + (double)r->time_between_calls_ns;
	char t1[32], t2[32];

	if (!r->bound) {
		printf("no time in or between calls");
		return;
	}
	printf("%s: %.1f %% of thread time in calls (%s), %.1f %% between them (%s)",
	       strcmp(r->bound, "io") == 0 ? "I/O-bound" : "think-bound",
	       100.0 * (double)r->time_in_calls_ns / all,
	       riot_fmt_ns(r->time_in_calls_ns, t1, sizeof(t1)),
	       100.0 * (double)r->time_between_calls_ns / all,
	       riot_fmt_ns(r->time_between_calls_ns, t2, sizeof(t2)));
}

/* A field's value in a text line, as how says: safe (escaped; safe? and
 * put? "?" for none), put (written escaped; put_none "none" when empty),
 * bytes ("1.2 KiB"), s (ns as seconds), after (": " and the text, when
 * any), lost (the drops' warning, when any), workload (the line's words);
 * none: as its kind is. */
static void text_value(const struct info_row *r, const struct info_field *f, const char *how,
		       size_t howlen)
{
	char buf[512];
	const char *s = f->kind == IK_STR || f->kind == IK_STR_BUF ? row_str(r, f) : NULL;

#define HOW(name) (howlen == sizeof(name) - 1 && strncmp(how, name, howlen) == 0)
	if (HOW("safe") || HOW("safe?"))
		fputs(text_safe(!s && HOW("safe?") ? "?" : s, buf, sizeof(buf)), stdout);
	else if (HOW("put?"))
		text_put(stdout, s ? s : "?");
	else if (HOW("put_none"))
		text_put(stdout, s[0] ? s : "none");
	else if (HOW("bytes"))
		fputs(riot_fmt_bytes(row_u64(r, f), buf, sizeof(buf)), stdout);
	else if (HOW("s"))
		printf("%.6f", (double)row_u64(r, f) / 1e9);
	else if (HOW("after"))
		printf("%s%s", s ? ": " : "", s ? s : "");
	else if (HOW("lost"))
		fputs(row_u64(r, f) ? " events lost: counts are lower bounds" : "", stdout);
	else if (HOW("workload"))
		put_bound(r);
	else if (f->kind == IK_U64)
		printf("%" PRIu64, row_u64(r, f));
	else if (f->kind == IK_DOUBLE)
		printf("%.2f", row_double(r, f));
	else if (f->kind == IK_BOOL)
		fputs(row_bool(r, f) ? "yes" : "no", stdout);
	else
		fputs(s ? s : "", stdout);
#undef HOW
}

static const struct info_field *field_named(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(info_fields) / sizeof(info_fields[0]); i++)
		if (strlen(info_fields[i].key) == len && strncmp(info_fields[i].key, name, len) == 0 &&
		    info_fields[i].kind < IK_OBJ)
			return &info_fields[i];
	return NULL;
}

/* One of text_lines[], its {fields} filled in. */
static void text_line(const struct info_row *r, const char *t)
{
	while (*t) {
		const char *open = strchr(t, '{'), *close, *colon;
		const struct info_field *f;

		if (!open) {
			fputs(t, stdout);
			break;
		}
		fwrite(t, 1, (size_t)(open - t), stdout);
		close = strchr(open, '}');
		colon = memchr(open, ':', (size_t)(close - open));
		f = field_named(open + 1, (size_t)((colon ? colon : close) - open - 1));
		assert(f);	/* text_lines[] names only info_fields[] */
		if (colon)
			text_value(r, f, colon + 1, (size_t)(close - colon - 1));
		else
			text_value(r, f, "", 0);
		t = close + 1;
	}
	putchar('\n');
}

static void json_fields(struct json *j, const struct info_row *r)
{
	for (size_t i = 0; i < sizeof(info_fields) / sizeof(info_fields[0]); i++) {
		const struct info_field *f = &info_fields[i];

		if (f->text_only || !r->when[f->when])
			continue;
		switch (f->kind) {
		case IK_U64:
			json_u64(j, f->key, row_u64(r, f));
			break;
		case IK_DOUBLE:
			json_double(j, f->key, row_double(r, f));
			break;
		case IK_BOOL:
			json_bool(j, f->key, row_bool(r, f));
			break;
		case IK_STR:
		case IK_STR_BUF:
			json_str(j, f->key, row_str(r, f));
			break;
		case IK_OBJ:
			json_obj_open(j, f->key);
			break;
		case IK_END:
			json_obj_close(j);
			break;
		}
	}
}

/* The counts per record type and per syscall ("records", "ops",
 * "op_errors"), whose keys are the log's. */
static void json_counts(struct json *j, const struct info *in)
{
	json_obj_open(j, "records");
	for (unsigned t = 1; t <= RIOT_REC_TYPE_MAX; t++)
		if (in->records[t])
			json_u64(j, rec_names[t], in->records[t]);
	json_obj_close(j);
	json_obj_open(j, "ops");
	for (unsigned s = 0; s < RIOT_SYS_COUNT; s++)
		if (in->ops[s])
			json_u64(j, riot_sys_info(s)->name, in->ops[s]);
	json_obj_close(j);
	json_obj_open(j, "op_errors");
	for (unsigned s = 0; s < RIOT_SYS_COUNT; s++)
		if (in->errors[s])
			json_u64(j, riot_sys_info(s)->name, in->errors[s]);
	json_obj_close(j);
}

static void text_counts(const struct info *in)
{
	printf("records:    ");
	for (unsigned t = 1; t <= RIOT_REC_TYPE_MAX; t++)
		if (in->records[t])
			printf(" %s=%" PRIu64, rec_names[t], in->records[t]);
	printf("\n%-20s %12s %10s\n", "syscall", "count", "errors");
	for (unsigned s = 0; s < RIOT_SYS_COUNT; s++)
		if (in->ops[s])
			printf("%-20s %12" PRIu64 " %10" PRIu64 "\n", riot_sys_info(s)->name,
			       in->ops[s], in->errors[s]);
}

static void print_info(const struct info_view *v, bool as_json)
{
	struct info_row r;
	struct json j;

	fill_row(&r, v);
	if (as_json) {
		json_init(&j, stdout, true);
		json_obj_open(&j, NULL);
		json_fields(&j, &r);
		json_counts(&j, v->in);
		json_obj_close(&j);
		json_end_line(&j);
		return;
	}
	for (size_t i = 0; i < sizeof(text_lines) / sizeof(text_lines[0]); i++)
		if (r.when[text_lines[i].when])
			text_line(&r, text_lines[i].text);
	text_counts(v->in);
}

/* Reads the whole log into *in and the model. 0, or -errno with the reason
 * printed. */
static int scan_log(struct riot_reader *rd, const char *file, struct info *in,
		    struct model *m)
{
	struct riot_rec rec;
	struct model_op op;
	int rc;

	while ((rc = riot_reader_next(rd, &rec)) > 0) {
		count_record(in, &rec);
		rc = model_apply(m, &rec, &op);
		if (rc < 0) {
			riot_err("%s: %s", file, model_strerror(rc));
			return rc;
		}
		if (rec.type == RIOT_REC_SYSCALL)
			count_think(in, &rec.sc, &op);
	}
	if (rc < 0) {
		riot_err("%s: %s", file, riot_reader_error(rd));
		return rc;
	}
	return 0;
}

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = { { "json", no_argument, NULL, 'j' }, { 0 } };
	struct info *in = NULL;
	struct riot_reader *rd = NULL;
	struct riot_logs logs;
	struct model *m = NULL;
	bool as_json = false;
	int c, status = RIOT_EXIT_FAIL;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'j')
			return riot_usage("bad option");
		as_json = true;
	}
	rd = inspect_open_logs(argc, argv, &logs, &c);
	if (!rd)
		return c;
	in = calloc(1, sizeof(*in));
	m = model_new();
	if (!in || !m) {
		riot_err("out of memory");
		goto out;
	}
	in->probe_ns = riot_reader_header(rd)->probe_calls ? riot_reader_header(rd)->probe_ns : 0;
	if (scan_log(rd, logs.paths[0], in, m) == 0) {
		struct info_view v = {
			.file = logs.paths[0],
			.h = riot_reader_header(rd),
			.in = in,
			.ms = model_stats(m),
			.complete = riot_reader_complete(rd),
			.incomplete = riot_reader_incomplete_reason(rd),
			.file_bytes = riot_reader_file_bytes(rd),
			.blocks = riot_reader_blocks(rd),
			.files = logs.n,
		};

		print_info(&v, as_json);
		status = RIOT_EXIT_OK;
	}
out:
	model_free(m);
	free(in);
	riot_reader_close(rd);
	return status;
}
