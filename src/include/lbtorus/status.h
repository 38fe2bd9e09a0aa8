/* status.h — what every part of lbtorus shares: the version, the status
 * codes functions return, and the caller-owned buffer an error is described
 * in (no global error state). Those three are the public header's
 * (lbtorus.h, found on the include path); this adds lbt_errf. The bottom of
 * the library's own headers. */
#ifndef LBTORUS_STATUS_H
#define LBTORUS_STATUS_H

#include <lbtorus.h> /* LBT_VERSION, lbt_status, lbt_err, lbt_status_name */

/* Fill e with a printf-style message; returns status so callers can
 * `return lbt_errf(e, LBT_EINVAL, "...")`. e may be NULL. */
int lbt_errf(lbt_err *e, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
