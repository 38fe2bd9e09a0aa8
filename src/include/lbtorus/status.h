/* status.h — what every part of lbtorus shares: the version, the status
 * codes functions return, and the caller-owned buffer an error is described
 * in (no global error state). The bottom of the public headers. */
#ifndef LBTORUS_STATUS_H
#define LBTORUS_STATUS_H

#define LBT_VERSION "0.1.0"

typedef enum {
	LBT_OK = 0,
	LBT_EINVAL, /* bad argument, option, shape or file content */
	LBT_ENOMEM, /* allocation failed */
	LBT_EIO,    /* file could not be read or written */
	LBT_ERANGE, /* a load or total would overflow its type */
	LBT_EUNSUP, /* asked for something this build or CPU cannot do */
	LBT_EINTERNAL, /* an invariant broke: a bug, please report */
	LBT_EINTR     /* stopped by the caller's interrupt flag (a signal) before it finished */
} lbt_status;

/* One line describing the last failure, owned by the caller. */
typedef struct {
	char msg[512];
} lbt_err;

/* Fill e with a printf-style message; returns status so callers can
 * `return lbt_errf(e, LBT_EINVAL, "...")`. e may be NULL. */
int lbt_errf(lbt_err *e, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *lbt_status_name(int status);

#endif
