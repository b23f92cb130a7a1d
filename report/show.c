/* report/show.c: `riot report show DB`: the runs of a report, as tables or
 * JSON. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/columns.h"
#include "report/report_int.h"
#include "lib/cli.h"
#include "lib/fields.h"
#include "lib/json.h"
#include "lib/text.h"
#include "report/view.h"


/* s (dflt when empty) made safe for a terminal: a report's strings come
 * from logs. Valid until 16 more calls. */
static const char *s_or(const char *s, const char *dflt)
{
	static char bufs[16][512];
	static unsigned n;

	return text_safe(s && *s ? s : dflt, bufs[n++ % 16], sizeof(bufs[0]));
}

static void wall(int64_t unix_ns, char *buf, size_t len)
{
	time_t secs = (time_t)(unix_ns / 1000000000);
	struct tm tm;

	if (!unix_ns || !gmtime_r(&secs, &tm))
		snprintf(buf, len, "unknown");
	else
		strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void print_header(const struct run_view *v)
{
	char when[64], b1[32], b2[32], mem[32], b1big[4 * 320 + 8];

	wall(v->start_unix_ns, when, sizeof(when));
	printf("run %" PRId64 ": %s (%s)\n", v->id, s_or(v->label, "?"), v->kind);
	if (v->unreliable == 1)
		printf("%s\n", text_safe(s_or(v->warning, "warning: not the captured I/O"), b1big,
					 sizeof(b1big)));
	printf("  host        %s, kernel %s, %s\n", s_or(v->host, "?"), s_or(v->kernel, "?"),
	       s_or(v->arch, "?"));
	printf("  machine     %s, %" PRId64 " CPUs, %s memory\n", s_or(v->cpu_model, "unknown CPU"),
	       v->cpu_count, v->memory_bytes ? riot_fmt_bytes((uint64_t)v->memory_bytes, mem, sizeof(mem)) : "unknown");
	printf("  filesystem  %s on %s at %s (%s)\n", s_or(v->fs_type, "unknown"),
	       s_or(v->fs_device, "?"), s_or(v->fs_mount_point, "?"), s_or(v->fs_mount_options, "?"));
	printf("  trace       %s (sha256 %.16s...)\n", s_or(v->trace_file, "?"),
	       s_or(v->trace_sha256, "?"));
	printf("  command     riot %s: %s\n", s_or(v->riot_version, "?"), s_or(v->cmdline, "?"));
	if (view_is_replay(v))
		printf("  replay      speed %g%s, order %s, %" PRId64 " workers, engine %s, fill %s\n",
		       v->replay_speed, v->replay_speed == 0 ? " (as fast as possible)" : "",
		       s_or(v->replay_order, "?"), v->replay_workers, s_or(v->replay_engine, "?"),
		       s_or(v->replay_fill, "?"));
	if (v->replay_timing && strcmp(v->replay_timing, "think") == 0)
		printf("  predicted   %.6f s: the program's time on this storage, timing think "
		       "(captured %.6f s)\n", (double)v->predicted_ns / 1e9,
		       (double)v->captured_ns / 1e9);
	printf("  start       %s, duration %.6f s%s\n", when, (double)v->duration_ns / 1e9,
	       v->complete == 0 ? " (log incomplete)" : "");
	printf("  operations  %" PRIu64 " syscalls (%" PRIu64 " failed), %" PRIu64
	       " process events, %.0f ops/s\n", v->ops, v->errors, v->proc_events,
	       view_rate(v->ops, v->duration_ns));
	printf("  bytes       %s read, %s written\n",
	       riot_fmt_bytes(v->bytes_read, b1, sizeof(b1)),
	       riot_fmt_bytes(v->bytes_written, b2, sizeof(b2)));
	printf("  loss        %" PRIu64 " dropped events, %" PRIu64 " unresolved fds, %" PRIu64
	       " unknown cwd, %" PRIu64 " truncated paths\n", v->dropped_events,
	       v->unresolved_fds, v->unknown_cwd, v->truncated_paths);
	if (v->probe_ns > 0)
		printf("  probe time  %" PRId64 " ns taken off each latency (what the capture's "
		       "probes added)\n", v->probe_ns);
}

/* ---- the tables: each described once, printed as text or JSON ---- */

/* where a field's value is (and no second offset) */
#define SYS(m) offsetof(struct sys_view, m), 0
#define CLS(m) offsetof(struct class_view, m), 0

/* The counts a syscall's row and a class's both begin with (S: SYS or
 * CLS). */
#define COUNT_FIELDS(S) \
	{ "count", "count", 11, FIELD_U64, S(count) }, \
	{ "errors", "errors", 8, FIELD_U64, S(errors) }, \
	{ "bytes", "bytes", 10, FIELD_BYTES, S(bytes) }, \
	{ "lat_sum_ns", NULL, 0, FIELD_NS, S(lat_sum) }

/* A syscall's counts and latency ("syscall" table; its JSON object). */
static const struct field sys_fields[] = {
	{ "class", NULL, 0, FIELD_STR, SYS(cls) },
	COUNT_FIELDS(SYS),
	{ "lat_mean_ns", "mean", 10, FIELD_MEAN_NS, SYS(mean) },
	{ "lat_min_ns", NULL, 0, FIELD_NS, SYS(lat_min) },
	{ "lat_p50_ns", "p50", 10, FIELD_NS, SYS(p50) },
	{ "lat_p90_ns", "p90", 10, FIELD_NS, SYS(p90) },
	{ "lat_p99_ns", "p99", 10, FIELD_NS, SYS(p99) },
	{ "lat_p999_ns", "p99.9", 10, FIELD_NS, SYS(p999) },
	{ "lat_max_ns", "max", 10, FIELD_NS, SYS(lat_max) },
};

/* A replayed syscall's issue delays and divergences. */
static const struct field delay_fields[] = {
	{ "delay_count", "ops", 11, FIELD_U64, SYS(delay_count) },
	{ "delay_p50_ns", "p50", 10, FIELD_NS, SYS(delay_p50) },
	{ "delay_p99_ns", "p99", 10, FIELD_NS, SYS(delay_p99) },
	{ "delay_max_ns", "max", 10, FIELD_NS, SYS(delay_max) },
};

static const struct field div_fields[] = {
	{ "result", "result", 8, FIELD_U64, SYS(div[0]) },
	{ "bytes", "bytes", 8, FIELD_U64, SYS(div[1]) },
	{ "skipped", "skipped", 8, FIELD_U64, SYS(div[2]) },
	{ "other", "other", 8, FIELD_U64, SYS(div[3]) },
};

/* A class's ("class" table). */
static const struct field class_fields[] = {
	COUNT_FIELDS(CLS),
	{ "lat_p50_ns", "p50", 10, FIELD_NS, CLS(p50) },
	{ "lat_p90_ns", NULL, 0, FIELD_NS, CLS(p90) },
	{ "lat_p99_ns", "p99", 10, FIELD_NS, CLS(p99) },
	{ "lat_p999_ns", NULL, 0, FIELD_NS, CLS(p999) },
	{ "lat_max_ns", "max", 10, FIELD_NS, CLS(lat_max) },
	{ NULL, "total", 10, FIELD_NS, CLS(lat_sum) },
};

/* A class's think time: the gaps before its calls (captures). */
#define CLS_IF(m) offsetof(struct class_view, m), offsetof(struct class_view, gap_count)
static const struct field think_fields[] = {
	{ "gap_count", "calls", 11, FIELD_U64, CLS(gap_count) },
	{ "gap_p50_ns", "gap p50", 10, FIELD_NS_IF, CLS_IF(gap_p50) },
	{ "gap_p99_ns", "gap p99", 10, FIELD_NS_IF, CLS_IF(gap_p99) },
	{ "gap_sum_ns", "between", 10, FIELD_NS, CLS(gap_sum) },
	{ "think_share", "share", 8, FIELD_RATIO, CLS(think_share) },
};

/* A table's heading line: its name column, then fields' headings. */
static void table_head(const char *name, const struct field *f, size_t n,
		       const struct field *f2, size_t n2)
{
	printf("\n  %-18s", name);
	fields_head(stdout, f, n);
	fields_head(stdout, f2, n2);
	printf("\n");
}

static void table_row(const char *name, const struct field *f, size_t n, const struct field *f2,
		      size_t n2, const void *row)
{
	printf("  %-18s", name);
	fields_text(stdout, f, n, row);
	fields_text(stdout, f2, n2, row);
	printf("\n");
}

static bool diverged(const struct sys_view *s)
{
	return s->div[0] || s->div[1] || s->div[2] || s->div[3];
}

/* A paced replay's issue delays and divergences per syscall; a replay as
 * fast as possible had no schedule, so only its syscalls that diverged,
 * and nothing when none did. */
static void print_replay_table(const struct run_view *v)
{
	bool paced = v->replay_speed > 0, any = false;
	size_t nd = paced ? FIELDS_N(delay_fields) : 0;

	for (unsigned i = 0; i < v->nsys; i++)
		any |= diverged(&v->sys[i]);
	if (!paced && !any)
		return;
	table_head(paced ? "issue delay" : "divergences", delay_fields, nd, div_fields,
		   FIELDS_N(div_fields));
	for (unsigned i = 0; i < v->nsys; i++)
		if (paced || diverged(&v->sys[i]))
			table_row(v->sys[i].name, delay_fields, nd, div_fields,
				  FIELDS_N(div_fields), &v->sys[i]);
}

static void print_syscalls(const struct run_view *v)
{
	table_head("syscall", sys_fields, FIELDS_N(sys_fields), NULL, 0);
	for (unsigned i = 0; i < v->nsys; i++)
		table_row(v->sys[i].name, sys_fields, FIELDS_N(sys_fields), NULL, 0, &v->sys[i]);
	if (view_is_replay(v))
		print_replay_table(v);
}

static void print_classes(const struct run_view *v)
{
	table_head("class", class_fields, FIELDS_N(class_fields), NULL, 0);
	for (unsigned k = 0; k < VIEW_CLASSES; k++)
		if (v->cls[k].count)
			table_row(view_class_names[k], class_fields, FIELDS_N(class_fields), NULL,
				  0, &v->cls[k]);
	if (!v->cls[VIEW_CLASSES - 1].gap_count)
		return;
	printf("\n  think time: the gap before a call since its thread's previous call "
	       "ended;\n  share: of the threads' time, in calls and between them\n");
	table_head("think before", think_fields, FIELDS_N(think_fields), NULL, 0);
	for (unsigned k = 0; k < VIEW_CLASSES; k++)
		if (v->cls[k].gap_count)
			table_row(view_class_names[k], think_fields, FIELDS_N(think_fields), NULL,
				  0, &v->cls[k]);
}

/* Runs sql (one ?1 = run id) and prints each row under title: column i
 * as text when bit i of text is set, else as an integer. */
static void print_query(const struct run_view *v, const char *title, const char *cols,
			const char *sql, unsigned text)
{
	sqlite3_stmt *st;
	bool first = true;

	if (sqlite3_prepare_v2(v->db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, v->id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int n = sqlite3_column_count(st);

		if (first)
			printf("\n  %s\n  %s\n", title, cols);
		first = false;
		printf("  ");
		for (int i = 0; i < n; i++) {
			const char *t = (const char *)sqlite3_column_text(st, i);

			if (text >> i & 1)
				printf(i ? " %-18s" : "%-18s", s_or(t, "-"));
			else
				printf(i ? " %11lld" : "%11lld", (long long)sqlite3_column_int64(st, i));
		}
		printf("\n");
	}
	sqlite3_finalize(st);
}

static void print_run(const struct run_view *v)
{
	print_header(v);
	print_syscalls(v);
	print_classes(v);
	print_query(v, "errors", "syscall            errno                    count",
		    "SELECT sys, name, count FROM errors WHERE run_id = ?1 ORDER BY count DESC", 3);
	print_query(v, "files by time in syscalls (top 10)",
		    "        ops      errors  bytes read bytes written    total ns path",
		    "SELECT ops, errors, bytes_read, bytes_written, lat_sum_ns, "
		    "coalesce(path, '(no path)') FROM files WHERE run_id = ?1 "
		    "ORDER BY lat_sum_ns DESC LIMIT 10", 1u << 5);
	print_query(v, "processes by time in syscalls (top 10)",
		    "comm                       pid         ops      errors  bytes read bytes written    total ns",
		    "SELECT coalesce(comm, '?'), pid, ops, errors, bytes_read, bytes_written, "
		    "lat_sum_ns FROM processes WHERE run_id = ?1 ORDER BY lat_sum_ns DESC LIMIT 10", 1);
	device_show(stdout, v);
	printf("\n");
}

/* ---- JSON ---- */

static void json_run_header(struct json *j, const struct run_view *v)
{
	json_u64(j, "id", (uint64_t)v->id);
	json_str(j, "label", v->label);
	json_str(j, "kind", v->kind);
	json_str(j, "host", v->host);
	json_str(j, "kernel", v->kernel);
	json_str(j, "arch", v->arch);
	json_str(j, "cpu_model", v->cpu_model);
	json_i64(j, "cpu_count", v->cpu_count);
	json_i64(j, "memory_bytes", v->memory_bytes);
	json_str(j, "fs_type", v->fs_type);
	json_str(j, "fs_device", v->fs_device);
	json_str(j, "fs_mount_point", v->fs_mount_point);
	json_str(j, "fs_mount_options", v->fs_mount_options);
	json_str(j, "riot_version", v->riot_version);
	json_str(j, "cmdline", v->cmdline);
	json_str(j, "trace_file", v->trace_file);
	json_str(j, "trace_sha256", v->trace_sha256);
	json_i64(j, "start_unix_ns", v->start_unix_ns);
	json_u64(j, "duration_ns", v->duration_ns);
	if (view_is_replay(v)) {
		json_obj_open(j, "replay");
		json_double(j, "speed", v->replay_speed);
		json_str(j, "timing", v->replay_timing);
		if (v->predicted_ns > 0)
			json_i64(j, "predicted_ns", v->predicted_ns);
		else
			json_null(j, "predicted_ns");
		if (v->captured_ns > 0)
			json_i64(j, "captured_ns", v->captured_ns);
		else
			json_null(j, "captured_ns");
		json_bool(j, "unreliable", v->unreliable == 1);
		json_str(j, "warning", v->warning);
		json_str(j, "order", v->replay_order);
		json_i64(j, "workers", v->replay_workers);
		json_str(j, "engine", v->replay_engine);
		json_str(j, "fill", v->replay_fill);
		json_obj_close(j);
	}
	json_u64(j, "ops", v->ops);
	json_u64(j, "errors", v->errors);
	json_u64(j, "proc_events", v->proc_events);
	json_u64(j, "bytes_read", v->bytes_read);
	json_u64(j, "bytes_written", v->bytes_written);
	json_u64(j, "busy_ns", v->busy_ns);
	json_bool(j, "complete", v->complete != 0);
	json_u64(j, "dropped_events", v->dropped_events);
	json_u64(j, "unresolved_fds", v->unresolved_fds);
	json_u64(j, "unknown_cwd", v->unknown_cwd);
	json_u64(j, "truncated_paths", v->truncated_paths);
	json_u64(j, "timeline_late", v->timeline_late);
	if (v->probe_ns > 0)
		json_i64(j, "probe_ns", v->probe_ns);
}

static void json_sys(struct json *j, const struct sys_view *s, bool replay)
{
	json_obj_open(j, s->name);
	fields_json(j, sys_fields, FIELDS_N(sys_fields), s);
	if (replay) {
		fields_json(j, delay_fields, FIELDS_N(delay_fields), s);
		json_obj_open(j, "divergences");
		fields_json(j, div_fields, FIELDS_N(div_fields), s);
		json_obj_close(j);
	}
	json_obj_close(j);
}

static void json_errors(struct json *j, const struct run_view *v)
{
	sqlite3_stmt *st;

	json_arr_open(j, "errors");
	if (!columns_prepare(v->db, &column_errors, "WHERE run_id = ? ORDER BY sys, errno", &st)) {
		sqlite3_bind_int64(st, 1, v->id);
		while (sqlite3_step(st) == SQLITE_ROW) {
			json_obj_open(j, NULL);
			json_str(j, "sys", (const char *)sqlite3_column_text(st, ERROR_COL_sys));
			json_i64(j, "errno", sqlite3_column_int64(st, ERROR_COL_errno));
			json_str(j, "name", (const char *)sqlite3_column_text(st, ERROR_COL_name));
			json_i64(j, "count", sqlite3_column_int64(st, ERROR_COL_count));
			json_obj_close(j);
		}
		sqlite3_finalize(st);
	}
	json_arr_close(j);
}

static void json_run(struct json *j, const struct run_view *v)
{
	json_obj_open(j, NULL);
	json_run_header(j, v);
	json_obj_open(j, "syscalls");
	for (unsigned i = 0; i < v->nsys; i++)
		json_sys(j, &v->sys[i], view_is_replay(v));
	json_obj_close(j);
	json_obj_open(j, "classes");
	for (unsigned k = 0; k < VIEW_CLASSES; k++) {
		if (!v->cls[k].count)
			continue;
		json_obj_open(j, view_class_names[k]);
		fields_json(j, class_fields, FIELDS_N(class_fields), &v->cls[k]);
		if (v->cls[k].gap_count)
			fields_json(j, think_fields, FIELDS_N(think_fields), &v->cls[k]);
		json_obj_close(j);
	}
	json_obj_close(j);
	json_errors(j, v);
	device_json(j, v);
	json_obj_close(j);
}

/* ---- the command ---- */

struct show_args {
	const char *db, *run, *html;
	bool json;
};

static int show_runs(const struct show_args *sa, sqlite3 *db, int64_t *ids, unsigned n)
{
	struct run_view *views = calloc(n ? n : 1, sizeof(*views));
	char err[512];
	struct json j;
	int rc = 0;
	unsigned loaded = 0;

	if (!views) {
		riot_err("out of memory");
		return -ENOMEM;
	}
	for (; loaded < n && !rc; loaded++)
		rc = view_load(db, sa->db, ids[loaded], &views[loaded], err, sizeof(err));
	if (rc) {
		riot_err("%s", err);
	} else if (sa->html) {
		rc = html_write(sa->html, views, n, err, sizeof(err));
		if (rc)
			riot_err("%s", err);
	} else if (sa->json) {
		json_init(&j, stdout, true);
		json_obj_open(&j, NULL);
		json_str(&j, "database", sa->db);
		json_arr_open(&j, "runs");
		for (unsigned i = 0; i < n; i++)
			json_run(&j, &views[i]);
		json_arr_close(&j);
		json_obj_close(&j);
		json_end_line(&j);
	} else {
		if (!sa->run)
			printf("%s: %u run%s\n", sa->db, n, n == 1 ? "" : "s");
		for (unsigned i = 0; i < n && !sa->run; i++)
			printf("  %3" PRId64 "  %-24s %-8s %12" PRIu64 " syscalls %10.3f s\n",
			       views[i].id, s_or(views[i].label, "?"), views[i].kind, views[i].ops,
			       (double)views[i].duration_ns / 1e9);
		if (!sa->run)
			printf("\n");
		for (unsigned i = 0; i < n; i++)
			print_run(&views[i]);
	}
	for (unsigned i = 0; i < loaded; i++)
		view_free(&views[i]);
	free(views);
	return rc;
}

static int show(const struct show_args *sa)
{
	char err[512];
	sqlite3 *db = report_db_open_ro(sa->db, err, sizeof(err));
	int64_t *ids = NULL, one;
	unsigned n = 0;
	int rc;

	if (!db) {
		riot_err("%s", err);
		return RIOT_EXIT_FAIL;
	}
	if (sa->run) {
		rc = view_find_run(db, sa->db, sa->run, &one, err, sizeof(err));
		if (rc)
			riot_err("%s", err);
		else
			rc = show_runs(sa, db, &one, 1);
	} else {
		rc = view_run_ids(db, &ids, &n);
		if (rc)
			riot_err("%s: %s", sa->db, strerror(-rc));
		else
			rc = show_runs(sa, db, ids, n);
	}
	free(ids);
	sqlite3_close(db);
	return rc ? RIOT_EXIT_FAIL : RIOT_EXIT_OK;
}

int report_show(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "run", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "html", required_argument, NULL, 'H' },
		{ 0 },
	};
	struct show_args sa = { 0 };
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			sa.run = optarg;
			break;
		case 'j':
			sa.json = true;
			break;
		case 'H':
			sa.html = optarg;
			break;
		default:
			return riot_usage("bad option");
		}
	}
	if (argc - optind != 1)
		return riot_usage("show needs exactly one DB");
	sa.db = argv[optind];
	return show(&sa);
}
