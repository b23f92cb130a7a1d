/* One field list, two outputs: the text columns (headings, widths, the
 * human forms of bytes, times and ratios, "-" where there is no value)
 * and the JSON members (raw numbers, null for no ratio), each in its own
 * order from the one list. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/fields.h"
#include "tests/unit/unit.h"

struct row {
	uint64_t count, bytes, lat, seen;
	double mean, ratio;
	char *name;
};

#define R(m) offsetof(struct row, m)

static const struct field fields[] = {
	{ "name", NULL, 0, FIELD_STR, R(name), 0 },
	{ "count", "count", 6, FIELD_U64, R(count), 0 },
	{ "bytes", "bytes", 10, FIELD_BYTES, R(bytes), 0 },
	{ "lat_ns", NULL, 0, FIELD_NS, R(lat), 0 },
	{ "mean_ns", "mean", 8, FIELD_MEAN_NS, R(mean), 0 },
	{ "delay_ns", "delay", 8, FIELD_NS_IF, R(lat), R(seen) },
	{ "ratio", "ratio", 6, FIELD_RATIO, R(ratio), 0 },
	{ NULL, "total", 9, FIELD_NS, R(lat), 0 },
};

/* What fn printed for row (NULL: the headings). */
static char *text(const struct row *row)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (row)
		fields_text(f, fields, FIELDS_N(fields), row);
	else
		fields_head(f, fields, FIELDS_N(fields));
	fclose(f);
	return buf;
}

static char *json(const struct row *row)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	json_init(&j, f, false);
	json_obj_open(&j, NULL);
	fields_json(&j, fields, FIELDS_N(fields), row);
	json_obj_close(&j);
	fclose(f);
	return buf;
}

int main(void)
{
	struct row a = { 12, 137887744, 12345, 1, 811.6, 0.5, "read" };
	struct row b = { 0, 0, 0, 0, 0, NAN, NULL };
	char *s;

	s = text(NULL);
	CHECK_STR(s, "  count      bytes     mean    delay  ratio     total");
	free(s);
	s = text(&a);
	CHECK_STR(s, "     12  131.5 MiB   812 ns  12.3 us  0.500   12.3 us");
	free(s);
	s = text(&b);
	CHECK_STR(s, "      0        0 B     0 ns        -      -      0 ns");
	free(s);
	s = json(&a);
	CHECK_STR(s, "{\"name\":\"read\",\"count\":12,\"bytes\":137887744,\"lat_ns\":12345,"
		  "\"mean_ns\":811.6,\"delay_ns\":12345,\"ratio\":0.5}");
	free(s);
	s = json(&b);
	CHECK_STR(s, "{\"name\":null,\"count\":0,\"bytes\":0,\"lat_ns\":0,\"mean_ns\":0,"
		  "\"delay_ns\":0,\"ratio\":null}");
	free(s);
	return unit_done();
}
