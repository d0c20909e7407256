/*
 * gopsim-pack: log3P's pack/unpack micro-benchmark through MPI derived
 * datatypes, the mpi backend of `gopsim calibrate models --measure-pack
 * --pack-backend mpi`. `make calibrate-deps` builds it into bin/gopsim-pack.
 *
 * One MPI process (mpirun -np 1, or started directly where the MPI allows
 * singleton MPI_Init). For each pair of a message size s and a stride d,
 * in bytes, it describes s bytes of doubles (8-byte elements) whose starts
 * are d bytes apart with MPI_Type_create_hvector(s/8, 1, d, MPI_DOUBLE),
 * commits it, and times MPI_Pack of it into a contiguous buffer and
 * MPI_Unpack back: the library's own datatype engine, what a send of a
 * matrix column costs before the data reaches the network.
 *
 *	gopsim-pack [-r REPS] [-w WARMUP] [SIZE:STRIDE ...]
 *
 * The pairs come from the command line, or, without any, from standard
 * input, one "SIZE STRIDE" per line (blank lines and lines starting with
 * '#' ignored), so that a pair can be tried by hand:
 *
 *	echo '16384 1024' | mpirun -np 1 bin/gopsim-pack
 *
 * SIZE is a multiple of 8 in 8..2^30, STRIDE in 8..2^30 and the strided
 * span SIZE/8*STRIDE at most 256 MiB (bench.MaxSizeBytes, bench.PackElemBytes
 * and MeasurePack's span limit); REPS (default 50) and WARMUP (default 5)
 * are 1..1000000 and 0..1000000.
 *
 * Output, on standard output, is the pack table that bench.ReadPackTable
 * reads (bench/pack.go), so that it can be saved as it is:
 *
 *	# gopsim-pack 1 LIBRARY                        once, after MPI_Init
 *	s_bytes,stride_bytes,pack_ns,unpack_ns         once
 *	SIZE,STRIDE,PACK_NS,UNPACK_NS                  REPS rows per pair, in the order asked
 *	# median SIZE STRIDE PACK_NS UNPACK_NS         after each pair's rows
 *	error: MESSAGE                                 in place of any line; the program then exits with status 1
 *
 * 1 is the output's version (bench/packmpi.go checks it), LIBRARY the first
 * line of MPI_Get_library_version's string. Each row is one timed
 * repetition, after WARMUP untimed ones: PACK_NS is the time of one
 * MPI_Pack call, UNPACK_NS of the MPI_Unpack that follows it, both from
 * CLOCK_MONOTONIC and at least 1. After the warm-up the packed buffer is
 * checked against the strided elements, and MPI_Pack must have written
 * exactly SIZE bytes. The error line is not a table row, so that a
 * truncated table never reads as a whole one.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"

/* The limits of bench/pack.go and bench/packmpi.go. */
#define OUTPUT_VERSION 1
#define ELEM 8
#define MAX_SIZE (1LL << 30)
#define MAX_SPAN (256LL << 20)
#define MAX_REPS 1000000L
#define HEADER "s_bytes,stride_bytes,pack_ns,unpack_ns"

/* fail reports an error ("error: ...") on standard output and standard
 * error, ends MPI and exits with status 1. */
static void fail(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	printf("error: %s\n", msg);
	fflush(stdout);
	fprintf(stderr, "gopsim-pack: %s\n", msg);
	MPI_Finalize();
	exit(1);
}

/* check_pair validates a pair; where says where it came from. */
static void check_pair(const char *where, int64_t s, int64_t d)
{
	if (s < ELEM || s > MAX_SIZE || s % ELEM != 0)
		fail("%s: size %" PRId64 " bytes: want a multiple of %d in %d..%lld", where, s, ELEM, ELEM, MAX_SIZE);
	if (d < ELEM || d > MAX_SIZE)
		fail("%s: stride %" PRId64 " bytes: want %d..%lld", where, d, ELEM, MAX_SIZE);
	if (s / ELEM * d > MAX_SPAN)
		fail("%s: size %" PRId64 " at stride %" PRId64 " spans %" PRId64 " bytes, more than %lld", where, s, d,
		     s / ELEM * d, MAX_SPAN);
}

/* number parses a whole decimal integer in lo..hi, or fails. */
static long number(const char *arg, const char *flag, long lo, long hi)
{
	char *end;
	errno = 0;
	long x = strtol(arg, &end, 10);
	if (errno != 0 || end == arg || *end != 0 || x < lo || x > hi)
		fail("%s %s: want an integer in %ld..%ld", flag, arg, lo, hi);
	return x;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* median sorts x (n values) and returns its median (the mean of the middle
 * two for even n). */
static int64_t median(int64_t *x, long n)
{
	qsort(x, (size_t)n, sizeof *x, cmp_i64);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/* measure times REPS packs and unpacks of s bytes at stride d and prints
 * the rows. pt and ut hold REPS times each. */
static void measure(int64_t s, int64_t d, long reps, long warmup, int64_t *pt, int64_t *ut)
{
	int64_t n = s / ELEM;
	MPI_Datatype t;
	if (MPI_Type_create_hvector((int)n, 1, (MPI_Aint)d, MPI_DOUBLE, &t) != MPI_SUCCESS || MPI_Type_commit(&t) != MPI_SUCCESS)
		fail("size %" PRId64 " at stride %" PRId64 ": cannot build the vector datatype", s, d);
	int packsize;
	MPI_Pack_size(1, t, MPI_COMM_SELF, &packsize);
	if (packsize < s)
		fail("size %" PRId64 " at stride %" PRId64 ": MPI_Pack_size says %d bytes", s, d, packsize);
	size_t span = (size_t)((n - 1) * d + ELEM);
	unsigned char *src = malloc(span), *packed = malloc((size_t)packsize), *want = malloc((size_t)s);
	if (src == NULL || packed == NULL || want == NULL)
		fail("size %" PRId64 " at stride %" PRId64 ": cannot allocate %zu bytes", s, d, span + (size_t)packsize + (size_t)s);
	for (size_t i = 0; i < span; i++)
		src[i] = (unsigned char)(i * 131 + 7); /* touched: no page faults while timing */
	memset(packed, 0, (size_t)packsize);
	for (int64_t i = 0; i < n; i++)
		memcpy(want + i * ELEM, src + i * d, ELEM);

	for (long r = -warmup; r < reps; r++) {
		int pos = 0, upos = 0;
		int64_t t0 = now_ns();
		MPI_Pack(src, 1, t, packed, packsize, &pos, MPI_COMM_SELF);
		int64_t t1 = now_ns();
		MPI_Unpack(packed, packsize, &upos, src, 1, t, MPI_COMM_SELF);
		int64_t t2 = now_ns();
		if (r == -warmup || r == 0) {
			/* Once at the start, once after the warm-up: the datatype
			 * gathers exactly the strided elements, and unpacking writes
			 * back what packing read. */
			if (pos != s || upos != s)
				fail("size %" PRId64 " at stride %" PRId64 ": MPI_Pack wrote %d bytes, MPI_Unpack read %d, want %" PRId64,
				     s, d, pos, upos, s);
			if (memcmp(packed, want, (size_t)s) != 0)
				fail("size %" PRId64 " at stride %" PRId64 ": the packed data are not the strided elements", s, d);
		}
		if (r >= 0) {
			pt[r] = t1 - t0 > 0 ? t1 - t0 : 1;
			ut[r] = t2 - t1 > 0 ? t2 - t1 : 1;
		}
	}
	for (int64_t i = 0; i < n; i++)
		if (memcmp(src + i * d, want + i * ELEM, ELEM) != 0)
			fail("size %" PRId64 " at stride %" PRId64 ": unpacking changed element %" PRId64, s, d, i);
	MPI_Type_free(&t);
	free(src);
	free(packed);
	free(want);

	for (long r = 0; r < reps; r++)
		printf("%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n", s, d, pt[r], ut[r]);
	int64_t mp = median(pt, reps), mu = median(ut, reps);
	printf("# median %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 "\n", s, d, mp, mu);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int nprocs;
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (nprocs != 1) {
		if (rank == 0) {
			printf("error: %d processes: gopsim-pack runs on exactly 1 (mpirun -np 1, or started directly)\n", nprocs);
			fflush(stdout);
		}
		MPI_Finalize();
		return 1;
	}

	long reps = 50, warmup = 5;
	int first = 1;
	for (; first < argc && argv[first][0] == '-'; first += 2) {
		if (first + 1 >= argc)
			fail("%s without a value; usage: gopsim-pack [-r REPS] [-w WARMUP] [SIZE:STRIDE ...]", argv[first]);
		if (strcmp(argv[first], "-r") == 0)
			reps = number(argv[first + 1], "-r", 1, MAX_REPS);
		else if (strcmp(argv[first], "-w") == 0)
			warmup = number(argv[first + 1], "-w", 0, MAX_REPS);
		else
			fail("unknown flag %s; usage: gopsim-pack [-r REPS] [-w WARMUP] [SIZE:STRIDE ...]", argv[first]);
	}
	/* Check every pair on the command line before measuring any. */
	for (int i = first; i < argc; i++) {
		int64_t s, d;
		char extra, where[64];
		snprintf(where, sizeof where, "argument %d", i);
		if (sscanf(argv[i], "%" SCNd64 ":%" SCNd64 "%c", &s, &d, &extra) != 2)
			fail("%s %s: want SIZE:STRIDE in bytes", where, argv[i]);
		check_pair(where, s, d);
	}

	int64_t *pt = malloc((size_t)reps * sizeof *pt), *ut = malloc((size_t)reps * sizeof *ut);
	if (pt == NULL || ut == NULL)
		fail("cannot allocate %ld times", reps);
	char lib[MPI_MAX_LIBRARY_VERSION_STRING + 1] = { 0 };
	int len;
	MPI_Get_library_version(lib, &len);
	printf("# gopsim-pack %d %s\n", OUTPUT_VERSION, first_line(lib));
	printf("%s\n", HEADER);
	fflush(stdout);

	if (first < argc) {
		for (int i = first; i < argc; i++) {
			int64_t s, d;
			sscanf(argv[i], "%" SCNd64 ":%" SCNd64, &s, &d);
			measure(s, d, reps, warmup, pt, ut);
		}
	} else {
		char buf[256], where[64];
		long line = 0;
		while (fgets(buf, sizeof buf, stdin) != NULL) {
			line++;
			char *p = buf + strspn(buf, " \t");
			if (*p == '#' || *p == '\n' || *p == '\r' || *p == 0)
				continue;
			int64_t s, d;
			char extra;
			snprintf(where, sizeof where, "stdin line %ld", line);
			if (sscanf(p, "%" SCNd64 " %" SCNd64 " %c", &s, &d, &extra) != 2)
				fail("%s: want \"SIZE STRIDE\" in bytes", where);
			check_pair(where, s, d);
			measure(s, d, reps, warmup, pt, ut);
		}
	}
	free(pt);
	free(ut);
	MPI_Finalize();
	return 0;
}
