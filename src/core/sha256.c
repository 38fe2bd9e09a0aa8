/* sha256.c — SHA-256 as FIPS 180-4 §6.2 gives it: 64-byte blocks, the
 * message padded with 0x80, zeros and its length in bits, big-endian. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/sha256.h"

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, int n) { return x >> n | x << (32 - n); }

static void block(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64], v[8];
	for (int t = 0; t < 16; t++)
		w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 | (uint32_t)p[4 * t + 2] << 8 | p[4 * t + 3];
	for (int t = 16; t < 64; t++) {
		uint32_t s0 = ror(w[t - 15], 7) ^ ror(w[t - 15], 18) ^ w[t - 15] >> 3;
		uint32_t s1 = ror(w[t - 2], 17) ^ ror(w[t - 2], 19) ^ w[t - 2] >> 10;
		w[t] = w[t - 16] + s0 + w[t - 7] + s1;
	}
	memcpy(v, h, sizeof v);
	for (int t = 0; t < 64; t++) {
		uint32_t t1 = v[7] + (ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25)) + ((v[4] & v[5]) ^ (~v[4] & v[6])) + K[t] + w[t];
		uint32_t t2 = (ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22)) + ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
		memmove(v + 1, v, 7 * sizeof *v);
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		h[i] += v[i];
}

void lbt_sha256_init(lbt_sha256 *s)
{
	static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	memcpy(s->h, h0, sizeof h0);
	s->bytes = 0;
	s->used = 0;
}

void lbt_sha256_add(lbt_sha256 *s, const void *data, size_t n)
{
	const unsigned char *p = data;
	s->bytes += n;
	while (n) {
		size_t k = 64 - s->used < n ? 64 - s->used : n;
		memcpy(s->buf + s->used, p, k);
		s->used += k;
		p += k;
		n -= k;
		if (s->used == 64) {
			block(s->h, s->buf);
			s->used = 0;
		}
	}
}

void lbt_sha256_hex(lbt_sha256 *s, char hex[65])
{
	const uint64_t bits = s->bytes * 8;
	unsigned char pad[72] = {0x80};
	size_t np = (s->used < 56 ? 56 : 120) - s->used;
	for (int i = 0; i < 8; i++)
		pad[np + i] = (unsigned char)(bits >> (56 - 8 * i));
	lbt_sha256_add(s, pad, np + 8);
	for (int i = 0; i < 8; i++)
		snprintf(hex + 8 * i, 9, "%08x", s->h[i]);
}

int lbt_sha256_file(const char *path, char hex[65], lbt_err *e)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return lbt_errf(e, LBT_EIO, "cannot read %s for its checksum: %s", path, strerror(errno));
	lbt_sha256 s;
	lbt_sha256_init(&s);
	unsigned char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)))
		lbt_sha256_add(&s, buf, n);
	int bad = ferror(f);
	fclose(f);
	if (bad)
		return lbt_errf(e, LBT_EIO, "cannot read %s for its checksum", path);
	lbt_sha256_hex(&s, hex);
	return LBT_OK;
}
