/* lm_n16.c — the Liquid model step in int16 lanes with an exact escape for
 * loads >= 32767 (see lm_narrow.h). */
#define NBITS 16
#include "lm_narrow.h"
