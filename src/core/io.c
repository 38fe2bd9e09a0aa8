/* io.c — atomic output files (temp + fsync + rename). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lbtorus/io.h"

int lbt_out_open(lbt_outfile *o, const char *path, lbt_err *e)
{
	memset(o, 0, sizeof *o);
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return LBT_OK;
	}
	if (strlen(path) >= sizeof o->path)
		return lbt_errf(e, LBT_EINVAL, "output path too long: %.60s...", path);
	strcpy(o->path, path);
	snprintf(o->tmp, sizeof o->tmp, "%s.tmp.XXXXXX", path);
	int fd = mkstemp(o->tmp);
	if (fd < 0)
		return lbt_errf(e, LBT_EIO, "cannot write %s: %s", path, strerror(errno));
	mode_t mask = umask(0); /* mkstemp makes 0600; give the result a normal file's mode */
	umask(mask);
	if (fchmod(fd, 0666 & ~mask)) {
		close(fd);
		unlink(o->tmp);
		return lbt_errf(e, LBT_EIO, "cannot write %s: %s", path, strerror(errno));
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		close(fd);
		unlink(o->tmp);
		return lbt_errf(e, LBT_EIO, "cannot write %s: %s", path, strerror(errno));
	}
	return LBT_OK;
}

int lbt_out_commit(lbt_outfile *o, lbt_err *e)
{
	if (o->f == stdout)
		return fflush(stdout) ? lbt_errf(e, LBT_EIO, "cannot write to stdout") : LBT_OK;
	int bad = fflush(o->f) || ferror(o->f) || fsync(fileno(o->f));
	int err = errno;
	bad |= fclose(o->f);
	o->f = NULL;
	if (bad || rename(o->tmp, o->path)) {
		if (!bad)
			err = errno;
		unlink(o->tmp);
		return lbt_errf(e, LBT_EIO, "cannot write %s: %s", o->path, strerror(err));
	}
	return LBT_OK;
}

void lbt_out_abort(lbt_outfile *o)
{
	if (o->f && o->f != stdout) {
		fclose(o->f);
		unlink(o->tmp);
	}
	o->f = NULL;
}
