/* lib/json.h: a small streaming JSON writer, the one every --json and jsonl
 * output goes through. Keys and commas are handled here; callers say what,
 * not how. Nesting is limited to JSON_MAX_DEPTH levels. */
#ifndef RIOT_LIB_JSON_H
#define RIOT_LIB_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *out;
	int depth;
	bool first[JSON_MAX_DEPTH];
	bool pretty;
};

void json_init(struct json *j, FILE *out, bool pretty);
void json_obj_open(struct json *j, const char *key);	/* key NULL in arrays/top */
void json_obj_close(struct json *j);
void json_arr_open(struct json *j, const char *key);
void json_arr_close(struct json *j);
void json_str(struct json *j, const char *key, const char *v);	/* NULL -> null */
void json_strn(struct json *j, const char *key, const char *v, size_t n);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_i64(struct json *j, const char *key, int64_t v);
void json_double(struct json *j, const char *key, double v);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);
/* Ends a top-level value with a newline (one jsonl line). */
void json_end_line(struct json *j);

#endif
