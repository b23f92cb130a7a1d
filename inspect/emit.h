/* inspect/emit.h (private to inspect/): one record as named fields, written
 * as text (key=value), CSV (fixed columns) or JSON lines. dump describes a
 * record once through these calls; the format decides the layout. */
#ifndef RIOT_INSPECT_EMIT_H
#define RIOT_INSPECT_EMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/json.h"

enum emit_format { EMIT_TEXT, EMIT_CSV, EMIT_JSONL };

#define EMIT_MAX_COLS 64

struct emitter {
	enum emit_format fmt;
	FILE *out;
	struct json j;
	bool first;			/* text: no separator yet */
	/* CSV: the cells of the current row, filled by name */
	char *cells[EMIT_MAX_COLS];
};

/* CSV columns, in order; every field name dump uses is one of them. */
extern const char *const emit_csv_columns[];

void emit_init(struct emitter *e, enum emit_format fmt, FILE *out);
void emit_begin(struct emitter *e, const char *type);
void emit_u64(struct emitter *e, const char *key, uint64_t v);
void emit_i64(struct emitter *e, const char *key, int64_t v);
void emit_str(struct emitter *e, const char *key, const char *v);
void emit_bool(struct emitter *e, const char *key, bool v);
void emit_end(struct emitter *e);
void emit_fini(struct emitter *e);

#endif
