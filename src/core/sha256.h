/* sha256.h (private) — SHA-256 (FIPS 180-4) of a file, as `sha256sum`
 * prints it: the checksum provenance gives every input file. */
#ifndef LBTORUS_CORE_SHA256_H
#define LBTORUS_CORE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "lbtorus/status.h"

typedef struct {
	uint32_t h[8];
	uint64_t bytes;
	unsigned char buf[64];
	size_t used;
} lbt_sha256;

void lbt_sha256_init(lbt_sha256 *s);
void lbt_sha256_add(lbt_sha256 *s, const void *data, size_t n);
void lbt_sha256_hex(lbt_sha256 *s, char hex[65]); /* finishes s */
/* The checksum of the file at path (a regular file or a FIFO, read once). */
int lbt_sha256_file(const char *path, char hex[65], lbt_err *e);

#endif
