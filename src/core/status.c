/* status.c — status codes and the caller-owned error buffer. */
#include <stdarg.h>
#include <stdio.h>

#include "lbtorus/status.h"

int lbt_errf(lbt_err *e, int status, const char *fmt, ...)
{
	if (e) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof e->msg, fmt, ap);
		va_end(ap);
	}
	return status;
}

const char *lbt_status_name(int status)
{
	static const char *const names[] = {"ok", "invalid", "out of memory", "i/o error",
	                                    "out of range", "unsupported", "internal error", "interrupted"};
	return status >= 0 && status <= LBT_EINTR ? names[status] : "unknown";
}
