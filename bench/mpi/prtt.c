/*
 * gopsim-prtt: the mpi backend of `gopsim calibrate`. Two MPI ranks run
 * the PRTT(n,d,s) rounds that gopsim asks for: rank 0 times them, rank 1
 * echoes. `make calibrate-deps` builds it into bin/gopsim-prtt.
 *
 * It is not meant to be run by hand: `gopsim calibrate --backend mpi`
 * starts it under mpirun, writes commands to rank 0's standard input and
 * reads the results from its standard output. The protocol (commands,
 * output lines, limits) is specified at the top of bench/mpi.go; this file
 * follows it.
 *
 * Each round: rank 0 reads the clock, sends n messages of s bytes to rank 1
 * with MPI_Send (tag 1), after each send but the last waits d ns (spinning
 * on the clock, or in nanosleep when asked to sleep), receives one reply of
 * s bytes (tag 2) and reads the clock again; rank 1 receives the n messages
 * and sends the reply. An exchange round is n MPI_Sendrecv of s bytes each
 * way (tag 4) by both ranks at once, timed by rank 0 from before the first
 * to after the last. Times are CLOCK_MONOTONIC in ns. Rank 0 keeps a
 * batch's results in memory and prints them after the batch, so that
 * printing costs nothing inside a round.
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

/* The limits of bench/mpi.go (bench.MaxSizeBytes, bench.MaxRoundMessages,
 * the batch and delay limits). */
#define PROTOCOL_VERSION 2
#define MAX_SIZE (1L << 30)
#define MAX_N (1L << 16)
#define MAX_BATCH (1L << 20)
#define MAX_DELAY_NS (1LL << 40)

#define TAG_MSG 1
#define TAG_REPLY 2
#define TAG_READY 3
#define TAG_EXCH 4

enum { CMD_QUIT = 0, CMD_BATCH = 1 };

struct round {
	int32_t n;
	int64_t delay_ns;
	int sleep;
	int exchange;
};

struct result {
	int64_t prtt_ns;
	int64_t delay_ns;
};

/* pause_ns waits about d ns, spinning or sleeping, and returns how long it
 * waited. */
static int64_t pause_ns(int64_t d, int sleeping)
{
	int64_t start = now_ns();
	if (sleeping) {
		struct timespec ts = { .tv_sec = d / 1000000000, .tv_nsec = d % 1000000000 };
		while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
			;
	} else {
		while (now_ns() - start < d)
			;
	}
	return now_ns() - start;
}

/* protocol_error reports a bad command on rank 0's output ("@prtt error"). */
static void protocol_error(long line, const char *fmt, ...)
{
	va_list ap;
	printf("@prtt error stdin line %ld: ", line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* BUF_OFFSET is where a buffer starts past a page boundary: 16 bytes,
 * where malloc puts a buffer of 128 KiB or more (after its chunk header)
 * and, often, a smaller one. A message's pages are what a single-copy
 * transfer (CMA, XPMEM) pins and maps: at 4096 bytes, Open MPI's vader
 * took 4.6 to 5.0 us a round trip with page-aligned buffers and 5.4 to
 * 6.0 us with buffers 16 bytes past a page, which span one page more,
 * as an application's do (docs/accuracy.md). */
#define BUF_OFFSET 16

/* buffer returns a touched buffer of at least size bytes that starts
 * BUF_OFFSET bytes past a page boundary, reusing *buf when it is large
 * enough; *base is the allocation, for free. */
static char *buffer(char **buf, void **base, size_t *cap, size_t size)
{
	if (size <= *cap)
		return *buf;
	free(*base);
	*buf = NULL;
	*base = NULL;
	*cap = 0;
	void *p;
	if (posix_memalign(&p, 4096, size + BUF_OFFSET) != 0)
		return NULL;
	memset(p, 0, size + BUF_OFFSET); /* no page faults inside the rounds */
	*base = p;
	*buf = (char *)p + BUF_OFFSET;
	*cap = size;
	return *buf;
}

/* exchanges runs n exchanges of s bytes with peer: MPI_Sendrecv from *buf
 * into *rbuf, then the two swap, so that each exchange sends what the
 * previous one received, as a ping-pong round sends what it received: data
 * this rank's CPU has just written, the usual case of an application's
 * message (the result of a computation), and not data that stays in both
 * CPUs' caches unchanged. On this project's VM the difference is large:
 * Open MPI's single-copy ping-pong of 64 KiB takes 5.3 us a half round
 * trip from a buffer never written and 13.6 us from the buffer just
 * received into (docs/accuracy.md). */
static void exchanges(int32_t n, int64_t s, int peer, char *buf, char *rbuf)
{
	for (int32_t j = 0; j < n; j++) {
		MPI_Sendrecv(buf, (int)s, MPI_BYTE, peer, TAG_EXCH, rbuf, (int)s, MPI_BYTE, peer, TAG_EXCH, MPI_COMM_WORLD,
			     MPI_STATUS_IGNORE);
		char *t = buf;
		buf = rbuf;
		rbuf = t;
	}
}

/* read_command reads one command from stdin (rank 0). It returns
 * CMD_BATCH with *size, *repeat, the pattern's rounds in *pat (count in
 * *k), CMD_QUIT on "quit" or at the end of input, or -1 after reporting
 * a bad command. */
static int read_command(long *line, int64_t *size, int64_t *repeat, struct round **pat, int64_t *k)
{
	char buf[256];
	if (fgets(buf, sizeof buf, stdin) == NULL)
		return CMD_QUIT;
	(*line)++;
	if (strcmp(buf, "quit\n") == 0 || strcmp(buf, "quit") == 0)
		return CMD_QUIT;
	char extra;
	if (sscanf(buf, "batch %" SCNd64 " %" SCNd64 " %" SCNd64 " %c", size, repeat, k, &extra) != 3) {
		protocol_error(*line, "want \"batch SIZE REPEAT K\" or \"quit\"");
		return -1;
	}
	if (*size < 1 || *size > MAX_SIZE || *k < 1 || *repeat < 1 || *k > MAX_BATCH || *repeat > MAX_BATCH / *k) {
		protocol_error(*line, "size %" PRId64 " bytes, %" PRId64 " x %" PRId64 " rounds: want 1..%ld bytes, 1..%ld rounds",
			       *size, *repeat, *k, MAX_SIZE, MAX_BATCH);
		return -1;
	}
	struct round *p = realloc(*pat, (size_t)*k * sizeof **pat);
	if (p == NULL) {
		protocol_error(*line, "out of memory");
		return -1;
	}
	*pat = p;
	for (int64_t i = 0; i < *k; i++) {
		if (fgets(buf, sizeof buf, stdin) == NULL) {
			protocol_error(*line + 1, "input ends inside a batch");
			return -1;
		}
		(*line)++;
		int64_t n, d;
		int sl, ex;
		if (sscanf(buf, "%" SCNd64 " %" SCNd64 " %d %d %c", &n, &d, &sl, &ex, &extra) != 4 || n < 1 || n > MAX_N ||
		    d < 0 || d > MAX_DELAY_NS || (sl != 0 && sl != 1) || (ex != 0 && ex != 1) || (ex && (d != 0 || sl))) {
			protocol_error(*line,
				       "want \"N DELAY_NS SLEEP EXCHANGE\" with N 1..%ld, DELAY_NS 0..%lld, SLEEP 0 or 1, "
				       "EXCHANGE 0 or 1 (1 with DELAY_NS 0 and SLEEP 0)",
				       MAX_N, MAX_DELAY_NS);
			return -1;
		}
		p[i] = (struct round){ .n = (int32_t)n, .delay_ns = d, .sleep = sl, .exchange = ex };
	}
	return CMD_BATCH;
}

/* BUILT_FOR is the MPI whose mpi.h this program was built with. */
#if defined(OPEN_MPI)
#define BUILT_FOR "Open MPI"
#define OTHER_PRTT "MPICH's: make tracer-mpich: bin/mpich/gopsim-prtt"
#elif defined(MPICH_VERSION)
#define BUILT_FOR "MPICH"
#define OTHER_PRTT "Open MPI's: make calibrate-deps: bin/gopsim-prtt"
#else
#define BUILT_FOR "another MPI"
#define OTHER_PRTT "built with the launcher's mpicc"
#endif

/* wrong_launcher reports, once (from the launcher's rank 0), a launcher
 * that started more processes than MPI_COMM_WORLD has (size): another
 * MPI's mpirun, whose processes each are an MPI job of one rank. It
 * returns 0 when the launcher's environment says nothing of the kind. */
static int wrong_launcher(int size)
{
	static const char *vars[][2] = {{"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"}, {"PMI_SIZE", "PMI_RANK"}};
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i][0]), *r = getenv(vars[i][1]);
		long n = v ? strtol(v, NULL, 10) : 0;
		if (n <= size)
			continue;
		if (!r || strcmp(r, "0") == 0) {
			printf("@prtt error %d rank: the launcher started %ld processes (%s=%s), each an MPI job of one rank: "
			       "this gopsim-prtt was built for %s and the launcher is another MPI's; "
			       "give --prtt-bin the gopsim-prtt of the launcher's MPI (%s)\n",
			       size, n, vars[i][0], v, BUILT_FOR, OTHER_PRTT);
			fflush(stdout);
		}
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2) {
		if (rank == 0 && !wrong_launcher(size)) {
			printf("@prtt error %d ranks: gopsim-prtt runs on exactly 2 (mpirun -np 2, the mpirun of the MPI it was built with)\n", size);
			fflush(stdout);
		}
		MPI_Finalize();
		return 1;
	}

	/* hello: the protocol version, the hosts of both ranks, the library. */
	char host[2][MPI_MAX_PROCESSOR_NAME + 1];
	int len;
	memset(host, 0, sizeof host);
	MPI_Get_processor_name(host[rank], &len);
	for (char *c = host[rank]; *c; c++)
		if (*c == ' ' || *c == '\t')
			*c = '_';
	if (rank == 1)
		MPI_Send(host[1], MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, TAG_READY, MPI_COMM_WORLD);
	else
		MPI_Recv(host[1], MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 1, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (rank == 0) {
		char lib[MPI_MAX_LIBRARY_VERSION_STRING + 1] = { 0 };
		MPI_Get_library_version(lib, &len);
		printf("@prtt hello %d 2 %s %s %s\n", PROTOCOL_VERSION, first_line(host[0]), first_line(host[1]),
		       first_line(lib));
		fflush(stdout);
	}

	char *buf = NULL, *rbuf = NULL; /* rbuf: what an exchange receives */
	void *base = NULL, *rbase = NULL;
	size_t cap = 0, rcap = 0;
	struct round *pat = NULL;
	int32_t *ns = NULL;
	struct result *res = NULL;
	long line = 0;
	int status = 0;
	int64_t batches = 0, rounds = 0, messages = 0;
	for (;;) {
		/* The command: rank 0 reads it, both ranks learn it. */
		int64_t hdr[4] = { CMD_QUIT, 0, 0, 0 }; /* command, size, repeat, k */
		if (rank == 0) {
			int cmd = read_command(&line, &hdr[1], &hdr[2], &pat, &hdr[3]);
			if (cmd < 0)
				status = 1;
			else
				hdr[0] = cmd;
			if (hdr[0] == CMD_BATCH && (buffer(&buf, &base, &cap, (size_t)hdr[1]) == NULL ||
						    buffer(&rbuf, &rbase, &rcap, (size_t)hdr[1]) == NULL)) {
				printf("@prtt error rank 0: cannot allocate %" PRId64 " bytes\n", hdr[1]);
				fflush(stdout);
				hdr[0] = CMD_QUIT;
				status = 1;
			}
		}
		MPI_Bcast(hdr, 4, MPI_INT64_T, 0, MPI_COMM_WORLD);
		if (hdr[0] != CMD_BATCH)
			break;
		int64_t s = hdr[1], repeat = hdr[2], k = hdr[3];
		int32_t *p = realloc(ns, (size_t)k * sizeof *ns);
		if (p == NULL)
			MPI_Abort(MPI_COMM_WORLD, 2);
		ns = p;
		if (rank == 0) /* an exchange round's n is sent negated */
			for (int64_t i = 0; i < k; i++)
				ns[i] = pat[i].exchange ? -pat[i].n : pat[i].n;
		MPI_Bcast(ns, (int)k, MPI_INT32_T, 0, MPI_COMM_WORLD);

		if (rank == 1) {
			/* Allocate, then tell rank 0 that the batch may start. */
			if (buffer(&buf, &base, &cap, (size_t)s) == NULL || buffer(&rbuf, &rbase, &rcap, (size_t)s) == NULL) {
				fprintf(stderr, "gopsim-prtt: rank 1: cannot allocate %" PRId64 " bytes\n", s);
				MPI_Abort(MPI_COMM_WORLD, 2);
			}
			MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_READY, MPI_COMM_WORLD);
			for (int64_t r = 0; r < repeat; r++)
				for (int64_t i = 0; i < k; i++) {
					if (ns[i] < 0) {
						exchanges(-ns[i], s, 0, buf, rbuf);
						continue;
					}
					for (int32_t j = 0; j < ns[i]; j++)
						MPI_Recv(buf, (int)s, MPI_BYTE, 0, TAG_MSG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
					MPI_Send(buf, (int)s, MPI_BYTE, 0, TAG_REPLY, MPI_COMM_WORLD);
				}
			continue;
		}

		struct result *q = realloc(res, (size_t)(repeat * k) * sizeof *res);
		if (q == NULL)
			MPI_Abort(MPI_COMM_WORLD, 2);
		res = q;
		MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		for (int64_t r = 0; r < repeat; r++)
			for (int64_t i = 0; i < k; i++) {
				const struct round *rd = &pat[i];
				int64_t delays = 0;
				int64_t t0 = now_ns();
				if (rd->exchange) {
					exchanges(rd->n, s, 1, buf, rbuf);
					int64_t t = now_ns() - t0;
					res[r * k + i] = (struct result){ .prtt_ns = t > 0 ? t : 1, .delay_ns = 0 };
					continue;
				}
				for (int32_t j = 0; j < rd->n; j++) {
					MPI_Send(buf, (int)s, MPI_BYTE, 1, TAG_MSG, MPI_COMM_WORLD);
					if (rd->delay_ns > 0 && j < rd->n - 1)
						delays += pause_ns(rd->delay_ns, rd->sleep);
				}
				MPI_Recv(buf, (int)s, MPI_BYTE, 1, TAG_REPLY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				int64_t t = now_ns() - t0;
				res[r * k + i] = (struct result){
					.prtt_ns = t > 0 ? t : 1,
					.delay_ns = rd->n > 1 && rd->delay_ns > 0 ? delays / (rd->n - 1) : 0,
				};
			}
		printf("@prtt batch %" PRId64 " %" PRId64 "\n", s, repeat * k);
		for (int64_t r = 0; r < repeat; r++)
			for (int64_t i = 0; i < k; i++) {
				const struct result *x = &res[r * k + i];
				printf("@prtt r %" PRId32 " %" PRId64 " %" PRId64 "\n", pat[i].n, x->delay_ns, x->prtt_ns);
				messages += pat[i].n;
			}
		printf("@prtt end\n");
		fflush(stdout);
		batches++;
		rounds += repeat * k;
	}
	if (rank == 0 && status == 0) {
		printf("@prtt bye %" PRId64 " %" PRId64 " %" PRId64 "\n", batches, rounds, messages);
		fflush(stdout);
	}
	free(base);
	free(rbase);
	free(pat);
	free(ns);
	free(res);
	MPI_Finalize();
	return status;
}
