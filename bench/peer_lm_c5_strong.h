/* peer_lm_c5_strong.h — the strong peer of LM-C5 that `lbtorus bench
 * --peers` times beside lbtorus (bench/peer_lm_c5_strong.c). */
#ifndef LBTORUS_PEER_LM_C5_STRONG_H
#define LBTORUS_PEER_LM_C5_STRONG_H

#include <stdint.h>

/* As peer_lm_c5 (bench/peer_lm_c5.h), on up to `threads` threads. */
int64_t peer_lm_c5_strong(int32_t *L, int64_t R, int64_t C, int64_t steps, int until_balanced, int threads);

#endif
