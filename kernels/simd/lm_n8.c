/* lm_n8.c — the Liquid model step in int8 lanes with an exact escape for
 * loads >= 127 (see lm_narrow.h). */
#define NBITS 8
#include "lm_narrow.h"
