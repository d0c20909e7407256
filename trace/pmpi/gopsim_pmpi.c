/*
 * gopsim_pmpi.c: the runtime of the gopsim MPI tracer (see gopsim_pmpi.h
 * for what it records and the file format). The generated wrappers call
 * the helpers here after the PMPI call; the helpers fill a gp_call and
 * gp_emit encodes it into a fixed-size buffer written out as it fills.
 *
 * Cost. A recorded call pays two clock_gettime calls, a communicator
 * lookup (the last one used is cached; the rest are a short list), the
 * datatype's size and extent, and the encoding of a dozen varints;
 * requests live in an open-addressing hash table keyed by their handle.
 * bench/ measures it.
 */
#define _GNU_SOURCE
#include "gopsim_pmpi.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int gp_active;
int gp_threaded;
__thread int gp_depth __attribute__((tls_model("initial-exec")));

static pthread_mutex_t gp_mu = PTHREAD_MUTEX_INITIALIZER;

static __thread int gp_held __attribute__((tls_model("initial-exec")));

void gp_lock_slow(void)
{
	pthread_mutex_lock(&gp_mu);
	gp_held = 1;
}

/* gp_unlock_slow unlocks only a lock this thread took: MPI_Init_thread
 * turns locking on between its gp_lock and gp_unlock. */
void gp_unlock_slow(void)
{
	if (gp_held) {
		gp_held = 0;
		pthread_mutex_unlock(&gp_mu);
	}
}

int64_t gp_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void gp_warn(const char *fmt, const char *arg)
{
	fprintf(stderr, "gopsim tracer: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
}

/* ---- the output buffer ---- */

#define GP_FIXED_MAX 320 /* the largest record without its arrays, and a flush record */
#define GP_ELEM_MAX 40	 /* the largest array element (a completion) */

static const unsigned char gp_magic[8] = {0x89, 'G', 'P', 'T', 'R', '\r', '\n', 0x1a};

static unsigned char *gp_buf;
static size_t gp_len, gp_cap;
static int gp_fd = -1;
static int64_t gp_prev;	 /* start time of the previous call or flush record */
static uint64_t gp_nrec; /* records written */
static int gp_note;	 /* a flush to record */
static int64_t gp_note_start, gp_note_end;

static void gp_write_all(const unsigned char *p, size_t n)
{
	while (n > 0 && gp_fd >= 0) {
		ssize_t w = write(gp_fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			gp_warn("writing the trace failed (%s); tracing stops", strerror(errno));
			close(gp_fd);
			gp_fd = -1;
			gp_active = 0;
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

static void gp_flush(void)
{
	int64_t t = gp_now();
	gp_write_all(gp_buf, gp_len);
	gp_len = 0;
	gp_note = 1;
	gp_note_start = t;
	gp_note_end = gp_now();
}

static inline void gp_ensure(size_t n)
{
	if (gp_cap - gp_len < n)
		gp_flush();
}

static inline void gp_u8(unsigned v) { gp_buf[gp_len++] = (unsigned char)v; }

static inline void gp_uv(uint64_t v)
{
	while (v >= 0x80) {
		gp_buf[gp_len++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	gp_buf[gp_len++] = (unsigned char)v;
}

static inline void gp_zz(int64_t v) { gp_uv(((uint64_t)v << 1) ^ (uint64_t)(v >> 63)); }

static void gp_bytes(const char *s, size_t n)
{
	if (n > 1024)
		n = 1024;
	gp_ensure(n + 10);
	gp_uv(n);
	memcpy(gp_buf + gp_len, s, n);
	gp_len += n;
}

/* gp_record_start makes room for a record and first writes the note of a
 * flush made since the previous record. */
static void gp_record_start(void)
{
	gp_ensure(GP_FIXED_MAX);
	if (gp_note) {
		gp_note = 0;
		gp_u8(GP_REC_FLUSH);
		gp_zz(gp_note_start - gp_prev);
		gp_uv((uint64_t)(gp_note_end - gp_note_start));
		gp_prev = gp_note_start;
		gp_nrec++;
	}
}

static void gp_counts(const int *v, int n, int64_t mul)
{
	gp_uv((uint64_t)n);
	for (int i = 0; i < n; i++) {
		gp_ensure(GP_ELEM_MAX);
		int64_t x = (int64_t)v[i] * mul;
		gp_uv(x < 0 ? 0 : (uint64_t)x);
	}
}

static void gp_encode(const gp_call *c)
{
	uint32_t m = c->mask;
	gp_record_start();
	gp_u8((unsigned)c->fn);
	gp_uv(m);
	gp_zz(c->start - gp_prev);
	gp_prev = c->start;
	gp_uv((uint64_t)(c->end - c->start));
	if (m & GP_F_COMM)
		gp_uv((uint64_t)c->comm);
	if (m & GP_F_PEER)
		gp_zz(c->peer);
	if (m & GP_F_TAG)
		gp_zz(c->tag);
	if (m & GP_F_BYTES)
		gp_uv((uint64_t)c->bytes);
	if (m & GP_F_TYPE) {
		gp_uv((uint64_t)c->tsize);
		gp_zz(c->text);
	}
	if (m & GP_F_REQUEST)
		gp_uv(c->req);
	if (m & GP_F_DONE) {
		gp_uv((uint64_t)c->ndone);
		for (int i = 0; i < c->ndone; i++) {
			const gp_done *d = &c->done[i];
			gp_ensure(GP_ELEM_MAX);
			gp_uv(d->id);
			gp_u8(d->flags);
			if (d->flags & GP_DONE_STATUS) {
				gp_zz(d->peer);
				gp_zz(d->tag);
				gp_uv((uint64_t)d->bytes);
			}
		}
		gp_ensure(GP_FIXED_MAX);
	}
	if (m & GP_F_ROOT)
		gp_zz(c->root);
	if (m & GP_F_POLLS)
		gp_uv((uint64_t)c->polls);
	if (m & GP_F_RPEER)
		gp_zz(c->rpeer);
	if (m & GP_F_RTAG)
		gp_zz(c->rtag);
	if (m & GP_F_RBYTES)
		gp_uv((uint64_t)c->rbytes);
	if (m & GP_F_RTYPE) {
		gp_uv((uint64_t)c->rtsize);
		gp_zz(c->rtext);
	}
	if (m & GP_F_COUNTS) {
		gp_counts(c->counts, c->ncounts, c->countmul);
		gp_ensure(GP_FIXED_MAX);
	}
	if (m & GP_F_RCOUNTS) {
		gp_counts(c->rcounts, c->nrcounts, c->rcountmul);
		gp_ensure(GP_FIXED_MAX);
	}
	if (m & GP_F_NEWCOMM)
		gp_uv((uint64_t)c->newcomm);
	if (m & GP_F_ERR)
		gp_uv((uint64_t)c->err);
	if (m & GP_F_DTYPE)
		gp_uv(c->dtype);
	if (m & GP_F_RDTYPE)
		gp_uv(c->rdtype);
	gp_nrec++;
}

/* ---- communicators ---- */

struct gp_comm {
	MPI_Comm h;
	int32_t id, size, rank, rsize;
	int32_t *world;	 /* world rank of each rank; NULL for MPI_COMM_WORLD */
	int32_t *rworld; /* remote group of an intercommunicator */
	int inter;
	gp_comm *next; /* live communicators */
};

static gp_comm gp_world;
static gp_comm *gp_comms; /* live communicators other than the world */
static gp_comm *gp_last;  /* the last one looked up */
static int32_t gp_rank, gp_size;
static int32_t gp_next_id = 2;
static int32_t gp_next_local = 0x40000000;

static void gp_members(const int32_t *w, int n)
{
	gp_ensure(GP_ELEM_MAX);
	gp_uv((uint64_t)n);
	for (int i = 0; i < n; i++) {
		gp_ensure(GP_ELEM_MAX);
		if (i == 0)
			gp_uv((uint64_t)w[0]);
		else
			gp_zz((int64_t)w[i] - w[i - 1] - 1);
	}
}

static void gp_encode_comm(const gp_comm *c, int local)
{
	gp_record_start();
	gp_u8(GP_REC_COMM);
	gp_uv((uint64_t)c->id);
	gp_uv((c->inter ? 1u : 0u) | (local ? 2u : 0u) | (c->world ? 0u : 4u));
	if (c->world)
		gp_members(c->world, c->size);
	else
		gp_uv((uint64_t)c->size);
	if (c->inter)
		gp_members(c->rworld, c->rsize);
	gp_nrec++;
}

/* gp_translate returns the world ranks of group g's n members. */
static int32_t *gp_translate(MPI_Group g, int n)
{
	MPI_Group wg;
	int *in = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
	int *out = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
	int32_t *w = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
	if (!in || !out || !w) {
		gp_warn("out of memory%s", "");
		abort();
	}
	for (int i = 0; i < n; i++)
		in[i] = i;
	PMPI_Comm_group(MPI_COMM_WORLD, &wg);
	PMPI_Group_translate_ranks(g, n, in, wg, out);
	PMPI_Group_free(&wg);
	for (int i = 0; i < n; i++)
		w[i] = out[i] == MPI_UNDEFINED ? GP_PROC_NULL : out[i];
	free(in);
	free(out);
	return w;
}

static gp_comm *gp_comm_register(MPI_Comm h, int32_t id, int local)
{
	gp_comm *c = calloc(1, sizeof *c);
	MPI_Group g;
	int n;
	if (!c) {
		gp_warn("out of memory%s", "");
		abort();
	}
	c->h = h;
	c->id = id;
	PMPI_Comm_test_inter(h, &c->inter);
	PMPI_Comm_size(h, &n);
	c->size = n;
	PMPI_Comm_rank(h, &n);
	c->rank = n;
	PMPI_Comm_group(h, &g);
	c->world = gp_translate(g, c->size);
	PMPI_Group_free(&g);
	if (c->inter) {
		PMPI_Comm_remote_size(h, &n);
		c->rsize = n;
		PMPI_Comm_remote_group(h, &g);
		c->rworld = gp_translate(g, c->rsize);
		PMPI_Group_free(&g);
	}
	c->next = gp_comms;
	gp_comms = c;
	gp_encode_comm(c, local);
	return c;
}

/* gp_comm_find returns the communicator of handle h, or NULL. */
static gp_comm *gp_comm_find(MPI_Comm h)
{
	if (h == MPI_COMM_WORLD)
		return &gp_world;
	if (gp_last && gp_last->h == h)
		return gp_last;
	for (gp_comm *c = gp_comms; c; c = c->next)
		if (c->h == h)
			return gp_last = c;
	return NULL;
}

/* gp_comm_get is gp_comm_find that registers an unknown communicator
 * (one created by a call the tracer does not wrap) with a local id. */
static gp_comm *gp_comm_get(MPI_Comm h)
{
	gp_comm *c = gp_comm_find(h);
	if (c || h == MPI_COMM_NULL)
		return c;
	return gp_last = gp_comm_register(h, gp_next_local++, 1);
}

static void gp_comm_unlink(MPI_Comm h)
{
	for (gp_comm **p = &gp_comms; *p; p = &(*p)->next)
		if ((*p)->h == h) {
			if (gp_last == *p)
				gp_last = NULL;
			*p = (*p)->next; /* kept: pending requests may point to it */
			return;
		}
}

static inline int32_t gp_special(int r)
{
	if (r == MPI_ANY_SOURCE)
		return GP_ANY;
	if (r == MPI_PROC_NULL)
		return GP_PROC_NULL;
	if (r == MPI_ROOT)
		return GP_ROOT;
	return r;
}

/* gp_peer turns rank r of communicator c into a world rank. */
static inline int32_t gp_peer(const gp_comm *c, int r)
{
	if (r < 0 || !c)
		return gp_special(r);
	if (c->inter)
		return r < c->rsize ? c->rworld[r] : r;
	if (!c->world || r >= c->size)
		return r;
	return c->world[r];
}

static inline int32_t gp_tag(int t) { return t == MPI_ANY_TAG ? GP_ANY : t; }

static inline gp_comm *gp_set_comm(gp_call *c, MPI_Comm comm)
{
	gp_comm *p = gp_comm_get(comm);
	if (p) {
		c->comm = p->id;
		c->mask |= GP_F_COMM;
	}
	return p;
}

/* ---- datatypes ---- */

static inline void gp_type(MPI_Datatype t, int64_t *size, int64_t *extent)
{
	MPI_Count sz = 0;
	MPI_Aint lb = 0, ext = 0;
	if (t != MPI_DATATYPE_NULL) {
		PMPI_Type_size_x(t, &sz);
		PMPI_Type_get_extent(t, &lb, &ext);
	}
	*size = sz == MPI_UNDEFINED ? 0 : (int64_t)sz;
	*extent = (int64_t)ext;
}

/* Datatypes the tracer has seen: the handle and the id of its type record
 * (0 for a predefined, named datatype, which has no record). A short
 * array searched from the last hit: programs use few datatypes at a time,
 * and MPI_Type_free removes an entry (its handle may be reused). */
typedef struct {
	MPI_Datatype h;
	uint32_t id;
} gp_dt;

static gp_dt *gp_dts;
static size_t gp_ndts, gp_capdts, gp_lastdt;
static uint32_t gp_next_dt = 1;

static int gp_dt_code(int comb)
{
	if (comb == MPI_COMBINER_NAMED)
		return GP_DT_NAMED;
	if (comb == MPI_COMBINER_DUP)
		return GP_DT_DUP;
	if (comb == MPI_COMBINER_CONTIGUOUS)
		return GP_DT_CONTIGUOUS;
	if (comb == MPI_COMBINER_VECTOR)
		return GP_DT_VECTOR;
	if (comb == MPI_COMBINER_HVECTOR)
		return GP_DT_HVECTOR;
	if (comb == MPI_COMBINER_INDEXED)
		return GP_DT_INDEXED;
	if (comb == MPI_COMBINER_HINDEXED)
		return GP_DT_HINDEXED;
	if (comb == MPI_COMBINER_INDEXED_BLOCK)
		return GP_DT_INDEXED_BLOCK;
	if (comb == MPI_COMBINER_HINDEXED_BLOCK)
		return GP_DT_HINDEXED_BLOCK;
	if (comb == MPI_COMBINER_STRUCT)
		return GP_DT_STRUCT;
	if (comb == MPI_COMBINER_SUBARRAY)
		return GP_DT_SUBARRAY;
	if (comb == MPI_COMBINER_DARRAY)
		return GP_DT_DARRAY;
	if (comb == MPI_COMBINER_RESIZED)
		return GP_DT_RESIZED;
	return GP_DT_OTHER;
}

/* gp_dt_desc encodes the description of datatype t (see the format):
 * its constructor and arguments from MPI_Type_get_envelope and
 * MPI_Type_get_contents, the datatypes it is built from described in
 * turn, depth levels down at most. */
static void gp_dt_desc(MPI_Datatype t, int depth)
{
	int ni = 0, na = 0, nd = 0, comb = MPI_COMBINER_NAMED;
	int64_t size, extent;
	MPI_Aint lb = 0, ext = 0;
	PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
	int code = gp_dt_code(comb);
	gp_type(t, &size, &extent);
	PMPI_Type_get_extent(t, &lb, &ext);
	if (code != GP_DT_NAMED && (code == GP_DT_OTHER || depth >= GP_DT_DEPTH))
		code = GP_DT_OTHER, ni = na = nd = 0;
	gp_ensure(GP_ELEM_MAX);
	gp_uv((uint64_t)code);
	gp_uv((uint64_t)size);
	gp_zz((int64_t)lb);
	gp_zz(extent);
	if (code == GP_DT_NAMED)
		return;
	int *ints = malloc(sizeof(int) * (size_t)(ni > 0 ? ni : 1));
	MPI_Aint *addrs = malloc(sizeof(MPI_Aint) * (size_t)(na > 0 ? na : 1));
	MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)(nd > 0 ? nd : 1));
	if (!ints || !addrs || !types) {
		gp_warn("out of memory%s", "");
		abort();
	}
	if (ni || na || nd)
		PMPI_Type_get_contents(t, ni, na, nd, ints, addrs, types);
	/* The array order of subarray and darray: 0 C, 1 Fortran. */
	if ((code == GP_DT_SUBARRAY || code == GP_DT_DARRAY) && ni > 0)
		ints[ni - 1] = ints[ni - 1] == MPI_ORDER_FORTRAN;
	gp_uv((uint64_t)ni);
	for (int i = 0; i < ni; i++) {
		gp_ensure(GP_ELEM_MAX);
		gp_zz(ints[i]);
	}
	gp_ensure(GP_ELEM_MAX);
	gp_uv((uint64_t)na);
	for (int i = 0; i < na; i++) {
		gp_ensure(GP_ELEM_MAX);
		gp_zz((int64_t)addrs[i]);
	}
	gp_ensure(GP_ELEM_MAX);
	gp_uv((uint64_t)nd);
	for (int i = 0; i < nd; i++) {
		int ci = 0, ca = 0, cd = 0, cc = MPI_COMBINER_NAMED;
		gp_dt_desc(types[i], depth + 1);
		/* Derived datatypes get_contents returns are new handles. */
		PMPI_Type_get_envelope(types[i], &ci, &ca, &cd, &cc);
		if (cc != MPI_COMBINER_NAMED)
			PMPI_Type_free(&types[i]);
	}
	free(ints);
	free(addrs);
	free(types);
}

static gp_dt *gp_dt_find(MPI_Datatype t)
{
	if (gp_lastdt < gp_ndts && gp_dts[gp_lastdt].h == t)
		return &gp_dts[gp_lastdt];
	for (size_t i = 0; i < gp_ndts; i++)
		if (gp_dts[i].h == t) {
			gp_lastdt = i;
			return &gp_dts[i];
		}
	return NULL;
}

/* gp_dt_id returns the id of datatype t's type record, writing the record
 * when t is a derived datatype not seen before; 0 for a named one. */
static uint32_t gp_dt_id(MPI_Datatype t)
{
	if (t == MPI_DATATYPE_NULL)
		return 0;
	gp_dt *e = gp_dt_find(t);
	if (e)
		return e->id;
	int ni = 0, na = 0, nd = 0, comb = MPI_COMBINER_NAMED;
	uint32_t id = 0;
	PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
	if (comb != MPI_COMBINER_NAMED) {
		id = gp_next_dt++;
		gp_record_start();
		gp_u8(GP_REC_TYPE);
		gp_uv(id);
		gp_dt_desc(t, 0);
		gp_ensure(GP_FIXED_MAX);
		gp_nrec++;
	}
	if (gp_ndts == gp_capdts) {
		size_t cap = gp_capdts ? 2 * gp_capdts : 16;
		gp_dt *d = realloc(gp_dts, sizeof *d * cap);
		if (!d) {
			gp_warn("out of memory%s", "");
			abort();
		}
		gp_dts = d;
		gp_capdts = cap;
	}
	gp_dts[gp_ndts].h = t;
	gp_dts[gp_ndts].id = id;
	gp_lastdt = gp_ndts++;
	return id;
}

static inline int64_t gp_set_type(gp_call *c, MPI_Datatype t)
{
	gp_type(t, &c->tsize, &c->text);
	c->mask |= GP_F_TYPE;
	if ((c->dtype = gp_dt_id(t)) != 0)
		c->mask |= GP_F_DTYPE;
	return c->tsize;
}

static inline int64_t gp_set_rtype(gp_call *c, MPI_Datatype t)
{
	gp_type(t, &c->rtsize, &c->rtext);
	c->mask |= GP_F_RTYPE;
	if ((c->rdtype = gp_dt_id(t)) != 0)
		c->mask |= GP_F_RDTYPE;
	return c->rtsize;
}

/* gp_status_bytes is the size of the message status describes, as
 * MPI_Get_count on it times the size of t (MPI_BYTE if t is null). */
static int64_t gp_status_bytes(MPI_Status *st, MPI_Datatype t, int64_t tsize)
{
	int n = 0;
	if (t != MPI_DATATYPE_NULL && tsize > 0) {
		PMPI_Get_count(st, t, &n);
		if (n != MPI_UNDEFINED)
			return (int64_t)n * tsize;
	}
	PMPI_Get_count(st, MPI_BYTE, &n);
	return n == MPI_UNDEFINED ? 0 : n;
}

/* ---- requests ---- */

typedef struct {
	uint64_t key, id;
	gp_comm *comm;
	uint8_t used, kind, cancelled;
} gp_req;

static gp_req *gp_rt;
static size_t gp_rt_cap, gp_rt_n; /* cap is a power of two */
static int gp_rt_bits;
static uint64_t gp_next_req = 1;

static inline uint64_t gp_req_key(MPI_Request r)
{
	uint64_t k = 0;
	memcpy(&k, &r, sizeof r < sizeof k ? sizeof r : sizeof k);
	return k;
}

static inline size_t gp_rt_slot(uint64_t k) { return (size_t)((k * 0x9e3779b97f4a7c15ull) >> (64 - gp_rt_bits)); }

/* Several pending requests may share a handle: Open MPI's ob1 returns the
 * one static, already complete ompi_request_empty from every MPI_Isend it
 * completed inline, so a program can hold it for several sends at once
 * (HPCC does). The table is therefore a multimap: every request created
 * gets an entry, and a handle completed, cancelled or freed acts on the
 * oldest pending request with that handle (the smallest id), which is the
 * order programs complete them in (an array filled in creation order). A
 * handle is otherwise unique while its request is pending, since the
 * library frees a request only when a traced call completes or frees it.
 *
 * gp_rt_find returns the oldest entry of key k, or NULL. Entries of one key
 * share their home slot, so they all lie in the cluster from it. */
static gp_req *gp_rt_find(uint64_t k)
{
	if (!gp_rt)
		return NULL;
	gp_req *best = NULL;
	for (size_t i = gp_rt_slot(k);; i = (i + 1) & (gp_rt_cap - 1)) {
		if (!gp_rt[i].used)
			return best;
		if (gp_rt[i].key == k && (!best || gp_rt[i].id < best->id))
			best = &gp_rt[i];
	}
}

static gp_req *gp_rt_put(uint64_t k);

static void gp_rt_grow(void)
{
	gp_req *old = gp_rt;
	size_t oldcap = gp_rt_cap;
	gp_rt_bits = gp_rt ? gp_rt_bits + 1 : 8;
	gp_rt_cap = (size_t)1 << gp_rt_bits;
	gp_rt = calloc(gp_rt_cap, sizeof *gp_rt);
	if (!gp_rt) {
		gp_warn("out of memory%s", "");
		abort();
	}
	gp_rt_n = 0;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].used)
			*gp_rt_put(old[i].key) = old[i];
	free(old);
}

/* gp_rt_put adds a new entry of key k (beside any it has already: see
 * gp_rt_find) and returns it for the caller to fill. */
static gp_req *gp_rt_put(uint64_t k)
{
	if (2 * (gp_rt_n + 1) > gp_rt_cap)
		gp_rt_grow();
	size_t i = gp_rt_slot(k);
	while (gp_rt[i].used)
		i = (i + 1) & (gp_rt_cap - 1);
	gp_rt_n++;
	gp_rt[i].used = 1;
	gp_rt[i].key = k;
	return &gp_rt[i];
}

/* gp_rt_del removes entry e, shifting back the entries of its cluster. */
static void gp_rt_del(gp_req *e)
{
	size_t mask = gp_rt_cap - 1, i = (size_t)(e - gp_rt), j = i;
	gp_rt_n--;
	for (;;) {
		gp_rt[i].used = 0;
		for (;;) {
			j = (j + 1) & mask;
			if (!gp_rt[j].used)
				return;
			size_t h = gp_rt_slot(gp_rt[j].key);
			/* move j to i unless its home h lies cyclically in (i, j] */
			if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
				continue;
			break;
		}
		gp_rt[i] = gp_rt[j];
		i = j;
	}
}

static void gp_new_req(gp_call *c, MPI_Request r, int kind, gp_comm *comm)
{
	if (r == MPI_REQUEST_NULL)
		return;
	gp_req *e = gp_rt_put(gp_req_key(r));
	e->id = gp_next_req++;
	e->kind = (uint8_t)kind;
	e->comm = comm;
	e->cancelled = 0;
	c->req = e->id;
	c->mask |= GP_F_REQUEST;
}

static gp_done *gp_done_add(gp_call *c)
{
	if (c->ndone == c->donecap) {
		int cap = 2 * c->donecap;
		gp_done *d = malloc(sizeof *d * (size_t)cap);
		if (!d) {
			gp_warn("out of memory%s", "");
			abort();
		}
		memcpy(d, c->done, sizeof *d * (size_t)c->ndone);
		if (c->done != c->done_inline)
			free(c->done);
		c->done = d;
		c->donecap = cap;
	}
	return &c->done[c->ndone++];
}

/* gp_complete notes that request r (its handle before the call) completed
 * with status st. */
static void gp_complete(gp_call *c, MPI_Request r, MPI_Status *st)
{
	if (r == MPI_REQUEST_NULL)
		return;
	gp_done *d = gp_done_add(c);
	gp_req *e = gp_rt_find(gp_req_key(r));
	if (!e) {
		d->id = 0;
		d->flags = GP_REQ_UNKNOWN;
		return;
	}
	d->id = e->id;
	d->flags = e->kind;
	if (e->cancelled && st) {
		int f = 0;
		PMPI_Test_cancelled(st, &f);
		if (f)
			d->flags |= GP_DONE_CANCELLED;
	}
	if (e->kind == GP_REQ_RECV && st && !(d->flags & GP_DONE_CANCELLED)) {
		/* MPI_BYTE, not the receive's datatype: the program may have
		 * freed that since the MPI_Irecv. */
		d->flags |= GP_DONE_STATUS;
		d->peer = gp_peer(e->comm, st->MPI_SOURCE);
		d->tag = gp_tag(st->MPI_TAG);
		d->bytes = gp_status_bytes(st, MPI_DATATYPE_NULL, 0);
	}
	gp_rt_del(e);
}

/* ---- scratch space ---- */

void gp_tmp_init(gp_tmp *t)
{
	t->used = 0;
	t->nheap = 0;
}

void *gp_tmp_alloc(gp_tmp *t, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (n <= sizeof t->buf - t->used) {
		void *p = t->buf + t->used;
		t->used += n;
		return p;
	}
	void *p = malloc(n ? n : 1);
	if (!p || t->nheap == (int)(sizeof t->heap / sizeof t->heap[0])) {
		gp_warn("out of scratch memory%s", "");
		abort();
	}
	t->heap[t->nheap++] = p;
	return p;
}

void gp_tmp_free(gp_tmp *t)
{
	for (int i = 0; i < t->nheap; i++)
		free(t->heap[i]);
	t->nheap = 0;
}

MPI_Request *gp_save_reqs(gp_tmp *t, const MPI_Request *reqs, int n)
{
	if (n < 0)
		n = 0;
	MPI_Request *s = gp_tmp_alloc(t, sizeof *s * (size_t)n);
	if (n > 0)
		memcpy(s, reqs, sizeof *s * (size_t)n);
	return s;
}

MPI_Status *gp_statuses(gp_tmp *t, MPI_Status *statuses, int n)
{
	if (statuses != MPI_STATUSES_IGNORE)
		return statuses;
	return gp_tmp_alloc(t, sizeof(MPI_Status) * (size_t)(n > 0 ? n : 1));
}

/* ---- Fortran ---- */

/* gp_f_find returns the library's Fortran function pmpi_<name>_ under the
 * usual manglings, or NULL. */
void *gp_f_find(const char *name)
{
	static const char *forms[] = {"pmpi_%s_", "pmpi_%s__", "pmpi_%s", "PMPI_%s"};
	char sym[128];
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		snprintf(sym, sizeof sym, forms[i], name);
		if (i == 3)
			for (char *p = sym; *p; p++)
				if (*p >= 'a' && *p <= 'z')
					*p -= 'a' - 'A';
		void *f = dlsym(RTLD_NEXT, sym);
		if (f)
			return f;
	}
	return NULL;
}

/* gp_f08_find returns the library's mpi_f08 binding mpi_<name>_f08_, or
 * NULL. */
void *gp_f08_find(const char *name)
{
	char sym[128];
	snprintf(sym, sizeof sym, "mpi_%s_f08_", name);
	return dlsym(RTLD_NEXT, sym);
}

void *gp_f_next(const char *name)
{
	void *f = gp_f_find(name);
	if (f)
		return f;
	gp_warn("the MPI library has no Fortran function pmpi_%s_", name);
	abort();
}

void *gp_f08_next(const char *name)
{
	void *f = gp_f08_find(name);
	if (f)
		return f;
	gp_warn("the MPI library has no Fortran 2008 function mpi_%s_f08_", name);
	abort();
}

/* gp_syms resolves the Fortran sentinel variables named base with the
 * usual manglings. */
static void gp_syms(const char *base, void *out[4])
{
	char sym[64];
	snprintf(sym, sizeof sym, "%s_", base);
	out[0] = dlsym(RTLD_DEFAULT, sym);
	snprintf(sym, sizeof sym, "%s__", base);
	out[1] = dlsym(RTLD_DEFAULT, sym);
	out[2] = dlsym(RTLD_DEFAULT, base);
	snprintf(sym, sizeof sym, "%s", base);
	for (char *p = sym; *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p -= 'a' - 'A';
	out[3] = dlsym(RTLD_DEFAULT, sym);
}

static void *gp_in_place[4], *gp_status_ig[4], *gp_statuses_ig[4];
static pthread_once_t gp_f_once = PTHREAD_ONCE_INIT;

static void gp_fortran_setup(void)
{
	gp_syms("mpi_fortran_in_place", gp_in_place);
	gp_syms("mpi_fortran_status_ignore", gp_status_ig);
	gp_syms("mpi_fortran_statuses_ignore", gp_statuses_ig);
}

static int gp_is(const void *p, void *const syms[4])
{
	for (int i = 0; i < 4; i++)
		if (syms[i] && p == syms[i])
			return 1;
	return 0;
}

int gp_f_in_place(const void *buf)
{
	pthread_once(&gp_f_once, gp_fortran_setup);
	return gp_is(buf, gp_in_place);
}

int gp_f_status_ignore(const MPI_Fint *status)
{
	pthread_once(&gp_f_once, gp_fortran_setup);
#ifdef MPICH_VERSION
	if ((const void *)status == (const void *)MPI_F08_STATUS_IGNORE)
		return 1;
#endif
	return status == MPI_F_STATUS_IGNORE || gp_is(status, gp_status_ig);
}

MPI_Request *gp_save_freqs(gp_tmp *t, const MPI_Fint *reqs, int n)
{
	if (n < 0)
		n = 0;
	MPI_Request *s = gp_tmp_alloc(t, sizeof *s * (size_t)n);
	for (int i = 0; i < n; i++)
		s[i] = PMPI_Request_f2c(reqs[i]);
	return s;
}

MPI_Fint *gp_f_statuses(gp_tmp *t, MPI_Fint *statuses, int n)
{
	pthread_once(&gp_f_once, gp_fortran_setup);
	int ignore = statuses == MPI_F_STATUSES_IGNORE || gp_is(statuses, gp_statuses_ig);
#ifdef MPICH_VERSION
	ignore |= (void *)statuses == (void *)MPI_F08_STATUSES_IGNORE;
#endif
	if (!ignore)
		return statuses;
	if (n < 1)
		n = 1;
	MPI_Fint *f = gp_tmp_alloc(t, sizeof(MPI_Fint) * GP_F_STATUS_SIZE * (size_t)n);
	memset(f, 0, sizeof(MPI_Fint) * GP_F_STATUS_SIZE * (size_t)n);
	return f;
}

void gp_f2c_status(const MPI_Fint *f, MPI_Status *c) { PMPI_Status_f2c(f, c); }

MPI_Status *gp_f2c_statuses(gp_tmp *t, const MPI_Fint *f, int n)
{
	if (n < 0)
		n = 0;
	MPI_Status *s = gp_tmp_alloc(t, sizeof *s * (size_t)(n > 0 ? n : 1));
	for (int i = 0; i < n; i++)
		PMPI_Status_f2c(f + (size_t)i * GP_F_STATUS_SIZE, &s[i]);
	return s;
}

/* ---- start and end ---- */

static int gp_mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		int r = mkdir(path, 0777);
		*p = '/';
		if (r != 0 && errno != EEXIST)
			return -1;
	}
	if (mkdir(path, 0777) != 0 && errno != EEXIST)
		return -1;
	return 0;
}

static void gp_finish(int reason);

static void gp_atexit(void)
{
	gp_lock();
	if (gp_active)
		gp_finish(GP_END_EXIT);
	gp_unlock();
}

static int gp_thread_level(int provided)
{
	if (provided == MPI_THREAD_MULTIPLE)
		return 3;
	if (provided == MPI_THREAD_SERIALIZED)
		return 2;
	if (provided == MPI_THREAD_FUNNELED)
		return 1;
	return 0;
}

/* gp_cmdline writes the process's command line, its arguments separated
 * by spaces, as a header string. */
static void gp_cmdline(void)
{
	char cmd[1024];
	size_t n = 0;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t r = read(fd, cmd, sizeof cmd);
		n = r > 0 ? (size_t)r : 0;
		close(fd);
	}
	while (n > 0 && cmd[n - 1] == 0)
		n--;
	for (size_t i = 0; i < n; i++)
		if (cmd[i] == 0)
			cmd[i] = ' ';
	gp_bytes(cmd, n);
}

/* The tracer is built against one MPI's mpi.h, whose handles mean
 * nothing to another library. Preloaded into a program of the other, it
 * brings its own library along, so the process holds both; which one a
 * call reaches depends on the lookup order (a C program's library comes
 * first, but a Fortran program's libmpich, a dependency of libmpichfort,
 * comes after the tracer's libmpi), and the first call with a handle
 * fails obscurely: MPICH's with "Invalid communicator", Open MPI's with a
 * segmentation fault. gp_check_library, at MPI_Init before the library's
 * own, asks every loaded MPI library its MPI_Get_library_version (which
 * takes no handle and may be called before MPI_Init) and, when one is of
 * the other family than the header's (Open MPI, or MPICH and the
 * libraries built on it, as trace.LibraryOf groups them), says so in one
 * line, from rank 0 as far as the launcher tells, and exits with status
 * 1. A library it does not know passes. The string's buffer is sized for
 * any library, not by this header's MPI_MAX_LIBRARY_VERSION_STRING: Open
 * MPI's is 256, and MPICH writes up to its own, 8192. */
#if defined(OMPI_MAJOR_VERSION)
#define GP_BUILT_FOR "Open MPI"
#elif defined(MPICH_VERSION)
#define GP_BUILT_FOR "MPICH"
#else
#define GP_BUILT_FOR ""
#endif

/* gp_library_family returns "Open MPI", "MPICH" or "" for a library
 * version string. */
static const char *gp_library_family(const char *lib)
{
	if (strcasestr(lib, "open mpi"))
		return "Open MPI";
	if (strcasestr(lib, "mpich") || strcasestr(lib, "mvapich") || strcasestr(lib, "intel(r) mpi"))
		return "MPICH";
	return "";
}

/* gp_launcher_rank0 reports whether the launcher's environment names this
 * process rank 0, or names no rank. */
static int gp_launcher_rank0(void)
{
	static const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"};
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			return strcmp(v, "0") == 0;
	}
	return 1;
}

typedef int (*gp_version_fn)(char *, int *);

/* gp_other_library returns the family of a loaded MPI library of another
 * family than built, and its version string in buf (size bytes), or NULL.
 * Each loaded object's
 * PMPI_Get_library_version (its own or its dependencies') is asked once. */
static const char *gp_other_library(const char *built, char *buf, size_t size)
{
	void *self = dlopen(NULL, RTLD_LAZY);
	struct link_map *lm = NULL;
	gp_version_fn seen[16];
	int nseen = 0;
	const char *other = NULL;

	if (!self || dlinfo(self, RTLD_DI_LINKMAP, &lm) != 0)
		return NULL;
	for (; lm && !other; lm = lm->l_next) {
		if (!lm->l_name || !lm->l_name[0])
			continue;
		void *h = dlopen(lm->l_name, RTLD_LAZY | RTLD_NOLOAD);
		if (!h)
			continue;
		gp_version_fn fn = (gp_version_fn)dlsym(h, "PMPI_Get_library_version");
		int i = 0;
		while (i < nseen && seen[i] != fn)
			i++;
		if (fn && i == nseen && nseen < 16) {
			int n = 0;
			seen[nseen++] = fn;
			buf[0] = 0;
			if (fn(buf, &n) == MPI_SUCCESS) {
				buf[size - 1] = 0;
				const char *f = gp_library_family(buf);
				if (f[0] && strcmp(f, built) != 0)
					other = f;
			}
		}
		dlclose(h);
	}
	dlclose(self);
	return other;
}

void gp_check_library(void)
{
	static const char built[] = GP_BUILT_FOR;
	static char lib[1 << 16];

	if (!built[0])
		return;
	const char *runs = gp_other_library(built, lib, sizeof lib);
	if (!runs)
		return;
	lib[strcspn(lib, ",\n")] = 0; /* "Open MPI v4.1.4", "MPICH Version:\t4.0.2" */
	for (char *p = lib; *p; p++)
		if (*p == '\t')
			*p = ' ';
	if (gp_launcher_rank0())
		fprintf(stderr,
			"gopsim tracer: this tracer was built for %s but the program runs %s (%s): "
			"build the tracer for the program's MPI (%s) and give it with gopsim trace --lib\n",
			built, runs, lib,
			strcmp(runs, "MPICH") == 0 ? "make tracer-mpich: bin/mpich/libgopsim-pmpi.so"
						   : "make tracer with Open MPI's mpicc: bin/libgopsim-pmpi.so");
	_exit(1);
}

/* gp_start opens the rank's file and writes the header. */
static int gp_start(int provided)
{
	const char *dir = getenv("GOPSIM_TRACE_DIR");
	const char *bufenv = getenv("GOPSIM_TRACE_BUFFER");
	char path[4096], host[256] = "", lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
	int n;
	struct timespec wall;

	if (!dir || !*dir)
		dir = "gopsim-trace";
	PMPI_Comm_rank(MPI_COMM_WORLD, &n);
	gp_rank = n;
	PMPI_Comm_size(MPI_COMM_WORLD, &n);
	gp_size = n;
	snprintf(path, sizeof path, "%s", dir);
	if (gp_mkdirs(path) != 0) {
		gp_warn("cannot create the trace directory %s; not tracing", dir);
		return -1;
	}
	snprintf(path, sizeof path, "%s/rank-%06d.gpt", dir, (int)gp_rank);
	gp_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (gp_fd < 0) {
		gp_warn("cannot create %s; not tracing", path);
		return -1;
	}
	gp_cap = 1 << 20;
	if (bufenv && *bufenv) {
		long long v = atoll(bufenv);
		gp_cap = v < 4096 ? 4096 : (size_t)v;
	}
	gp_buf = malloc(gp_cap);
	if (!gp_buf) {
		gp_warn("cannot allocate the trace buffer%s", "");
		close(gp_fd);
		gp_fd = -1;
		return -1;
	}
	gp_threaded = provided == MPI_THREAD_MULTIPLE;

	gethostname(host, sizeof host - 1);
	PMPI_Get_library_version(lib, &n);
	lib[sizeof lib - 1] = 0;
	lib[strcspn(lib, "\n")] = 0;
	clock_gettime(CLOCK_REALTIME, &wall);
	gp_prev = gp_now();

	memcpy(gp_buf, gp_magic, sizeof gp_magic);
	gp_len = sizeof gp_magic;
	gp_uv(GP_VERSION);
	gp_uv((uint64_t)gp_rank);
	gp_uv((uint64_t)gp_size);
	gp_uv(0); /* flags */
	gp_uv((uint64_t)gp_prev);
	gp_uv((uint64_t)wall.tv_sec * 1000000000 + (uint64_t)wall.tv_nsec);
	gp_uv((uint64_t)gp_thread_level(provided));
	gp_uv((uint64_t)getpid());
	gp_bytes(host, strlen(host));
	gp_bytes(lib, strlen(lib));
	gp_cmdline();
	/* The header goes out now: the file of a rank killed before its
	 * first flush still says whose it is. */
	gp_write_all(gp_buf, gp_len);
	gp_len = 0;

	gp_world.h = MPI_COMM_WORLD;
	gp_world.id = 0;
	gp_world.size = gp_size;
	gp_world.rank = gp_rank;
	gp_encode_comm(&gp_world, 0);
	gp_comm_register(MPI_COMM_SELF, 1, 0);

	atexit(gp_atexit);
	gp_active = 1;
	return 0;
}

static gp_call gp_pending; /* a run of failed polls not yet written */
static int gp_pending_on;

static void gp_pending_flush(void)
{
	if (!gp_pending_on)
		return;
	gp_pending_on = 0;
	if (gp_pending.polls > 1)
		gp_pending.mask |= GP_F_POLLS;
	gp_encode(&gp_pending);
}

static void gp_finish(int reason)
{
	gp_pending_flush();
	gp_record_start();
	gp_u8(GP_REC_END);
	gp_uv(gp_nrec);
	gp_uv((uint64_t)reason);
	gp_write_all(gp_buf, gp_len);
	gp_len = 0;
	if (gp_fd >= 0)
		close(gp_fd);
	gp_fd = -1;
	gp_active = 0;
}

static int gp_is_poll_fn(int fn)
{
	return fn == GP_FN_TEST || fn == GP_FN_TESTALL || fn == GP_FN_TESTANY || fn == GP_FN_TESTSOME ||
	       fn == GP_FN_IPROBE;
}

void gp_emit(gp_call *c)
{
	if (!gp_active)
		goto out;
	if (c->poll) {
		if (gp_pending_on && gp_pending.fn == c->fn && gp_pending.mask == c->mask && gp_pending.comm == c->comm &&
		    gp_pending.peer == c->peer && gp_pending.tag == c->tag) {
			gp_pending.polls++;
			gp_pending.end = c->end;
			return;
		}
		gp_pending_flush();
		gp_pending = *c;
		gp_pending.polls = 1;
		gp_pending.done = NULL;
		gp_pending.ndone = 0;
		gp_pending_on = 1;
		return;
	}
	gp_pending_flush();
	gp_encode(c);
out:
	if (c->done != c->done_inline)
		free(c->done);
}

/* ---- helpers ---- */

static inline int gp_failed(gp_call *c, int rc)
{
	if (rc == MPI_SUCCESS)
		return 0;
	c->err = rc;
	c->mask |= GP_F_ERR;
	return 1;
}

void gp_init(gp_call *c, int rc, int provided)
{
	if (rc != MPI_SUCCESS)
		return;
	if (!gp_active && gp_start(provided) == 0) {
		/* A program with Fortran bindings loaded has every wrapper's
		 * library function looked up now, inside MPI_Init, not at each
		 * function's first call, between two records. */
		if (gp_f_find("init"))
			gp_f_resolve();
		/* MPI_Init ends, for the program, when the tracer has set itself
		 * up (trace file, buffer, header, Fortran lookups): its time would
		 * otherwise count as the program's computation before its first
		 * call, which an untraced run does not have (hundreds of us). */
		c->end = gp_now();
		gp_emit(c);
	}
}

void gp_finalize(gp_call *c, int rc)
{
	gp_failed(c, rc);
	gp_emit(c);
	if (gp_active)
		gp_finish(GP_END_FINALIZE);
}

void gp_abort(gp_call *c, MPI_Comm comm, int errorcode)
{
	(void)errorcode;
	c->end = gp_now();
	gp_lock();
	gp_set_comm(c, comm);
	gp_emit(c);
	if (gp_active)
		gp_finish(GP_END_ABORT);
	gp_unlock();
}

static gp_comm *gp_p2p(gp_call *c, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm)
{
	gp_comm *p = gp_set_comm(c, comm);
	c->peer = gp_peer(p, peer);
	c->tag = gp_tag(tag);
	c->bytes = (int64_t)count * gp_set_type(c, type);
	c->mask |= GP_F_PEER | GP_F_TAG | GP_F_BYTES;
	return p;
}

void gp_send(gp_call *c, int rc, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm)
{
	if (gp_failed(c, rc))
		return;
	gp_p2p(c, count, type, peer, tag, comm);
}

void gp_isend(gp_call *c, int rc, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm, MPI_Request req)
{
	if (gp_failed(c, rc))
		return;
	gp_comm *p = gp_p2p(c, count, type, peer, tag, comm);
	gp_new_req(c, req, GP_REQ_SEND, p);
}

void gp_irecv(gp_call *c, int rc, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request req)
{
	if (gp_failed(c, rc))
		return;
	gp_comm *p = gp_p2p(c, count, type, source, tag, comm);
	gp_new_req(c, req, GP_REQ_RECV, p);
}

void gp_recv(gp_call *c, int rc, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *st)
{
	(void)source;
	(void)tag;
	if (gp_failed(c, rc))
		return;
	gp_comm *p = gp_set_comm(c, comm);
	int64_t size = gp_set_type(c, type);
	c->peer = gp_peer(p, st->MPI_SOURCE);
	c->tag = gp_tag(st->MPI_TAG);
	c->bytes = gp_status_bytes(st, type, size);
	c->mask |= GP_F_PEER | GP_F_TAG | GP_F_BYTES;
}

void gp_sendrecv(gp_call *c, int rc, int scount, MPI_Datatype stype, int dest, int stag, MPI_Datatype rtype,
		 int source, int rtag, MPI_Comm comm, MPI_Status *st)
{
	(void)source;
	(void)rtag;
	if (gp_failed(c, rc))
		return;
	gp_comm *p = gp_p2p(c, scount, stype, dest, stag, comm);
	int64_t size = gp_set_rtype(c, rtype);
	c->rpeer = gp_peer(p, st->MPI_SOURCE);
	c->rtag = gp_tag(st->MPI_TAG);
	c->rbytes = gp_status_bytes(st, rtype, size);
	c->mask |= GP_F_RPEER | GP_F_RTAG | GP_F_RBYTES;
}

/* gp_poll marks c as a failed poll. */
static void gp_poll(gp_call *c)
{
	c->poll = 1;
	if (!(c->mask & GP_F_COMM))
		c->comm = -1;
	if (!(c->mask & GP_F_PEER))
		c->peer = -1;
	if (!(c->mask & GP_F_TAG))
		c->tag = -1;
}

static void gp_done_start(gp_call *c)
{
	c->mask |= GP_F_DONE;
	if (gp_is_poll_fn(c->fn))
		c->mask |= GP_F_FLAG;
}

void gp_wait(gp_call *c, int rc, MPI_Request req, int flag, MPI_Status *st)
{
	if (gp_failed(c, rc))
		return;
	if (!flag) {
		gp_poll(c);
		return;
	}
	gp_done_start(c);
	gp_complete(c, req, st);
}

void gp_waitall(gp_call *c, int rc, int n, const MPI_Request *reqs, int flag, MPI_Status *sts)
{
	if (gp_failed(c, rc))
		return;
	if (!flag) {
		gp_poll(c);
		return;
	}
	gp_done_start(c);
	for (int i = 0; i < n; i++)
		gp_complete(c, reqs[i], &sts[i]);
}

void gp_waitany(gp_call *c, int rc, int n, const MPI_Request *reqs, int index, int flag, MPI_Status *st)
{
	if (gp_failed(c, rc))
		return;
	if (!flag) {
		gp_poll(c);
		return;
	}
	gp_done_start(c);
	if (index >= 0 && index < n)
		gp_complete(c, reqs[index], st);
}

void gp_waitsome(gp_call *c, int rc, int n, const MPI_Request *reqs, int outcount, const int *indices, int base,
		 MPI_Status *sts)
{
	if (gp_failed(c, rc))
		return;
	if (outcount == 0) {
		gp_poll(c);
		return;
	}
	gp_done_start(c);
	if (outcount == MPI_UNDEFINED)
		return;
	for (int j = 0; j < outcount; j++) {
		int i = indices[j] - base;
		if (i >= 0 && i < n)
			gp_complete(c, reqs[i], &sts[j]);
	}
}

void gp_probe(gp_call *c, int rc, int source, int tag, MPI_Comm comm, int flag, MPI_Status *st)
{
	if (gp_failed(c, rc))
		return;
	gp_comm *p = gp_set_comm(c, comm);
	c->mask |= GP_F_PEER | GP_F_TAG;
	if (!flag) {
		c->peer = gp_peer(p, source);
		c->tag = gp_tag(tag);
		gp_poll(c);
		return;
	}
	if (gp_is_poll_fn(c->fn))
		c->mask |= GP_F_FLAG;
	c->peer = gp_peer(p, st->MPI_SOURCE);
	c->tag = gp_tag(st->MPI_TAG);
	c->bytes = gp_status_bytes(st, MPI_DATATYPE_NULL, 0);
	c->mask |= GP_F_BYTES;
}

void gp_cancel(gp_call *c, int rc, MPI_Request req)
{
	if (gp_failed(c, rc))
		return;
	gp_req *e = gp_rt_find(gp_req_key(req));
	if (e) {
		e->cancelled = 1;
		c->req = e->id;
		c->mask |= GP_F_REQUEST;
	}
}

void gp_request_free(gp_call *c, int rc, MPI_Request req)
{
	if (gp_failed(c, rc))
		return;
	gp_req *e = gp_rt_find(gp_req_key(req));
	if (e) {
		c->req = e->id;
		c->mask |= GP_F_REQUEST;
		gp_rt_del(e);
	}
}

void gp_barrier(gp_call *c, int rc, MPI_Comm comm)
{
	if (gp_failed(c, rc))
		return;
	gp_set_comm(c, comm);
}

static void gp_set_root(gp_call *c, int root)
{
	c->root = gp_special(root);
	c->mask |= GP_F_ROOT;
}

void gp_rooted(gp_call *c, int rc, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
	if (gp_failed(c, rc))
		return;
	gp_set_comm(c, comm);
	gp_set_root(c, root);
	c->bytes = (int64_t)count * gp_set_type(c, type);
	c->mask |= GP_F_BYTES;
}

void gp_allreduce(gp_call *c, int rc, int count, MPI_Datatype type, MPI_Comm comm)
{
	if (gp_failed(c, rc))
		return;
	gp_set_comm(c, comm);
	c->bytes = (int64_t)count * gp_set_type(c, type);
	c->mask |= GP_F_BYTES;
}

void gp_allgather(gp_call *c, int rc, int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
	gp_allreduce(c, rc, rcount, rtype, comm);
}

/* gp_nranks is the length of a counts array on p: its size, or its
 * remote size for an intercommunicator. */
static int gp_nranks(const gp_comm *p) { return p ? (p->inter ? p->rsize : p->size) : 0; }

static void gp_set_counts(gp_call *c, const int *v, int n, int64_t mul)
{
	c->counts = v;
	c->ncounts = n;
	c->countmul = mul;
	c->mask |= GP_F_COUNTS;
}

void gp_allgatherv(gp_call *c, int rc, const int *rcounts, MPI_Datatype rtype, MPI_Comm comm)
{
	if (gp_failed(c, rc))
		return;
	gp_comm *p = gp_set_comm(c, comm);
	int64_t size = gp_set_type(c, rtype);
	int n = gp_nranks(p);
	gp_set_counts(c, rcounts, n, size);
	if (p && !p->inter && p->rank < n) {
		c->bytes = (int64_t)rcounts[p->rank] * size;
		c->mask |= GP_F_BYTES;
	}
}

/* gp_am_root reports whether this rank is the root of a rooted
 * collective: root is its rank, or MPI_ROOT on an intercommunicator. */
static int gp_am_root(const gp_comm *p, int root)
{
	if (!p)
		return 0;
	return p->inter ? root == MPI_ROOT : root == p->rank;
}

void gp_gather(gp_call *c, int rc, int scount, MPI_Datatype stype, int rcount, MPI_Datatype rtype, int root,
	       MPI_Comm comm)
{
	if (gp_failed(c, rc))
		return;
	gp_comm *p = gp_set_comm(c, comm);
	gp_set_root(c, root);
	if (gp_am_root(p, root))
		c->bytes = (int64_t)rcount * gp_set_type(c, rtype);
	else if (root != MPI_PROC_NULL)
		c->bytes = (int64_t)scount * gp_set_type(c, stype);
	else
		return;
	c->mask |= GP_F_BYTES;
}

void gp_gatherv(gp_call *c, int rc, int scount, MPI_Datatype stype, const int *rcounts, MPI_Datatype rtype,
		int root, MPI_Comm comm)
{
	if (gp_failed(c, rc))
		return;
	gp_comm *p = gp_set_comm(c, comm);
	gp_set_root(c, root);
	if (gp_am_root(p, root)) {
		int64_t size = gp_set_type(c, rtype);
		gp_set_counts(c, rcounts, gp_nranks(p), size);
		if (p->inter)
			return;
		c->bytes = (int64_t)rcounts[p->rank] * size;
	} else if (root != MPI_PROC_NULL)
		c->bytes = (int64_t)scount * gp_set_type(c, stype);
	else
		return;
	c->mask |= GP_F_BYTES;
}

void gp_scatter(gp_call *c, int rc, int scount, MPI_Datatype stype, int rcount, MPI_Datatype rtype, int root,
		MPI_Comm comm)
{
	if (gp_failed(c, rc))
		return;
	gp_comm *p = gp_set_comm(c, comm);
	gp_set_root(c, root);
	if (gp_am_root(p, root))
		c->bytes = (int64_t)scount * gp_set_type(c, stype);
	else if (root != MPI_PROC_NULL)
		c->bytes = (int64_t)rcount * gp_set_type(c, rtype);
	else
		return;
	c->mask |= GP_F_BYTES;
}

void gp_scatterv(gp_call *c, int rc, const int *scounts, MPI_Datatype stype, int rcount, MPI_Datatype rtype,
		 int root, MPI_Comm comm)
{
	if (gp_failed(c, rc))
		return;
	gp_comm *p = gp_set_comm(c, comm);
	gp_set_root(c, root);
	if (gp_am_root(p, root)) {
		int64_t size = gp_set_type(c, stype);
		gp_set_counts(c, scounts, gp_nranks(p), size);
		if (p->inter)
			return;
		c->bytes = (int64_t)scounts[p->rank] * size;
	} else if (root != MPI_PROC_NULL)
		c->bytes = (int64_t)rcount * gp_set_type(c, rtype);
	else
		return;
	c->mask |= GP_F_BYTES;
}

void gp_alltoallv(gp_call *c, int rc, int inplace, const int *scounts, MPI_Datatype stype, const int *rcounts,
		  MPI_Datatype rtype, MPI_Comm comm)
{
	if (gp_failed(c, rc))
		return;
	gp_comm *p = gp_set_comm(c, comm);
	int n = gp_nranks(p);
	int64_t rsize = gp_set_rtype(c, rtype);
	if (inplace) {
		gp_set_type(c, rtype);
		gp_set_counts(c, rcounts, n, rsize);
	} else
		gp_set_counts(c, scounts, n, gp_set_type(c, stype));
	c->rcounts = rcounts;
	c->nrcounts = n;
	c->rcountmul = rsize;
	c->mask |= GP_F_RCOUNTS;
}

void gp_icoll(gp_call *c, int rc, MPI_Request req)
{
	if (rc != MPI_SUCCESS)
		return;
	gp_new_req(c, req, GP_REQ_COLL, NULL);
}

void gp_comm_new(gp_call *c, int rc, MPI_Comm comm, MPI_Comm newcomm)
{
	if (gp_failed(c, rc))
		return;
	gp_set_comm(c, comm);
	if (newcomm == MPI_COMM_NULL)
		return;
	int inter = 0, local = 0;
	int32_t id;
	PMPI_Comm_test_inter(newcomm, &inter);
	if (!inter) {
		/* Agree on the id with the other members, outside the lock so
		 * that threads creating communicators cannot deadlock. */
		int mine = gp_next_id, agreed = mine;
		gp_unlock();
		PMPI_Allreduce(&mine, &agreed, 1, MPI_INT, MPI_MAX, newcomm);
		gp_lock();
		id = agreed;
		if (agreed >= gp_next_id)
			gp_next_id = agreed + 1;
	} else {
		id = gp_next_local++;
		local = 1;
	}
	gp_comm_unlink(newcomm); /* a stale entry of a reused handle */
	gp_comm_register(newcomm, id, local);
	c->newcomm = id;
	c->mask |= GP_F_NEWCOMM;
}

void gp_comm_free(gp_call *c, int rc, MPI_Comm comm)
{
	if (gp_failed(c, rc))
		return;
	gp_comm *p = gp_comm_find(comm);
	if (!p || p == &gp_world)
		return;
	c->comm = p->id;
	c->mask |= GP_F_COMM;
	gp_comm_unlink(comm);
}

void gp_type_commit(gp_call *c, int rc, MPI_Datatype type)
{
	if (gp_failed(c, rc))
		return;
	gp_set_type(c, type);
}

void gp_type_free(gp_call *c, int rc, MPI_Datatype type)
{
	if (gp_failed(c, rc))
		return;
	gp_dt *e = gp_dt_find(type);
	if (!e)
		return;
	if (e->id) {
		c->dtype = e->id;
		c->mask |= GP_F_DTYPE;
	}
	*e = gp_dts[--gp_ndts];
}
