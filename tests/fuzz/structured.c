/* SPDX-License-Identifier: MIT */
/* structured.c - see structured.h. */
#include "structured.h"

#include <lz4frame.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Turn a structured input into a dump in @out (grown as needed).  Return: its length. */
static size_t build_structured(const uint8_t *data, size_t size, uint8_t **out, size_t *cap)
{
	size_t need = 16 + (size / 3 + 1) * 16 + LZ4F_compressFrameBound(size, NULL) + (size / 3 + 1) * 64;
	if (need > *cap) {
		*out = realloc(*out, need);
		CHECK(*out != NULL);
		*cap = need;
	}
	uint8_t *o = *out;
	memcpy(o, "\x89" "EMP\r\n\x1a\n", 8);
	o[8] = 1, o[9] = 0, o[10] = data[0] & 1, o[11] = 0;
	memset(o + 12, 0, 4);
	size_t n = 16, pos = 1;
	LZ4F_preferences_t prefs;
	memset(&prefs, 0, sizeof(prefs));
	if (data[0] & 2)
		prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
	else
		prefs.frameInfo.blockChecksumFlag = LZ4F_blockChecksumEnabled;
	while (pos + 3 <= size) {
		uint8_t type = data[pos];
		size_t len = (size_t)data[pos + 1] | (size_t)data[pos + 2] << 8;
		pos += 3;
		if (len > size - pos)
			len = size - pos;
		prefs.frameInfo.contentSize = len;
		size_t bound = LZ4F_compressFrameBound(len, &prefs);
		CHECK(n + 16 + bound <= *cap);
		size_t stored = LZ4F_compressFrame(o + n + 16, bound, data + pos, len, &prefs);
		CHECK(!LZ4F_isError(stored));
		uint32_t h[4] = { 0x43504d45u, type, (uint32_t)stored, (uint32_t)len }; /* little-endian host */
		memcpy(o + n, h, 16);
		n += 16 + stored;
		pos += len;
	}
	return n;
}

const char *emp_fuzz_input_path(const uint8_t *data, size_t *size)
{
	static int fd = -1;
	static uint8_t *built;
	static size_t built_cap;
	static char path[64];
	if (fd < 0) {
		fd = memfd_create("emp-fuzz", 0);
		CHECK(fd >= 0);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (*size && data[0] != 0x89) {
		*size = build_structured(data, *size, &built, &built_cap);
		data = built;
	}
	CHECK(ftruncate(fd, 0) == 0);
	CHECK(pwrite(fd, data, *size, 0) == (ssize_t)*size);
	return path;
}
