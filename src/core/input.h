/* input.h (private) — how every input file is read: a regular file only
 * (a FIFO or device may block or never end), lines of at most LBT_LINE_MAX
 * bytes, and a read error or no memory is an error, never end of file. */
#ifndef LBTORUS_CORE_INPUT_H
#define LBTORUS_CORE_INPUT_H

#include <stdio.h>

#include "lbtorus/status.h"

#define LBT_LINE_MAX (1 << 20) /* bytes in a line of a text input, newline included: 1 MiB */

/* Open path for reading if it is a regular file. Else one line naming it
 * and what it is (missing, a directory, a FIFO, a device...); `what` ("spec
 * file") leads the name when not NULL. */
int lbt_in_open(const char *path, const char *what, FILE **f, lbt_err *e);
/* The file descriptor fd (open on path) is a regular file, else the error
 * lbt_in_open gives. */
int lbt_in_regular(int fd, const char *path, const char *what, lbt_err *e);
/* The next line of f into *line (grown as getline grows it, at most
 * LBT_LINE_MAX + 2 bytes), newline kept, NUL-terminated; *len 0 at the end
 * of the file. A line longer than LBT_LINE_MAX, a read error and no memory
 * are errors whose message the caller prefixes with "PATH:LINE: ". */
int lbt_in_line(FILE *f, char **line, size_t *cap, size_t *len, lbt_err *e);

#endif
