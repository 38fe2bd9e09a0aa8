/* lm_narrow.h — what the narrow rows of AVX-512 (lm_avx512.h) and AVX2
 * (lm_avx2.h) share: their int16 counters and the class pass of a ring.
 * Included by each after its lane macros (HSET1, HWIDEN, HPAIRS, VMAXU). */
#ifndef LBT_LM_NARROW_H
#define LBT_LM_NARROW_H

/* The narrow rows' counters, int16 lanes but for the total (int32 pairs,
 * into the exact sums' s): merged into the int32 registers by hmerge
 * whenever the roll flushes, before an int16 count could overflow. */
typedef struct {
	V mx, mn, cnt;
	int used; /* a narrow row ran since the last merge (else mn's 32767 is no load) */
} hregs;
#define HREGS_EMPTY {HSET1(INT16_MIN), HSET1(INT16_MAX), HSET1(0), 0}
static ALWAYS_INLINE void hmerge(hregs *H, regs *R)
{
	if (!H->used)
		return;
	R->mx = VMAX(R->mx, VMAX(HWIDEN(H->mx, 0), HWIDEN(H->mx, 1)));
	R->mn = VMIN(R->mn, VMIN(HWIDEN(H->mn, 0), HWIDEN(H->mn, 1)));
	R->cnt = VADD(R->cnt, HPAIRS(H->cnt));
	*H = (hregs)HREGS_EMPTY;
}

/* The unsigned maximum of the n loads at p (a negative load would not fit),
 * or of a prefix of them once that is above HTOP: the pass stops after
 * the first block of 8 vectors with such a load. */
static V lone_top(const int32_t *p, int64_t n)
{
	V t0 = VSET1(0), t1 = t0, t2 = t0, t3 = t0;
	int64_t i = 0;
	for (; i + 8 * W <= n; i += 8 * W) {
		t0 = VMAXU(t0, VMAXU(VLOAD(p + i), VLOAD(p + i + W)));
		t1 = VMAXU(t1, VMAXU(VLOAD(p + i + 2 * W), VLOAD(p + i + 3 * W)));
		t2 = VMAXU(t2, VMAXU(VLOAD(p + i + 4 * W), VLOAD(p + i + 5 * W)));
		t3 = VMAXU(t3, VMAXU(VLOAD(p + i + 6 * W), VLOAD(p + i + 7 * W)));
		const V m = VMAXU(VMAXU(t0, t1), VMAXU(t2, t3));
		if (VABOVE(m, HTOP))
			return m;
	}
	for (; i < n; i += W)
		t0 = VMAXU(t0, VLOAD(p + i));
	return VMAXU(VMAXU(t0, t1), VMAXU(t2, t3));
}

#endif
