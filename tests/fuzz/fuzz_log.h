/* tests/fuzz/fuzz_log.h: what the log fuzz targets share. Checksums would
 * stop almost every mutation at the frame that carries them, so a target
 * recomputes the header, block and end-record checksums where the framing
 * is recognisable: mutations then reach the decoder. */
#ifndef RIOT_TESTS_FUZZ_LOG_H
#define RIOT_TESTS_FUZZ_LOG_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "formats/log_codec.h"

/* Layout from formats/FORMAT.md. */
static void fix_checksums(uint8_t *p, size_t n)
{
	if (n < 16 || memcmp(p, "RIOTLOG", 8) != 0)
		return;
	size_t len = get_le32(p + 12);
	if (len > n || 16 + len + 4 > n)
		return;
	put_le32(p + 16 + len, (uint32_t)crc32(0, p, (uInt)(16 + len)));
	size_t pos = 16 + len + 4;
	while (pos + 32 <= n && (!memcmp(p + pos, "RBLK", 4) || !memcmp(p + pos, "REND", 4))) {
		size_t clen = get_le32(p + pos + 4);
		if (clen <= n - pos - 32)
			put_le32(p + pos + 24, (uint32_t)crc32(0, p + pos + 32, (uInt)clen));
		put_le32(p + pos + 28, (uint32_t)crc32(0, p + pos, 28));
		if (clen > n - pos - 32)
			break;
		pos += 32 + clen;
	}
}

#endif
