/* inspect/cmd_info.c: `riot info FILE [--json]`: what a log holds, in one read.
 *
 * Streams the log once through the reader and the resolver, so memory does
 * not grow with the number of events. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
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

static void print_bound(const struct info *in)
{
	const char *b = bound_name(in);
	double all = (double)in->in_calls_ns + (double)in->between_ns;
	char t1[32], t2[32];

	if (!b) {
		printf("workload:    no time in or between calls\n");
		return;
	}
	printf("workload:    %s: %.1f %% of thread time in calls (%s), %.1f %% between "
	       "them (%s)\n", strcmp(b, "io") == 0 ? "I/O-bound" : "think-bound",
	       100.0 * (double)in->in_calls_ns / all,
	       riot_fmt_ns(in->in_calls_ns, t1, sizeof(t1)),
	       100.0 * (double)in->between_ns / all, riot_fmt_ns(in->between_ns, t2, sizeof(t2)));
}

static void print_json(const struct info_view *v)
{
	const struct info *in = v->in;
	char when[64];
	struct json j;

	wall_time(v->h, when, sizeof(when));
	json_init(&j, stdout, true);
	json_obj_open(&j, NULL);
	json_str(&j, "file", v->file);
	json_obj_open(&j, "header");
	json_u64(&j, "format_major", v->h->major);
	json_u64(&j, "format_minor", v->h->minor);
	json_str(&j, "host", v->h->host);
	json_str(&j, "kernel", v->h->kernel);
	json_str(&j, "arch", v->h->arch);
	json_str(&j, "riot_version", v->h->riot_version);
	json_str(&j, "cmdline", v->h->cmdline);
	json_str(&j, "options", v->h->options);
	json_str(&j, "target", v->h->target);
	json_str(&j, "start", when);
	if (v->h->segment) {	/* a segment of a rotated capture, or several */
		json_str(&j, "capture_id", v->h->capture_id);
		json_u64(&j, "segment", v->h->segment);
	}
	if (v->h->probe_calls) {	/* format 1.7 */
		json_u64(&j, "probe_ns", v->h->probe_ns);
		json_u64(&j, "probe_calls", v->h->probe_calls);
		json_u64(&j, "probe_untraced_ns", v->h->probe_untraced_ns);
		json_u64(&j, "probe_recorded_ns", v->h->probe_recorded_ns);
	}
	if (v->h->fallbacks_known)	/* format 1.8 */
		json_str(&j, "fallbacks", v->h->fallbacks);
	json_obj_close(&j);
	if (v->h->segment)
		json_u64(&j, "segments", v->files);
	json_bool(&j, "complete", v->complete);
	json_str(&j, "incomplete_reason", v->incomplete);
	json_u64(&j, "events", in->events);
	json_u64(&j, "syscalls", in->records[RIOT_REC_SYSCALL]);
	json_u64(&j, "drops", in->drops);
	json_u64(&j, "duration_ns", view_duration(v));
	json_u64(&j, "file_bytes", v->file_bytes);
	json_u64(&j, "blocks", v->blocks);
	json_double(&j, "bytes_per_event", view_bytes_per_event(v));
	json_u64(&j, "bytes_read", in->bytes_read);
	json_u64(&j, "bytes_written", in->bytes_written);
	json_u64(&j, "errors", in->errors_total);
	json_u64(&j, "processes", v->ms->processes);
	json_u64(&j, "threads", v->ms->threads);
	json_u64(&j, "paths", v->ms->paths);
	json_u64(&j, "files", v->ms->files);
	json_u64(&j, "unresolved_fds", v->ms->unresolved_fd);
	json_u64(&j, "nonfile_fd_ops", v->ms->nonfile_fd);
	json_u64(&j, "unknown_cwd", v->ms->unknown_cwd);
	json_u64(&j, "truncated_paths", in->truncated_paths);
	json_u64(&j, "time_in_calls_ns", in->in_calls_ns);
	json_u64(&j, "time_between_calls_ns", in->between_ns);
	json_str(&j, "bound", bound_name(in));
	json_obj_open(&j, "records");
	for (unsigned t = 1; t <= RIOT_REC_TYPE_MAX; t++)
		if (in->records[t])
			json_u64(&j, rec_names[t], in->records[t]);
	json_obj_close(&j);
	json_obj_open(&j, "ops");
	for (unsigned s = 0; s < RIOT_SYS_COUNT; s++)
		if (in->ops[s])
			json_u64(&j, riot_sys_info(s)->name, in->ops[s]);
	json_obj_close(&j);
	json_obj_open(&j, "op_errors");
	for (unsigned s = 0; s < RIOT_SYS_COUNT; s++)
		if (in->errors[s])
			json_u64(&j, riot_sys_info(s)->name, in->errors[s]);
	json_obj_close(&j);
	json_obj_close(&j);
	json_end_line(&j);
}

static void print_text(const struct info_view *v)
{
	const struct info *in = v->in;
	char when[64], size[32], b[6][512];

	wall_time(v->h, when, sizeof(when));
	printf("file:        %s (%s, %" PRIu64 " blocks)\n", text_safe(v->file, b[0], 512),
	       riot_fmt_bytes(v->file_bytes, size, sizeof(size)), v->blocks);
	printf("format:      %u.%u\n", v->h->major, v->h->minor);
	if (v->h->segment && v->files > 1)
		printf("segments:    %" PRIu64 " to %" PRIu64 " of capture %s\n", v->h->segment,
		       v->h->segment + v->files - 1, text_safe(v->h->capture_id, b[0], 512));
	else if (v->h->segment)
		printf("segment:     %" PRIu64 " of capture %s\n", v->h->segment,
		       text_safe(v->h->capture_id, b[0], 512));
	printf("complete:    %s%s%s\n", v->complete ? "yes" : "no",
	       v->incomplete ? ": " : "", v->incomplete ? v->incomplete : "");
	printf("host:        %s (%s, %s)\n", text_safe(v->h->host ? v->h->host : "?", b[1], 512),
	       text_safe(v->h->kernel ? v->h->kernel : "?", b[2], 512),
	       text_safe(v->h->arch ? v->h->arch : "?", b[3], 512));
	printf("written by:  riot %s: ", text_safe(v->h->riot_version ? v->h->riot_version : "?",
						   b[4], 512));
	text_put(stdout, v->h->cmdline ? v->h->cmdline : "?");
	printf("\n");
	if (v->h->target) {
		printf("target:      ");
		text_put(stdout, v->h->target);
		printf("\n");
	}
	if (v->h->fallbacks_known) {	/* format 1.8 */
		printf("fallbacks:   ");
		text_put(stdout, v->h->fallbacks[0] ? v->h->fallbacks : "none");
		printf("\n");
	}
	printf("start:       %s\n", when);
	printf("duration:    %.6f s\n", (double)view_duration(v) / 1e9);
	if (v->h->probe_calls)
		printf("probe time:  %" PRIu64 " ns a call, taken off durations by riot report "
		       "(%" PRIu64 " newfstatat: %" PRIu64 " ns untraced, %" PRIu64 " ns recorded)\n",
		       v->h->probe_ns, v->h->probe_calls, v->h->probe_untraced_ns,
		       v->h->probe_recorded_ns);
	printf("events:      %" PRIu64 " (%" PRIu64 " syscalls, %" PRIu64 " process events)\n",
	       in->events, in->records[RIOT_REC_SYSCALL], in->records[RIOT_REC_PROC]);
	printf("drops:       %" PRIu64 "%s\n", in->drops,
	       in->drops ? " events lost: counts are lower bounds" : "");
	printf("size:        %.2f bytes per event\n", view_bytes_per_event(v));
	printf("processes:   %" PRIu64 " (%" PRIu64 " threads)\n", v->ms->processes, v->ms->threads);
	printf("paths:       %" PRIu64 " distinct, %" PRIu64 " files opened\n",
	       v->ms->paths, v->ms->files);
	printf("bytes:       %" PRIu64 " read, %" PRIu64 " written\n",
	       in->bytes_read, in->bytes_written);
	printf("unresolved:  %" PRIu64 " fd operations, %" PRIu64
	       " relative paths with unknown cwd, %" PRIu64 " truncated paths\n",
	       v->ms->unresolved_fd, v->ms->unknown_cwd, in->truncated_paths);
	printf("non-files:   %" PRIu64 " fd operations on pipes, sockets and the like\n",
	       v->ms->nonfile_fd);
	print_bound(in);
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

		if (as_json)
			print_json(&v);
		else
			print_text(&v);
		status = RIOT_EXIT_OK;
	}
out:
	model_free(m);
	free(in);
	riot_reader_close(rd);
	return status;
}
