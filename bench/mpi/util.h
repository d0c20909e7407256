/* Helpers shared by the calibration programs of bench/mpi (prtt.c,
 * pack.c), which the Makefile builds each from one source file. */
#ifndef GOPSIM_BENCH_MPI_UTIL_H
#define GOPSIM_BENCH_MPI_UTIL_H

#include <stdint.h>
#include <string.h>
#include <time.h>

/* now_ns returns the monotonic clock in ns. */
static inline int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* first_line returns the first line of s (cut in place), without spaces at
 * its ends, or "unknown". */
static inline char *first_line(char *s)
{
	s[strcspn(s, "\r\n")] = 0;
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = 0;
	return *s ? s : "unknown";
}

#endif
