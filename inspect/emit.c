/* inspect/emit.c: see emit.h. */
#include "inspect/emit.h"
#include "lib/text.h"

#include <stdlib.h>
#include <string.h>

const char *const emit_csv_columns[] = {
	"type", "t", "op", "kind", "pid", "tid", "dur", "ret", "errno",
	"fd", "file", "fd2", "file2", "dirfd", "dirfd2",
	"path", "path_raw", "path2", "path2_raw", "path_truncated",
	"off", "off2", "count", "flags", "flag_names", "mode", "cmd", "arg", "iovcnt", "ctx",
	"uid", "gid", "size", "ftype", "ftype_name", "ino", "dev", "created", "perm", "value",
	"child_pid", "child_tid", "clone_flags", "comm", "exit_code",
	"ppid", "cwd", "pos", "cpu", "t_first", "t_last", "id", "str",
	"truncated",
	/* new columns go last, so that the columns before keep their place */
	"gap_ns", NULL
};

static int csv_column(const char *key)
{
	for (int i = 0; emit_csv_columns[i]; i++)
		if (strcmp(emit_csv_columns[i], key) == 0)
			return i;
	return -1;
}

void emit_init(struct emitter *e, enum emit_format fmt, FILE *out)
{
	memset(e, 0, sizeof(*e));
	e->fmt = fmt;
	e->out = out;
	json_init(&e->j, out, false);
	if (fmt == EMIT_CSV) {
		for (int i = 0; emit_csv_columns[i]; i++)
			fprintf(out, "%s%s", i ? "," : "", emit_csv_columns[i]);
		fputc('\n', out);
	}
}

static void csv_set(struct emitter *e, const char *key, char *value)
{
	int col = csv_column(key);

	if (col < 0 || col >= EMIT_MAX_COLS) {
		free(value);
		return;
	}
	free(e->cells[col]);
	e->cells[col] = value;
}

static void text_key(struct emitter *e, const char *key)
{
	fprintf(e->out, "%s%s=", e->first ? "" : " ", key);
	e->first = false;
}

void emit_begin(struct emitter *e, const char *type)
{
	switch (e->fmt) {
	case EMIT_TEXT:
		fputs(type, e->out);
		e->first = false;
		break;
	case EMIT_CSV:
		csv_set(e, "type", strdup(type));
		break;
	case EMIT_JSONL:
		json_obj_open(&e->j, NULL);
		json_str(&e->j, "type", type);
		break;
	}
}

void emit_u64(struct emitter *e, const char *key, uint64_t v)
{
	char *s;

	switch (e->fmt) {
	case EMIT_TEXT:
		text_key(e, key);
		fprintf(e->out, "%llu", (unsigned long long)v);
		break;
	case EMIT_CSV:
		if (asprintf(&s, "%llu", (unsigned long long)v) >= 0)
			csv_set(e, key, s);
		break;
	case EMIT_JSONL:
		json_u64(&e->j, key, v);
		break;
	}
}

void emit_i64(struct emitter *e, const char *key, int64_t v)
{
	char *s;

	switch (e->fmt) {
	case EMIT_TEXT:
		text_key(e, key);
		fprintf(e->out, "%lld", (long long)v);
		break;
	case EMIT_CSV:
		if (asprintf(&s, "%lld", (long long)v) >= 0)
			csv_set(e, key, s);
		break;
	case EMIT_JSONL:
		json_i64(&e->j, key, v);
		break;
	}
}

void emit_str(struct emitter *e, const char *key, const char *v)
{
	if (!v)
		return;
	switch (e->fmt) {
	case EMIT_TEXT:
		text_key(e, key);
		text_put(e->out, v);
		break;
	case EMIT_CSV:
		csv_set(e, key, text_dup(v));
		break;
	case EMIT_JSONL:
		json_str(&e->j, key, v);
		break;
	}
}

void emit_bool(struct emitter *e, const char *key, bool v)
{
	switch (e->fmt) {
	case EMIT_TEXT:
		text_key(e, key);
		fputs(v ? "true" : "false", e->out);
		break;
	case EMIT_CSV:
		csv_set(e, key, strdup(v ? "true" : "false"));
		break;
	case EMIT_JSONL:
		json_bool(&e->j, key, v);
		break;
	}
}

static void csv_cell(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

void emit_end(struct emitter *e)
{
	switch (e->fmt) {
	case EMIT_TEXT:
		fputc('\n', e->out);
		break;
	case EMIT_CSV:
		for (int i = 0; emit_csv_columns[i]; i++) {
			if (i)
				fputc(',', e->out);
			if (e->cells[i])
				csv_cell(e->out, e->cells[i]);
			free(e->cells[i]);
			e->cells[i] = NULL;
		}
		fputc('\n', e->out);
		break;
	case EMIT_JSONL:
		json_obj_close(&e->j);
		json_end_line(&e->j);
		break;
	}
}

void emit_fini(struct emitter *e)
{
	for (int i = 0; i < EMIT_MAX_COLS; i++) {
		free(e->cells[i]);
		e->cells[i] = NULL;
	}
	fflush(e->out);
}
