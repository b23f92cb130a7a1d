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

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void set_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Layout from formats/FORMAT.md. */
static void fix_checksums(uint8_t *p, size_t n)
{
	if (n < 16 || memcmp(p, "RIOTLOG", 8) != 0)
		return;
	size_t len = le32(p + 12);
	if (len > n || 16 + len + 4 > n)
		return;
	set_le32(p + 16 + len, (uint32_t)crc32(0, p, (uInt)(16 + len)));
	size_t pos = 16 + len + 4;
	while (pos + 32 <= n && (!memcmp(p + pos, "RBLK", 4) || !memcmp(p + pos, "REND", 4))) {
		size_t clen = le32(p + pos + 4);
		if (clen <= n - pos - 32)
			set_le32(p + pos + 24, (uint32_t)crc32(0, p + pos + 32, (uInt)clen));
		set_le32(p + pos + 28, (uint32_t)crc32(0, p + pos, 28));
		if (clen > n - pos - 32)
			break;
		pos += 32 + clen;
	}
}

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
