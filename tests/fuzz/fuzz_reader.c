/* libFuzzer target: reads any input to its end through the log reader.
 *
 * Checksums would stop almost every mutation at the frame that carries
 * them, so before reading, the input's header, block and end-record
 * checksums are recomputed where the framing is recognisable: mutations
 * then reach the decoder (zstd, stream directory, records, strings,
 * predictors, totals). The reader itself is the production code. */
#include "formats/log.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "tests/fuzz/fuzz_log.h"

static void read_to_end(const uint8_t *data, size_t size)
{
	char err[256];
	struct riot_rec rec;
	struct riot_reader *r = riot_reader_open_mem(data, size, err, sizeof(err));

	if (!r)
		return;
	while (riot_reader_next(r, &rec) == 1) {
		/* touch every string the reader hands out */
		if (rec.type == RIOT_REC_STRING && rec.string.str.s)
			(void)strlen(rec.string.str.s);
		if (rec.type == RIOT_REC_SYSCALL && rec.sc.path.s)
			(void)strlen(rec.sc.path.s);
		if (rec.type == RIOT_REC_SYSCALL && rec.sc.path2.s)
			(void)strlen(rec.sc.path2.s);
	}
	(void)riot_reader_totals(r);
	(void)riot_reader_incomplete_reason(r);
	(void)riot_reader_error(r);
	riot_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	read_to_end(data, size);	/* as given: checksums must hold */
	uint8_t *copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	fix_checksums(copy, size);
	read_to_end(copy, size);
	free(copy);
	return 0;
}
