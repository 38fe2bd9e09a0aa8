/* input.c — opening and reading input files with limits (see input.h): a
 * FIFO given as a spec blocked for ever, /dev/zero as a results file grew a
 * line until memory ran out, and an allocation failure read as end of file. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/input.h"

static const char *kind(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
	     : S_ISSOCK(m) ? "a socket" : "not a file";
}

int lbt_in_regular(int fd, const char *path, const char *what, lbt_err *e)
{
	struct stat sb;
	const char *w = what ? what : "", *sp = what ? " " : "";
	if (fstat(fd, &sb))
		return lbt_errf(e, LBT_EIO, "cannot read %s%s%s: %s", w, sp, path, strerror(errno));
	if (S_ISDIR(sb.st_mode))
		return lbt_errf(e, LBT_EINVAL, "%s%s%s is a directory, not a file", w, sp, path);
	if (!S_ISREG(sb.st_mode))
		return lbt_errf(e, LBT_EINVAL, "%s%s%s is not a regular file but %s (it may block or never end)", w, sp, path,
		                kind(sb.st_mode));
	return LBT_OK;
}

int lbt_in_open(const char *path, const char *what, FILE **f, lbt_err *e)
{
	*f = NULL;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO's open must not wait for a writer */
	if (fd < 0)
		return lbt_errf(e, LBT_EIO, "cannot read %s%s%s: %s", what ? what : "", what ? " " : "", path, strerror(errno));
	int st = lbt_in_regular(fd, path, what, e);
	if (!st && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
		st = lbt_errf(e, LBT_EIO, "cannot read %s: %s", path, strerror(errno));
	if (!st && !(*f = fdopen(fd, "r")))
		st = lbt_errf(e, LBT_ENOMEM, "no memory to read %s", path);
	if (st)
		close(fd);
	return st;
}

int lbt_in_line(FILE *f, char **line, size_t *cap, size_t *len, lbt_err *e)
{
	size_t n = 0;
	int c;
	*len = 0;
	while ((c = getc_unlocked(f)) != EOF) {
		if (n == LBT_LINE_MAX)
			return lbt_errf(e, LBT_EINVAL, "longer than %d bytes (1 MiB), the limit of a line", LBT_LINE_MAX);
		if (n + 2 > *cap) {
			size_t nc = *cap < 128 ? 256 : *cap > LBT_LINE_MAX / 2 ? LBT_LINE_MAX + 2 : 2 * *cap;
			char *p = realloc(*line, nc);
			if (!p)
				return lbt_errf(e, LBT_ENOMEM, "no memory for a line of %zu bytes", n);
			*line = p;
			*cap = nc;
		}
		(*line)[n++] = (char)c;
		if (c == '\n')
			break;
	}
	if (ferror(f))
		return lbt_errf(e, LBT_EIO, "cannot read: %s", strerror(errno));
	if (n)
		(*line)[n] = 0;
	*len = n;
	return LBT_OK;
}
