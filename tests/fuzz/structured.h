/* SPDX-License-Identifier: MIT */
/* structured.h - what the libFuzzer targets share: their check, and the "structured" inputs that reach the payload
 * parsers instead of dying at the LZ4 checksums.
 *
 * An input whose first byte is 0x89 (the dump magic's first byte) is a dump file, as is.  Any other input is
 * structured: byte 0 bit 0 is the header's minor version (1 = later than this reader: unknown chunk types are
 * skipped), bit 1 the frames' checksum (0: of each block, as the writer frames them; 1: of the content, as dumps
 * written before block checksums); then pieces [u8 type][u16le length][payload], each wrapped into a chunk with a
 * valid LZ4 frame.  A last piece cut short keeps what it has.  The unit test dump/corpus writes seeds of both
 * kinds. */
#ifndef EMP_FUZZ_STRUCTURED_H
#define EMP_FUZZ_STRUCTURED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                                                            \
	do {                                                                                                   \
		if (!(cond)) {                                                                                 \
			fprintf(stderr, "%s: check failed: %s (line %d)\n", __FILE__, #cond, __LINE__);        \
			abort();                                                                               \
		}                                                                                              \
	} while (0)

/**
 * emp_fuzz_input_path - the input as a dump file: written (a structured one turned into its dump first) to a
 * memfd kept for the next input.  Return: its path (/proc/self/fd/N), valid until the next call; its size in
 * *@size.
 */
const char *emp_fuzz_input_path(const uint8_t *data, size_t *size);

#endif /* EMP_FUZZ_STRUCTURED_H */
