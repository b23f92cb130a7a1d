/* report/show.c: `riot report show DB`: the runs of a report, as tables or
 * JSON. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/report_int.h"
#include "lib/cli.h"
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
	char when[64], b1[32], b2[32], mem[32];

	wall(v->start_unix_ns, when, sizeof(when));
	printf("run %" PRId64 ": %s (%s)\n", v->id, s_or(v->label, "?"), v->kind);
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
	char c[3][24];

	for (unsigned i = 0; i < v->nsys; i++)
		any |= diverged(&v->sys[i]);
	if (!paced && !any)
		return;
	if (paced)
		printf("\n  %-18s %11s %10s %10s %10s %8s %8s %8s %8s\n", "issue delay", "ops",
		       "p50", "p99", "max", "result", "bytes", "skipped", "other");
	else
		printf("\n  %-18s %8s %8s %8s %8s\n", "divergences", "result", "bytes", "skipped",
		       "other");
	for (unsigned i = 0; i < v->nsys; i++) {
		const struct sys_view *s = &v->sys[i];

		if (paced)
			printf("  %-18s %11" PRIu64 " %10s %10s %10s", s->name, s->delay_count,
			       riot_fmt_ns(s->delay_p50, c[0], 24), riot_fmt_ns(s->delay_p99, c[1], 24),
			       riot_fmt_ns(s->delay_max, c[2], 24));
		else if (diverged(s))
			printf("  %-18s", s->name);
		else
			continue;
		printf(" %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 "\n",
		       s->div[0], s->div[1], s->div[2], s->div[3]);
	}
}

static void print_syscalls(const struct run_view *v)
{
	bool delays = view_is_replay(v);
	char c[7][24];

	printf("\n  %-18s %11s %8s %10s %10s %10s %10s %10s %10s %10s\n", "syscall", "count", "errors",
	       "bytes", "mean", "p50", "p90", "p99", "p99.9", "max");
	for (unsigned i = 0; i < v->nsys; i++) {
		const struct sys_view *s = &v->sys[i];

		printf("  %-18s %11" PRIu64 " %8" PRIu64 " %10s %10s %10s %10s %10s %10s %10s\n",
		       s->name, s->count, s->errors, riot_fmt_bytes(s->bytes, c[0], sizeof(c[0])),
		       riot_fmt_ns((uint64_t)(s->mean + 0.5), c[1], sizeof(c[1])),
		       riot_fmt_ns(s->p50, c[2], sizeof(c[2])), riot_fmt_ns(s->p90, c[3], sizeof(c[3])),
		       riot_fmt_ns(s->p99, c[4], sizeof(c[4])), riot_fmt_ns(s->p999, c[5], sizeof(c[5])),
		       riot_fmt_ns(s->lat_max, c[6], sizeof(c[6])));
	}
	if (delays)
		print_replay_table(v);
}

static void print_classes(const struct run_view *v)
{
	char c[5][24];

	printf("\n  %-18s %11s %8s %10s %10s %10s %10s %10s\n", "class", "count", "errors",
	       "bytes", "p50", "p99", "max", "total");
	for (unsigned k = 0; k < VIEW_CLASSES; k++) {
		const struct class_view *x = &v->cls[k];

		if (!x->count)
			continue;
		printf("  %-18s %11" PRIu64 " %8" PRIu64 " %10s %10s %10s %10s %10s\n",
		       view_class_names[k], x->count, x->errors,
		       riot_fmt_bytes(x->bytes, c[0], 24), riot_fmt_ns(x->p50, c[1], 24),
		       riot_fmt_ns(x->p99, c[2], 24), riot_fmt_ns(x->lat_max, c[3], 24),
		       riot_fmt_ns(x->lat_sum, c[4], 24));
	}
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
}

static void json_sys(struct json *j, const struct sys_view *s, bool replay)
{
	json_obj_open(j, s->name);
	json_str(j, "class", s->cls);
	json_u64(j, "count", s->count);
	json_u64(j, "errors", s->errors);
	json_u64(j, "bytes", s->bytes);
	json_u64(j, "lat_sum_ns", s->lat_sum);
	json_double(j, "lat_mean_ns", s->mean);
	json_u64(j, "lat_min_ns", s->lat_min);
	json_u64(j, "lat_p50_ns", s->p50);
	json_u64(j, "lat_p90_ns", s->p90);
	json_u64(j, "lat_p99_ns", s->p99);
	json_u64(j, "lat_p999_ns", s->p999);
	json_u64(j, "lat_max_ns", s->lat_max);
	if (replay) {
		json_u64(j, "delay_count", s->delay_count);
		json_u64(j, "delay_p50_ns", s->delay_p50);
		json_u64(j, "delay_p99_ns", s->delay_p99);
		json_u64(j, "delay_max_ns", s->delay_max);
		json_obj_open(j, "divergences");
		json_u64(j, "result", s->div[0]);
		json_u64(j, "bytes", s->div[1]);
		json_u64(j, "skipped", s->div[2]);
		json_u64(j, "other", s->div[3]);
		json_obj_close(j);
	}
	json_obj_close(j);
}

static void json_errors(struct json *j, const struct run_view *v)
{
	sqlite3_stmt *st;

	json_arr_open(j, "errors");
	if (sqlite3_prepare_v2(v->db, "SELECT sys, errno, name, count FROM errors WHERE run_id = ? "
			       "ORDER BY sys, errno", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, v->id);
		while (sqlite3_step(st) == SQLITE_ROW) {
			json_obj_open(j, NULL);
			json_str(j, "sys", (const char *)sqlite3_column_text(st, 0));
			json_i64(j, "errno", sqlite3_column_int64(st, 1));
			json_str(j, "name", (const char *)sqlite3_column_text(st, 2));
			json_i64(j, "count", sqlite3_column_int64(st, 3));
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
		const struct class_view *c = &v->cls[k];

		if (!c->count)
			continue;
		json_obj_open(j, view_class_names[k]);
		json_u64(j, "count", c->count);
		json_u64(j, "errors", c->errors);
		json_u64(j, "bytes", c->bytes);
		json_u64(j, "lat_sum_ns", c->lat_sum);
		json_u64(j, "lat_p50_ns", c->p50);
		json_u64(j, "lat_p90_ns", c->p90);
		json_u64(j, "lat_p99_ns", c->p99);
		json_u64(j, "lat_p999_ns", c->p999);
		json_u64(j, "lat_max_ns", c->lat_max);
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
			return riot_usage("unknown option");
		}
	}
	if (argc - optind != 1)
		return riot_usage("show needs exactly one DB");
	sa.db = argv[optind];
	return show(&sa);
}
