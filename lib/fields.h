/* lib/fields.h: a table's columns described once, printed as aligned text
 * columns or as the members of a JSON object. A command lists its fields
 * (the JSON key, the text heading and width, the kind of value, where the
 * value is in its row struct) and both outputs come from that one list: a
 * field with no heading is JSON only, one with no key text only, so each
 * output keeps its own order from one list. */
#ifndef RIOT_LIB_FIELDS_H
#define RIOT_LIB_FIELDS_H

#include <stddef.h>
#include <stdio.h>

#include "lib/json.h"

enum field_kind {
	FIELD_U64,	/* uint64_t */
	FIELD_BYTES,	/* uint64_t; text: "131.5 MiB" */
	FIELD_NS,	/* uint64_t ns; text: "12.3 us" */
	FIELD_NS_IF,	/* FIELD_NS; text "-" when the uint64_t at off2 is 0 */
	FIELD_MEAN_NS,	/* double ns; text: rounded as FIELD_NS; JSON: as is */
	FIELD_RATIO,	/* double; text "%.3f"; NaN: none ("-", null) */
	FIELD_STR,	/* char *; JSON null when NULL */
};

struct field {
	const char *key;	/* JSON member; NULL: text only */
	const char *head;	/* text heading; NULL: JSON only */
	int width;		/* text column width (right-aligned) */
	enum field_kind kind;
	size_t off;		/* offsetof the value in the row */
	size_t off2;		/* FIELD_NS_IF: offsetof its condition */
};

#define FIELDS_N(a) (sizeof(a) / sizeof((a)[0]))

/* " %*s" of every text field's heading. */
void fields_head(FILE *out, const struct field *f, size_t n);
/* " %*s" of every text field's value in row. */
void fields_text(FILE *out, const struct field *f, size_t n, const void *row);
/* Every JSON field of row as a member of the open object. */
void fields_json(struct json *j, const struct field *f, size_t n, const void *row);

#endif
