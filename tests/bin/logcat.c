/* logcat: reads a .riot log to its end and prints what it found, one line:
 * "<records> records <strings> strings <blocks> blocks <bytes> bytes
 * complete|incomplete". Benchmarks time it; tests use its exit status
 * (0 read to the end, 1 corruption or I/O error, 2 usage).
 *
 * usage: logcat FILE
 */
#include "formats/log.h"

#include <stdio.h>

int main(int argc, char **argv)
{
	char err[256];
	struct riot_rec rec;
	unsigned long long records = 0, strings = 0;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: logcat FILE\n");
		return 2;
	}
	struct riot_reader *r = riot_reader_open(argv[1], err, sizeof(err));
	if (!r) {
		fprintf(stderr, "logcat: %s\n", err);
		return 1;
	}
	while ((rc = riot_reader_next(r, &rec)) > 0) {
		if (rec.type == RIOT_REC_STRING)
			strings++;
		else
			records++;
	}
	if (rc < 0) {
		fprintf(stderr, "logcat: %s: %s\n", argv[1], riot_reader_error(r));
		riot_reader_close(r);
		return 1;
	}
	printf("%llu records %llu strings %llu blocks %llu bytes %s\n", records, strings,
	       (unsigned long long)riot_reader_blocks(r),
	       (unsigned long long)riot_reader_file_bytes(r),
	       riot_reader_complete(r) ? "complete" : "incomplete");
	if (!riot_reader_complete(r))
		fprintf(stderr, "logcat: %s: %s\n", argv[1], riot_reader_incomplete_reason(r));
	riot_reader_close(r);
	return 0;
}
