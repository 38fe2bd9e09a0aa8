/* common.h — what the fuzz targets share: the input as a file the library
 * can open by name (a memfd, no disk), and a NUL-terminated copy. */
#ifndef LBTORUS_FUZZ_COMMON_H
#define LBTORUS_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The bytes as /proc/self/fd/N in path; returns the fd to close, or -1. */
static inline int fuzz_file(const uint8_t *data, size_t size, char *path, size_t n)
{
	int fd = memfd_create("fuzz", 0);
	if (fd < 0)
		return -1;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	snprintf(path, n, "/proc/self/fd/%d", fd);
	return fd;
}

/* A NUL-terminated copy (caller frees). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (s) {
		memcpy(s, data, size);
		s[size] = 0;
	}
	return s;
}

#endif
