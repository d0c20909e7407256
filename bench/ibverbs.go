//go:build ibverbs

package bench

// The ibverbs backend: cgo against libibverbs. Its protocol is specified
// at the top of ibverbs_wire.go; the rounds run in C (below), the batches
// are controlled from Go over TCP.

/*
#cgo LDFLAGS: -libverbs
#include <infiniband/verbs.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { GP_SEND_DEPTH = 128, GP_RECV_DEPTH = 512, GP_WR_SEND = 1, GP_WR_RECV = 2 };
#define GP_IDLE_NS (60LL * 1000000000)

typedef struct {
	uint16_t lid;
	uint32_t qpn, psn;
	uint8_t mtu, has_gid;
	uint8_t gid[16];
} gp_ep;

typedef struct {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
	size_t size;
	int port, gid_index; // gid_index -1: by LID
	int ethernet;
	uint8_t mtu;
	int recvs;     // receives posted and not completed
	int sends_out; // sends posted and not completed
	char dev[64];
	char err[256];
} gp_ib;

static int64_t gp_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t gp_pause(int64_t d, int sleeping)
{
	int64_t start = gp_now();
	if (sleeping) {
		struct timespec ts = { .tv_sec = d / 1000000000, .tv_nsec = d % 1000000000 };
		while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
			;
	} else {
		while (gp_now() - start < d)
			;
	}
	return gp_now() - start;
}

// gp_devices writes the names of the RDMA devices, '\n'-separated, to
// names (cap bytes) and returns their number, 0 without RDMA support in
// the kernel (ENOSYS), or -errno.
static int gp_devices(char *names, int cap)
{
	int n = 0;
	errno = 0;
	struct ibv_device **l = ibv_get_device_list(&n);
	if (l == NULL)
		return errno == ENOSYS || errno == 0 ? 0 : -errno;
	names[0] = 0;
	for (int i = 0; i < n; i++) {
		size_t len = strlen(names);
		snprintf(names + len, cap - len, "%s%s", i ? "\n" : "", ibv_get_device_name(l[i]));
	}
	ibv_free_device_list(l);
	return n;
}

static int gp_post_recv(gp_ib *ib)
{
	struct ibv_sge sge = { .addr = (uintptr_t)ib->buf, .length = (uint32_t)ib->size, .lkey = ib->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = GP_WR_RECV, .sg_list = &sge, .num_sge = 1 }, *bad;
	int e = ibv_post_recv(ib->qp, &wr, &bad);
	if (e) {
		snprintf(ib->err, sizeof ib->err, "ibv_post_recv: %s", strerror(e));
		return -1;
	}
	ib->recvs++;
	return 0;
}

static int gp_post_send(gp_ib *ib, size_t size)
{
	struct ibv_sge sge = { .addr = (uintptr_t)ib->buf, .length = (uint32_t)size, .lkey = ib->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = GP_WR_SEND, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	int e = ibv_post_send(ib->qp, &wr, &bad);
	if (e) {
		snprintf(ib->err, sizeof ib->err, "ibv_post_send: %s", strerror(e));
		return -1;
	}
	ib->sends_out++;
	return 0;
}

// gp_poll waits for one completion and accounts for it: it returns
// GP_WR_SEND or GP_WR_RECV, or -1 with ib->err set (a failed completion,
// *cancel set, or nothing for GP_IDLE_NS).
static int gp_poll(gp_ib *ib, volatile int32_t *cancel)
{
	struct ibv_wc wc;
	int64_t start = 0;
	for (unsigned spins = 1;; spins++) {
		int k = ibv_poll_cq(ib->cq, 1, &wc);
		if (k < 0) {
			snprintf(ib->err, sizeof ib->err, "ibv_poll_cq failed");
			return -1;
		}
		if (k == 1) {
			if (wc.status != IBV_WC_SUCCESS) {
				snprintf(ib->err, sizeof ib->err, "%s completion: %s", wc.wr_id == GP_WR_SEND ? "send" : "receive",
					 ibv_wc_status_str(wc.status));
				return -1;
			}
			if (wc.wr_id == GP_WR_SEND) {
				ib->sends_out--;
			} else {
				ib->recvs--;
			}
			return (int)wc.wr_id;
		}
		if ((spins & 0xfff) == 0) {
			if (__atomic_load_n(cancel, __ATOMIC_RELAXED)) {
				snprintf(ib->err, sizeof ib->err, "stopped while waiting for a completion");
				return -1;
			}
			int64_t t = gp_now();
			if (start == 0) {
				start = t;
			} else if (t - start > GP_IDLE_NS) {
				snprintf(ib->err, sizeof ib->err, "no completion for %lld s", GP_IDLE_NS / 1000000000);
				return -1;
			}
		}
	}
}

static void gp_close(gp_ib *ib)
{
	if (ib == NULL)
		return;
	if (ib->qp)
		ibv_destroy_qp(ib->qp);
	if (ib->cq)
		ibv_destroy_cq(ib->cq);
	if (ib->mr)
		ibv_dereg_mr(ib->mr);
	if (ib->pd)
		ibv_dealloc_pd(ib->pd);
	if (ib->ctx)
		ibv_close_device(ib->ctx);
	free(ib->buf);
	free(ib);
}

// gp_open opens the device (NULL or "": the first) and port, registers a
// buffer of size bytes, creates the queue pair in INIT with its receives
// posted and fills in the local endpoint. use_gid < 0: by GID on Ethernet
// only; else by GID when use_gid is 1. On error it returns NULL and
// writes why to err.
static gp_ib *gp_open(const char *dev, int port, int use_gid, int gid_index, size_t size, uint32_t psn, gp_ep *local,
		      char *err, size_t errlen)
{
	gp_ib *ib = calloc(1, sizeof *ib);
	if (ib == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	int n = 0;
	errno = 0;
	struct ibv_device **l = ibv_get_device_list(&n);
	if (l == NULL || n == 0) {
		snprintf(err, errlen, "no RDMA device (ibv_get_device_list returns none%s%s)", errno ? ": " : "",
			 errno ? strerror(errno) : "");
		if (l)
			ibv_free_device_list(l);
		free(ib);
		return NULL;
	}
	struct ibv_device *d = NULL;
	for (int i = 0; i < n && d == NULL; i++)
		if (dev == NULL || dev[0] == 0 || strcmp(ibv_get_device_name(l[i]), dev) == 0)
			d = l[i];
	if (d == NULL) {
		snprintf(err, errlen, "no RDMA device %s (ibv_devices lists them)", dev);
		ibv_free_device_list(l);
		free(ib);
		return NULL;
	}
	snprintf(ib->dev, sizeof ib->dev, "%s", ibv_get_device_name(d));
	ib->ctx = ibv_open_device(d);
	ibv_free_device_list(l);
	if (ib->ctx == NULL) {
		snprintf(err, errlen, "ibv_open_device %s: %s", ib->dev, strerror(errno));
		gp_close(ib);
		return NULL;
	}
	struct ibv_port_attr pa;
	if (ibv_query_port(ib->ctx, (uint8_t)port, &pa) != 0) {
		snprintf(err, errlen, "ibv_query_port %s port %d: %s", ib->dev, port, strerror(errno));
		gp_close(ib);
		return NULL;
	}
	if (pa.state != IBV_PORT_ACTIVE) {
		snprintf(err, errlen, "%s port %d is %s, not active", ib->dev, port, ibv_port_state_str(pa.state));
		gp_close(ib);
		return NULL;
	}
	ib->port = port;
	ib->mtu = (uint8_t)pa.active_mtu;
	ib->ethernet = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
	ib->gid_index = (ib->ethernet || use_gid > 0) ? gid_index : -1;
	memset(local, 0, sizeof *local);
	local->lid = pa.lid;
	local->mtu = ib->mtu;
	local->psn = psn & 0xffffff;
	if (ib->gid_index >= 0) {
		union ibv_gid gid;
		if (ibv_query_gid(ib->ctx, (uint8_t)port, ib->gid_index, &gid) != 0) {
			snprintf(err, errlen, "ibv_query_gid %s port %d index %d: %s", ib->dev, port, ib->gid_index, strerror(errno));
			gp_close(ib);
			return NULL;
		}
		memcpy(local->gid, gid.raw, 16);
		local->has_gid = 1;
	}
	ib->size = size;
	void *p;
	if (posix_memalign(&p, 4096, size) != 0) {
		snprintf(err, errlen, "cannot allocate %zu bytes", size);
		gp_close(ib);
		return NULL;
	}
	memset(p, 0, size);
	ib->buf = p;
	if ((ib->pd = ibv_alloc_pd(ib->ctx)) == NULL) {
		snprintf(err, errlen, "ibv_alloc_pd: %s", strerror(errno));
		gp_close(ib);
		return NULL;
	}
	if ((ib->mr = ibv_reg_mr(ib->pd, ib->buf, size, IBV_ACCESS_LOCAL_WRITE)) == NULL) {
		snprintf(err, errlen, "ibv_reg_mr of %zu bytes: %s", size, strerror(errno));
		gp_close(ib);
		return NULL;
	}
	if ((ib->cq = ibv_create_cq(ib->ctx, GP_SEND_DEPTH + GP_RECV_DEPTH, NULL, NULL, 0)) == NULL) {
		snprintf(err, errlen, "ibv_create_cq: %s", strerror(errno));
		gp_close(ib);
		return NULL;
	}
	struct ibv_qp_init_attr qa = {
		.send_cq = ib->cq,
		.recv_cq = ib->cq,
		.cap = { .max_send_wr = GP_SEND_DEPTH, .max_recv_wr = GP_RECV_DEPTH, .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
	};
	if ((ib->qp = ibv_create_qp(ib->pd, &qa)) == NULL) {
		snprintf(err, errlen, "ibv_create_qp (RC): %s", strerror(errno));
		gp_close(ib);
		return NULL;
	}
	local->qpn = ib->qp->qp_num;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = (uint8_t)port, .qp_access_flags = 0 };
	int e = ibv_modify_qp(ib->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (e) {
		snprintf(err, errlen, "queue pair to INIT: %s", strerror(e));
		gp_close(ib);
		return NULL;
	}
	while (ib->recvs < GP_RECV_DEPTH)
		if (gp_post_recv(ib) != 0) {
			snprintf(err, errlen, "%s", ib->err);
			gp_close(ib);
			return NULL;
		}
	return ib;
}

// gp_connect moves the queue pair to RTR, then RTS, towards remote.
static int gp_connect(gp_ib *ib, const gp_ep *remote, uint32_t psn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = remote->mtu < ib->mtu ? remote->mtu : ib->mtu,
		.dest_qp_num = remote->qpn,
		.rq_psn = remote->psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 1, // 0.01 ms
		.ah_attr = { .dlid = remote->lid, .sl = 0, .src_path_bits = 0, .port_num = (uint8_t)ib->port },
	};
	if (ib->gid_index >= 0) {
		if (!remote->has_gid) {
			snprintf(ib->err, sizeof ib->err, "the peer sent no GID, and this port is addressed by GID");
			return -1;
		}
		a.ah_attr.is_global = 1;
		memcpy(a.ah_attr.grh.dgid.raw, remote->gid, 16);
		a.ah_attr.grh.sgid_index = (uint8_t)ib->gid_index;
		a.ah_attr.grh.hop_limit = 64;
	}
	int e = ibv_modify_qp(ib->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
						  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (e) {
		snprintf(ib->err, sizeof ib->err, "queue pair to RTR: %s", strerror(e));
		return -1;
	}
	ib->mtu = a.path_mtu;
	struct ibv_qp_attr s = {
		.qp_state = IBV_QPS_RTS,
		.timeout = 14, // 4.096 us * 2^14 = 67 ms
		.retry_cnt = 7,
		.rnr_retry = 7, // forever
		.sq_psn = psn & 0xffffff,
		.max_rd_atomic = 1,
	};
	e = ibv_modify_qp(ib->qp, &s, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
					  IBV_QP_MAX_QP_RD_ATOMIC);
	if (e) {
		snprintf(ib->err, sizeof ib->err, "queue pair to RTS: %s", strerror(e));
		return -1;
	}
	return 0;
}

// gp_client times count rounds of size-byte messages (n, delay_ns, sleeps
// per round) into prtt_ns and delay_out (the mean delay spent).
static int gp_client(gp_ib *ib, size_t size, int count, const int32_t *n, const int64_t *delay_ns, const uint8_t *sleeps,
		     int64_t *prtt_ns, int64_t *delay_out, volatile int32_t *cancel)
{
	for (int i = 0; i < count; i++) {
		int64_t delays = 0;
		int replied = 0;
		int64_t t0 = gp_now();
		for (int32_t j = 0; j < n[i]; j++) {
			while (ib->sends_out >= GP_SEND_DEPTH) {
				int k = gp_poll(ib, cancel);
				if (k < 0)
					return -1;
				replied |= k == GP_WR_RECV;
			}
			if (gp_post_send(ib, size) != 0)
				return -1;
			if (delay_ns[i] > 0 && j < n[i] - 1)
				delays += gp_pause(delay_ns[i], sleeps[i]);
		}
		while (!replied) {
			int k = gp_poll(ib, cancel);
			if (k < 0)
				return -1;
			replied = k == GP_WR_RECV;
		}
		int64_t t = gp_now() - t0;
		prtt_ns[i] = t > 0 ? t : 1;
		delay_out[i] = n[i] > 1 && delay_ns[i] > 0 ? delays / (n[i] - 1) : 0;
		// Untimed: the round's send completions, the receive again.
		while (ib->sends_out > 0) {
			int k = gp_poll(ib, cancel);
			if (k < 0)
				return -1;
			if (k == GP_WR_RECV) {
				snprintf(ib->err, sizeof ib->err, "round %d: a second reply", i);
				return -1;
			}
		}
		while (ib->recvs < GP_RECV_DEPTH)
			if (gp_post_recv(ib) != 0)
				return -1;
	}
	return 0;
}

// gp_server echoes count rounds: n[i] messages in, one of size bytes out.
// A receive is posted again as soon as its message is in, but for a
// round's last one: that waits until the reply is posted.
static int gp_server(gp_ib *ib, size_t size, int count, const int32_t *n, volatile int32_t *cancel)
{
	int64_t got = 0; // receive completions not yet counted to a round
	for (int i = 0; i < count; i++) {
		while (got < n[i]) {
			int k = gp_poll(ib, cancel);
			if (k < 0)
				return -1;
			if (k == GP_WR_RECV && ++got < n[i] && gp_post_recv(ib) != 0)
				return -1;
		}
		got -= n[i];
		while (ib->sends_out >= GP_SEND_DEPTH) {
			int k = gp_poll(ib, cancel);
			if (k < 0)
				return -1;
			got += k == GP_WR_RECV;
		}
		if (gp_post_send(ib, size) != 0)
			return -1;
		while (ib->recvs < GP_RECV_DEPTH)
			if (gp_post_recv(ib) != 0)
				return -1;
	}
	while (ib->sends_out > 0) {
		int k = gp_poll(ib, cancel);
		if (k < 0)
			return -1;
		if (k == GP_WR_RECV) {
			snprintf(ib->err, sizeof ib->err, "a message after the batch's last round");
			return -1;
		}
	}
	return 0;
}
*/
import "C"

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"
)

// IBVerbsBuilt says whether this gopsim has the ibverbs backend.
const IBVerbsBuilt = true

// IBVerbsDevices returns the names of the RDMA devices; none (and no
// error) without any, as when the kernel has no RDMA support.
func IBVerbsDevices() ([]string, error) {
	buf := (*C.char)(C.calloc(1, 1<<16))
	defer C.free(unsafe.Pointer(buf))
	n := C.gp_devices(buf, 1<<16)
	if n < 0 {
		return nil, fmt.Errorf("bench: ibv_get_device_list: errno %d", -n)
	}
	if n == 0 {
		return nil, nil
	}
	return strings.Split(C.GoString(buf), "\n"), nil
}

// ibvSession is one end's queue pair with its TCP connection.
type ibvSession struct {
	conn   net.Conn
	br     *bufio.Reader
	ib     *C.gp_ib
	cancel *C.int32_t // read by the C loops, set from Go
	info   IBVerbsInfo
	max    int64
}

// openIBV opens the device for a session with messages of up to max
// bytes.
func openIBV(o IBVerbsOptions, max int64) (*ibvSession, ibvEndpoint, uint32, error) {
	var psnb [4]byte
	rand.Read(psnb[:])
	psn := binary.BigEndian.Uint32(psnb[:]) & 0xffffff
	dev := C.CString(o.Device)
	defer C.free(unsafe.Pointer(dev))
	errbuf := (*C.char)(C.calloc(1, 512))
	defer C.free(unsafe.Pointer(errbuf))
	var ep C.gp_ep
	useGID := C.int(-1)
	if o.UseGID {
		useGID = 1
	}
	ib := C.gp_open(dev, C.int(o.Port), useGID, C.int(o.GIDIndex), C.size_t(max), C.uint32_t(psn), &ep, errbuf, 512)
	if ib == nil {
		return nil, ibvEndpoint{}, 0, fmt.Errorf("bench: ibverbs: %s", C.GoString(errbuf))
	}
	s := &ibvSession{ib: ib, max: max, cancel: (*C.int32_t)(C.calloc(1, 4))}
	s.info = IBVerbsInfo{Device: C.GoString(&ib.dev[0]), Port: int(ib.port), LinkLayer: "InfiniBand",
		MTUBytes: ibvMTUBytes(uint8(ib.mtu)), GIDIndex: int(ib.gid_index)}
	if ib.ethernet != 0 {
		s.info.LinkLayer = "Ethernet"
	}
	e := ibvEndpoint{LID: uint16(ep.lid), QPN: uint32(ep.qpn), PSN: uint32(ep.psn), MTU: uint8(ep.mtu), HasGID: ep.has_gid != 0}
	for i := range e.GID {
		e.GID[i] = byte(ep.gid[i])
	}
	return s, e, psn, nil
}

func (s *ibvSession) connect(remote ibvEndpoint, psn uint32) error {
	ep := C.gp_ep{lid: C.uint16_t(remote.LID), qpn: C.uint32_t(remote.QPN), psn: C.uint32_t(remote.PSN), mtu: C.uint8_t(remote.MTU)}
	if remote.HasGID {
		ep.has_gid = 1
	}
	for i, b := range remote.GID {
		ep.gid[i] = C.uint8_t(b)
	}
	if C.gp_connect(s.ib, &ep, C.uint32_t(psn)) != 0 {
		return fmt.Errorf("bench: ibverbs: %s", s.err())
	}
	s.info.MTUBytes = ibvMTUBytes(uint8(s.ib.mtu))
	return nil
}

func (s *ibvSession) err() string { return C.GoString(&s.ib.err[0]) }

func (s *ibvSession) close() {
	if s.ib != nil {
		C.gp_close(s.ib)
		s.ib = nil
	}
	if s.cancel != nil {
		C.free(unsafe.Pointer(s.cancel))
		s.cancel = nil
	}
}

// during runs f (a C loop over the queue pair) while watching ctx and the
// TCP connection, which is silent during a batch: its end (the peer gone)
// or ctx's cancellation stops the loop. A byte that arrives (the peer's
// next frame) stays buffered.
func (s *ibvSession) during(ctx context.Context, f func() C.int) error {
	flag := (*int32)(unsafe.Pointer(s.cancel))
	atomic.StoreInt32(flag, 0)
	stop := context.AfterFunc(ctx, func() { atomic.StoreInt32(flag, 1) })
	defer stop()
	watching := make(chan error, 1)
	go func() {
		_, err := s.br.Peek(1)
		var ne net.Error
		if err != nil && !(errors.As(err, &ne) && ne.Timeout()) {
			atomic.StoreInt32(flag, 1)
		}
		watching <- err
	}()
	rc := f()
	s.conn.SetReadDeadline(time.Unix(1, 0))
	werr := <-watching
	if ctx.Err() != nil {
		return ctx.Err() // the deadline stays: the connection is done
	}
	s.conn.SetReadDeadline(time.Time{})
	if rc == 0 {
		return nil
	}
	var ne net.Error
	if werr != nil && !(errors.As(werr, &ne) && ne.Timeout()) {
		return fmt.Errorf("bench: ibverbs: %s: the TCP connection failed: %w", s.err(), werr)
	}
	return fmt.Errorf("bench: ibverbs: %s", s.err())
}

// IBVerbsProber is the client side of the ibverbs backend: it times PRTT
// rounds over an RC queue pair against a server run by ServeIBVerbs.
type IBVerbsProber struct {
	s       *ibvSession
	hdr     []byte
	ns      []int32
	delays  []int64
	sleeps  []uint8
	prtt    []int64
	spent   []int64
	failed  error
	running bool
}

// DialIBVerbs connects to an ibverbs backend server at addr (host:port),
// sets up the queue pairs and returns the prober.
func DialIBVerbs(ctx context.Context, addr string, o IBVerbsOptions) (*IBVerbsProber, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	s, local, psn, err := openIBV(o, o.MaxSizeBytes)
	if err != nil {
		c.Close()
		return nil, err
	}
	s.conn, s.br = c, bufio.NewReader(c)
	fail := func(what string, err error) (*IBVerbsProber, error) {
		s.close()
		c.Close()
		return nil, fmt.Errorf("bench: ibverbs %s with %v: %w", what, addr, ctxErr(ctx, err))
	}
	defer watch(ctx, c)()
	if err := writeIBVHello(c, o.MaxSizeBytes, local); err != nil {
		return fail("handshake", err)
	}
	_, remote, err := readIBVHello(s.br, false)
	if err != nil {
		return fail("handshake", err)
	}
	if err := s.connect(remote, psn); err != nil {
		return fail("connection", err)
	}
	var r [1]byte
	if _, err := io.ReadFull(s.br, r[:]); err != nil {
		return fail("connection", err)
	}
	if r[0] != 'R' {
		return fail("connection", fmt.Errorf("%w: server answered %q, want 'R'", ErrProtocol, r[0]))
	}
	return &IBVerbsProber{s: s}, nil
}

// Info describes the local device, port and path.
func (p *IBVerbsProber) Info() IBVerbsInfo { return p.s.info }

// Rounds implements Prober.
func (p *IBVerbsProber) Rounds(ctx context.Context, sizeBytes int64, rounds []Round, res []Result) error {
	if p.failed != nil {
		return p.failed
	}
	if sizeBytes < 1 || sizeBytes > p.s.max {
		return fmt.Errorf("bench: message size %d bytes outside 1..%d (the session's largest, IBVerbsOptions.MaxSizeBytes)", sizeBytes, p.s.max)
	}
	if len(rounds) < 1 || len(rounds) > maxBatch || len(res) != len(rounds) {
		return fmt.Errorf("bench: %d rounds (%d results) in a batch, want 1..%d", len(rounds), len(res), maxBatch)
	}
	p.ns, p.delays, p.sleeps = p.ns[:0], p.delays[:0], p.sleeps[:0]
	if err := checkRounds(rounds, false); err != nil {
		return err
	}
	for _, r := range rounds {
		sl := uint8(0)
		if r.Sleep {
			sl = 1
		}
		p.ns, p.delays, p.sleeps = append(p.ns, int32(r.N)), append(p.delays, r.Delay.Nanoseconds()), append(p.sleeps, sl)
	}
	p.prtt = slices.Grow(p.prtt[:0], len(rounds))[:len(rounds)]
	p.spent = slices.Grow(p.spent[:0], len(rounds))[:len(rounds)]
	c := p.s.conn
	hdr := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(append(p.hdr[:0], 'B'), uint32(sizeBytes)), uint32(len(rounds)))
	for _, n := range p.ns {
		hdr = binary.BigEndian.AppendUint32(hdr, uint32(n))
	}
	p.hdr = hdr
	stop := watch(ctx, c)
	if _, err := c.Write(hdr); err != nil {
		stop()
		return p.fail(fmt.Errorf("bench: sending batch: %w", ctxErr(ctx, err)))
	}
	var ack [1]byte
	if _, err := io.ReadFull(p.s.br, ack[:]); err != nil {
		stop()
		return p.fail(fmt.Errorf("bench: waiting for the server: %w", ctxErr(ctx, err)))
	}
	stop()
	c.SetDeadline(time.Time{})
	if ack[0] != 'A' {
		return p.fail(fmt.Errorf("%w: server answered %q to a batch, want 'A'", ErrProtocol, ack[0]))
	}
	err := p.s.during(ctx, func() C.int {
		return C.gp_client(p.s.ib, C.size_t(sizeBytes), C.int(len(rounds)),
			(*C.int32_t)(unsafe.Pointer(unsafe.SliceData(p.ns))), (*C.int64_t)(unsafe.Pointer(unsafe.SliceData(p.delays))),
			(*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(p.sleeps))), (*C.int64_t)(unsafe.Pointer(unsafe.SliceData(p.prtt))),
			(*C.int64_t)(unsafe.Pointer(unsafe.SliceData(p.spent))), p.s.cancel)
	})
	if err != nil {
		return p.fail(err)
	}
	for i := range res {
		res[i] = Result{PRTT: time.Duration(p.prtt[i]), Delay: time.Duration(p.spent[i])}
	}
	return nil
}

// fail marks the session broken: a queue pair in error does not recover.
func (p *IBVerbsProber) fail(err error) error {
	p.failed = err
	return err
}

// Close ends the session, closes the connection and frees the queue pair.
func (p *IBVerbsProber) Close() error {
	if p.s.ib == nil {
		return nil
	}
	c := p.s.conn
	defer p.s.close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	var err error
	if p.failed == nil {
		if _, err = c.Write([]byte{'Q'}); err == nil {
			var q [1]byte
			_, err = io.ReadFull(p.s.br, q[:])
			if err == nil && q[0] != 'Q' {
				err = fmt.Errorf("%w: server answered %q to quit", ErrProtocol, q[0])
			}
		}
	}
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("bench: closing: %w", err)
	}
	return nil
}

// ServeIBVerbs runs the server side of the ibverbs backend on c until the
// client quits (nil error), the connection or the queue pair fails, or ctx
// is cancelled. It closes c. o.MaxSizeBytes is ignored: the client's
// counts.
func ServeIBVerbs(ctx context.Context, c net.Conn, o IBVerbsOptions) (ServeStats, error) {
	defer c.Close()
	st := ServeStats{Peer: c.RemoteAddr().String()}
	o.MaxSizeBytes = 1
	o, err := o.withDefaults()
	if err != nil {
		return st, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	stopWatch := watch(ctx, c)
	fail := func(what string, err error) (ServeStats, error) {
		stopWatch()
		return st, fmt.Errorf("bench: serving %s: %s: %w", st.Peer, what, ctxErr(ctx, err))
	}
	br := bufio.NewReader(c)
	max, remote, err := readIBVHello(br, true)
	if err != nil {
		return fail("handshake", err)
	}
	s, local, psn, err := openIBV(o, max)
	if err != nil {
		return fail("handshake", err)
	}
	defer s.close()
	s.conn, s.br = c, br
	if err := writeIBVHello(c, 0, local); err != nil {
		return fail("handshake", err)
	}
	if err := s.connect(remote, psn); err != nil {
		return fail("connection", err)
	}
	if _, err := c.Write([]byte{'R'}); err != nil {
		return fail("connection", err)
	}
	var ns []int32
	var raw []byte
	for {
		var hdr [9]byte
		if _, err := io.ReadFull(br, hdr[:1]); err != nil {
			return fail("reading a frame", err)
		}
		switch hdr[0] {
		case 'Q':
			if _, err := c.Write([]byte{'Q'}); err != nil {
				return fail("quit", err)
			}
			stopWatch()
			return st, nil
		case 'B':
		default:
			return fail("reading a frame", fmt.Errorf("%w: frame type %q", ErrProtocol, hdr[0]))
		}
		if _, err := io.ReadFull(br, hdr[1:]); err != nil {
			return fail("reading a batch", err)
		}
		size, count := int64(binary.BigEndian.Uint32(hdr[1:])), binary.BigEndian.Uint32(hdr[5:])
		if size < 1 || size > max || count < 1 || count > maxBatch {
			return fail("reading a batch", fmt.Errorf("%w: size %d bytes (at most %d), %d rounds", ErrProtocol, size, max, count))
		}
		if cap(raw) < int(4*count) {
			raw = make([]byte, 4*count)
		}
		raw = raw[:4*count]
		if _, err := io.ReadFull(br, raw); err != nil {
			return fail("reading a batch", err)
		}
		ns = ns[:0]
		for i := 0; i < len(raw); i += 4 {
			n := binary.BigEndian.Uint32(raw[i:])
			if n < 1 || n > MaxRoundMessages {
				return fail("reading a batch", fmt.Errorf("%w: round of %d messages", ErrProtocol, n))
			}
			ns = append(ns, int32(n))
		}
		if _, err := c.Write([]byte{'A'}); err != nil {
			return fail("batch", err)
		}
		err := s.during(ctx, func() C.int {
			return C.gp_server(s.ib, C.size_t(size), C.int(len(ns)), (*C.int32_t)(unsafe.Pointer(unsafe.SliceData(ns))), s.cancel)
		})
		if err != nil {
			return fail(fmt.Sprintf("batch %d", st.Batches), err)
		}
		st.Batches++
		st.Rounds += len(ns)
		for _, n := range ns {
			st.Messages += int64(n)
		}
	}
}
