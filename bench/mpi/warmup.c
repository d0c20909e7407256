/*
 * gopsim-warmup: the MPI library's one-time costs, for `gopsim calibrate
 * --backend mpi`. Two ranks, started fresh by mpirun for every run, time
 * the first call of each probed MPI function and the same call once warm,
 * so that the difference is what a process pays once: the connection to
 * a peer, code and data the library sets up (or pages in) the first time
 * a function runs, and the local work of creating a communicator.
 * `make calibrate-deps` builds it into bin/gopsim-warmup.
 *
 * The first contact is the first 8-byte round trip, timed at rank 0. The
 * two ranks leave MPI_Init up to hundreds of microseconds apart, and a
 * round trip started before the peer waits in its receive would count
 * that skew as the library's cost; so rank 0 spins for SETTLE_NS first
 * (as a rank computing before its first message: a sleep would leave its
 * CPU cold and add its wake-up to the cost), and
 * rank 1, which goes straight to its receive, checks that it did wait
 * there for at least half of that. If it did not (a busy machine that
 * started it late), the run's contact is unknown ("-").
 *
 * Before every other timed call the two ranks meet with a warm ping-pong
 * of empty messages, so that neither is still busy with the previous
 * probe and the time is the call's own. A probe times its first call, then
 * REPS more calls (each after a meeting) and keeps their median; each
 * rank times its own calls and rank 0 prints, for each probe, the larger
 * of the two ranks' values. The probes run in a fixed order (the order
 * of the output below): a function's first call comes after the probes
 * above it have warmed what they share with it.
 *
 * Output on rank 0's standard output (bench/warmup.go reads it):
 *
 *	# gopsim-warmup VERSION LIBRARY            the first line of MPI_Get_library_version
 *	contact FIRST_NS|- WARM_NS                 the first 8-byte round trip with the peer (at rank 0; - when unknown), and a warm one
 *	call NAME FIRST_NS WARM_NS                 one line per probed function, NAME as MPI spells it
 *	# end
 *	error: MESSAGE                             in place of any line; exit status 1
 *
 * Times are CLOCK_MONOTONIC ns. Usage: gopsim-warmup [REPS] (default 15).
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define WARMUP_VERSION 2
#define MAX_REPS 1000
#define MAX_PROBES 32
#define SMALL 8		/* bytes of the collectives' and the contact's messages */
#define RING 800	/* bytes of the non-blocking exchange */
#define SETTLE_NS 50000000	/* rank 0's wait before the first contact */
#define UNKNOWN INT64_MAX	/* a contact not timed apart from the ranks' skew */

static int rank, peer, reps = 15;

struct probe {
	const char *name;
	int64_t first, warm;
};

static struct probe probes[MAX_PROBES];
static int nprobes;
static int64_t contact_first, contact_warm;

/* meet synchronizes the two ranks with an empty ping-pong. */
static void meet(void)
{
	if (rank == 0) {
		MPI_Send(NULL, 0, MPI_BYTE, peer, 9, MPI_COMM_WORLD);
		MPI_Recv(NULL, 0, MPI_BYTE, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		MPI_Recv(NULL, 0, MPI_BYTE, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(NULL, 0, MPI_BYTE, peer, 9, MPI_COMM_WORLD);
	}
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int64_t median(int64_t *v, int n)
{
	qsort(v, n, sizeof *v, cmp64);
	return v[n / 2];
}

/* pingpong does one 8-byte round trip and returns its time at this rank. */
static int64_t pingpong(void)
{
	char b[SMALL] = { 0 };
	int64_t t0 = now_ns();
	if (rank == 0) {
		MPI_Send(b, SMALL, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
		MPI_Recv(b, SMALL, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		MPI_Recv(b, SMALL, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(b, SMALL, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
	}
	return now_ns() - t0;
}

/* probe_contact times the first round trip with the peer, at rank 0
 * after rank 1 surely waits for it (SETTLE_NS), then warm ones. */
static void probe_contact(void)
{
	int64_t v[MAX_REPS];
	if (rank == 0) { /* spins, as a rank computing before its first message */
		int64_t t0 = now_ns();
		while (now_ns() - t0 < SETTLE_NS)
			;
	}
	contact_first = pingpong();
	if (rank == 1) /* its wait is not the cost; the report takes rank 0's */
		contact_first = contact_first < SETTLE_NS / 2 ? UNKNOWN : 0;
	for (int i = 0; i < reps; i++)
		v[i] = pingpong();
	contact_warm = median(v, reps);
}

/* An op is one probed call; setup and cleanup run around it, untimed. */
typedef void (*op_fn)(void);

static struct probe *add(const char *name)
{
	if (nprobes == MAX_PROBES) {
		printf("error: more than %d probes\n", MAX_PROBES);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	probes[nprobes].name = name;
	return &probes[nprobes++];
}

/* run times op once cold and reps times warm, each after a meeting. */
static void run(const char *name, op_fn setup, op_fn op, op_fn cleanup)
{
	int64_t v[MAX_REPS];
	struct probe *p = add(name);
	for (int i = -1; i < reps; i++) {
		if (setup)
			setup();
		meet();
		int64_t t0 = now_ns();
		op();
		int64_t t = now_ns() - t0;
		if (cleanup)
			cleanup();
		if (i < 0)
			p->first = t;
		else
			v[i] = t;
	}
	p->warm = median(v, reps);
}

/* The non-blocking exchange is timed call by call: Irecv, Isend, Waitall,
 * then Isend and Irecv completed by Wait. */
static double ring_out[RING / 8], ring_in[RING / 8];
static MPI_Request reqs[2];
/* A real status array, not MPI_STATUSES_IGNORE: gcc 12 reads MPICH's
 * MPI_STATUSES_IGNORE ((MPI_Status *)1) as a zero-sized region and warns
 * (-Wstringop-overflow) that Waitall writes 20 bytes into it. */
static MPI_Status stats[2];

static void op_irecv(void) { MPI_Irecv(ring_in, RING / 8, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD, &reqs[0]); }
static void op_isend(void) { MPI_Isend(ring_out, RING / 8, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD, &reqs[1]); }
static void op_waitall(void) { MPI_Waitall(2, reqs, stats); }
static void op_wait(void)
{
	MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
	MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
}
static void post_both(void)
{
	op_irecv();
	op_isend();
}

/* probe_nonblocking times Irecv, Isend and Waitall of one exchange in one
 * pass, as a ring step makes them, and then Wait. */
static void probe_nonblocking(void)
{
	int64_t v[3][MAX_REPS];
	struct probe *p[3] = { add("MPI_Irecv"), add("MPI_Isend"), add("MPI_Waitall") };
	op_fn ops[3] = { op_irecv, op_isend, op_waitall };
	for (int i = -1; i < reps; i++) {
		meet();
		for (int k = 0; k < 3; k++) {
			int64_t t0 = now_ns();
			ops[k]();
			int64_t t = now_ns() - t0;
			if (i < 0)
				p[k]->first = t;
			else
				v[k][i] = t;
		}
	}
	for (int k = 0; k < 3; k++)
		p[k]->warm = median(v[k], reps);
	run("MPI_Wait", post_both, op_wait, NULL);
}

static double x[2], y[2];
static int counts[2] = { 1, 1 }, displs[2] = { 0, 1 };
static MPI_Comm made;

static void op_sendrecv(void)
{
	MPI_Sendrecv(x, 1, MPI_DOUBLE, peer, 6, y, 1, MPI_DOUBLE, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
static void op_barrier(void) { MPI_Barrier(MPI_COMM_WORLD); }
static void op_bcast(void) { MPI_Bcast(x, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); }
static void op_reduce(void) { MPI_Reduce(x, y, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD); }
static void op_allreduce(void) { MPI_Allreduce(x, y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); }
static void op_allgather(void) { MPI_Allgather(x, 1, MPI_DOUBLE, y, 1, MPI_DOUBLE, MPI_COMM_WORLD); }
static void op_allgatherv(void) { MPI_Allgatherv(x, 1, MPI_DOUBLE, y, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD); }
static void op_alltoall(void) { MPI_Alltoall(x, 1, MPI_DOUBLE, y, 1, MPI_DOUBLE, MPI_COMM_WORLD); }
static void op_alltoallv(void)
{
	MPI_Alltoallv(x, counts, displs, MPI_DOUBLE, y, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
}
static void op_gather(void) { MPI_Gather(x, 1, MPI_DOUBLE, y, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); }
static void op_scatter(void) { MPI_Scatter(x, 1, MPI_DOUBLE, y, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); }
static void op_reduce_scatter(void) { MPI_Reduce_scatter(x, y, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); }
static void op_scan(void) { MPI_Scan(x, y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); }
static void op_split(void) { MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &made); }
static void op_dup(void) { MPI_Comm_dup(MPI_COMM_WORLD, &made); }
static void free_made(void) { MPI_Comm_free(&made); }

/* report gathers the larger of the two ranks' values at rank 0 and
 * prints them. */
static void report(void)
{
	int64_t mine[2 * MAX_PROBES + 2], most[2 * MAX_PROBES + 2];
	int n = 0;
	mine[n++] = contact_first;
	mine[n++] = contact_warm;
	for (int i = 0; i < nprobes; i++) {
		mine[n++] = probes[i].first;
		mine[n++] = probes[i].warm;
	}
	MPI_Reduce(mine, most, n, MPI_INT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
	if (rank != 0)
		return;
	char lib[MPI_MAX_LIBRARY_VERSION_STRING];
	int len;
	MPI_Get_library_version(lib, &len);
	printf("# gopsim-warmup %d %s\n", WARMUP_VERSION, first_line(lib));
	if (most[0] == UNKNOWN)
		printf("contact - %lld\n", (long long)most[1]);
	else
		printf("contact %lld %lld\n", (long long)most[0], (long long)most[1]);
	for (int i = 0; i < nprobes; i++)
		printf("call %s %lld %lld\n", probes[i].name, (long long)most[2 + 2 * i], (long long)most[3 + 2 * i]);
	printf("# end\n");
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1) {
		char *end;
		long r = strtol(argv[1], &end, 10);
		if (*end || r < 1 || r > MAX_REPS) {
			if (rank == 0)
				printf("error: REPS %s: want a whole number in 1..%d\n", argv[1], MAX_REPS);
			MPI_Finalize();
			return 1;
		}
		reps = (int)r;
	}
	if (size != 2) {
		if (rank == 0)
			printf("error: needs exactly 2 ranks, has %d\n", size);
		MPI_Finalize();
		return 1;
	}
	peer = 1 - rank;
	probe_contact();
	probe_nonblocking();
	run("MPI_Sendrecv", NULL, op_sendrecv, NULL);
	run("MPI_Barrier", NULL, op_barrier, NULL);
	run("MPI_Bcast", NULL, op_bcast, NULL);
	run("MPI_Reduce", NULL, op_reduce, NULL);
	run("MPI_Allreduce", NULL, op_allreduce, NULL);
	run("MPI_Allgather", NULL, op_allgather, NULL);
	run("MPI_Allgatherv", NULL, op_allgatherv, NULL);
	run("MPI_Alltoall", NULL, op_alltoall, NULL);
	run("MPI_Alltoallv", NULL, op_alltoallv, NULL);
	run("MPI_Gather", NULL, op_gather, NULL);
	run("MPI_Scatter", NULL, op_scatter, NULL);
	run("MPI_Reduce_scatter", NULL, op_reduce_scatter, NULL);
	run("MPI_Scan", NULL, op_scan, NULL);
	run("MPI_Comm_split", NULL, op_split, free_made);
	run("MPI_Comm_dup", NULL, op_dup, free_made);
	report();
	MPI_Finalize();
	return 0;
}
