/* SPDX-License-Identifier: MIT */
/* varint.h - LEB128 unsigned varints and zigzag signed varints, little-endian fixed-width helpers.
 * Inline so that the writer's hot encode loop and the reader's decode loop compile to straight code. */
#ifndef EMP_VARINT_H
#define EMP_VARINT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define EMP_VARINT_MAX 10 /* bytes a u64 can take */

/* emp_varint_put - write @v as LEB128 at @p (room for EMP_VARINT_MAX bytes).  Return: bytes written. */
static inline size_t emp_varint_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* emp_varint_get - read a LEB128 u64 from [*p, end).  Return: 0 and *p advanced, or -1 when the varint runs past
 * @end or is longer than 10 bytes / overflows 64 bits (the cursor is then left unchanged). */
static inline int emp_varint_get(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	const uint8_t *q = *p;
	uint64_t r = 0;
	for (unsigned shift = 0; q < end; shift += 7) {
		uint8_t b = *q++;
		if (shift == 63 && b > 1)
			return -1;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*p = q;
			*v = r;
			return 0;
		}
		if (shift == 63)
			return -1;
	}
	return -1;
}

static inline uint64_t emp_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t emp_unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

static inline void emp_put_u16le(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void emp_put_u32le(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint16_t emp_get_u16le(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t emp_get_u32le(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#endif /* EMP_VARINT_H */
