package bench

// The ibverbs backend's protocol. The messages of the rounds travel over
// an RC (reliable connected) queue pair of libibverbs, as IBV_WR_SEND work
// requests into posted receives; a TCP connection (TCP_NODELAY) between
// the same two ends carries everything else: the connection setup and the
// control of the batches. The client times, the server echoes. All
// integers are unsigned big-endian.
//
//	hello   client -> server  "GOPSIBV1" max_size(4) endpoint(30)
//	        server -> client  "GOPSIBV1" endpoint(30)
//	        both move their queue pair to RTR, then RTS, with the other's endpoint
//	ready   server -> client  'R'                 (its queue pair in RTS, its receives posted)
//	batch   client -> server  'B' size(4) count(4) n[0](4) ... n[count-1](4)
//	        server -> client  'A'                 (ready)
//	        then for i in 0..count-1, over the queue pair:
//	          client -> server  n[i] sends of size bytes
//	          server -> client  one send of size bytes
//	quit    client -> server  'Q'
//	        server -> client  'Q', and the server closes
//
// An endpoint is what the other end needs to reach a queue pair:
//
//	lid(2) qpn(4) psn(4) mtu(1) flags(1) reserved(0, 16 bits) gid(16)
//
// lid is the port's LID (0 on Ethernet), qpn the queue pair number and psn
// the first packet sequence number (both 24 bits), mtu the port's active
// MTU as enum ibv_mtu (1 = 256 bytes ... 5 = 4096 bytes; the path uses the
// smaller of the two), flags bit 0 says that gid holds the GID to address
// the end by (RoCE always; InfiniBand when IBVerbsOptions.UseGID is set).
// An end that addresses by GID needs the other's GID.
//
// max_size is the largest message of the session (1..MaxSizeBytes): both
// ends register one buffer of that size, which every send and receive
// uses (the bytes carry no meaning), and every receive is posted with that
// length, so that a batch never finds a receive too small. A batch's size
// must not exceed it; a batch obeys the limits of the tcp backend
// (1..maxBatch rounds, 1 <= n[i] <= MaxRoundMessages). The server closes
// the connection on anything else.
//
// Design notes. Both ends keep ibvRecvDepth receives posted and post one
// again for each that completes, the server as soon as the message is in
// (after the reply, for a round's last message), the client between
// rounds, outside the timing; so a round of up to ibvRecvDepth messages
// never meets a missing receive (an RNR NAK, retried after the minimum
// RNR timer, 10 µs). Sends are signalled, at most ibvSendDepth
// outstanding; the client reaps the completions of a round's sends after
// its clock stops. Both ends poll the completion queue (no completion
// channel): a wake-up costs microseconds, more than the latency measured.
// During a batch the TCP connection is silent, and each end watches it:
// the other end closing it (a crash) stops the polling, as does a
// cancelled context or no completion for a minute. Messages are not sent
// inline (IBV_SEND_INLINE), so that every size takes the same path
// through the NIC. The delay between a round's messages starts when
// ibv_post_send returns.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

const (
	ibvMagic        = "GOPSIBV1"
	ibvEndpointSize = 30
	ibvRecvDepth    = 512
	ibvSendDepth    = 128
)

// ErrNoIBVerbs is the error of the ibverbs backend in a gopsim built
// without it (the default: it needs cgo and libibverbs).
var ErrNoIBVerbs = errors.New("bench: built without ibverbs support: rebuild with -tags ibverbs")

// IBVerbsOptions say which RDMA device and port the ibverbs backend uses.
// The zero value of every field is its documented default.
type IBVerbsOptions struct {
	// Device is the name of the RDMA device (as ibv_devices lists them);
	// "" means the first.
	Device string
	// Port is the device's port, from 1; 0 means 1.
	Port int
	// GIDIndex is the index in the port's GID table of the address used
	// on Ethernet ports (RoCE), which need one, and on InfiniBand ports
	// when UseGID is set; 0 by default. Without UseGID InfiniBand ports
	// are addressed by LID.
	GIDIndex int
	UseGID   bool
	// MaxSizeBytes is the largest message the client will measure (the
	// buffers and receives are of this size); 0 means the largest of
	// DefaultSizes. The server takes the client's.
	MaxSizeBytes int64
}

// IBVerbsInfo describes the local end of an ibverbs session.
type IBVerbsInfo struct {
	Device    string
	Port      int
	LinkLayer string // "InfiniBand" or "Ethernet"
	MTUBytes  int    // of the path: the smaller port MTU
	GIDIndex  int    // -1: addressed by LID
}

func (i IBVerbsInfo) String() string {
	addr := "LID"
	if i.GIDIndex >= 0 {
		addr = fmt.Sprintf("GID %d", i.GIDIndex)
	}
	return fmt.Sprintf("%s port %d (%s, MTU %d bytes, by %s)", i.Device, i.Port, i.LinkLayer, i.MTUBytes, addr)
}

func (o IBVerbsOptions) withDefaults() (IBVerbsOptions, error) {
	if o.Port == 0 {
		o.Port = 1
	}
	if o.MaxSizeBytes == 0 {
		o.MaxSizeBytes = DefaultSizes[len(DefaultSizes)-1]
	}
	switch {
	case o.Port < 1 || o.Port > 255:
		return o, fmt.Errorf("bench: ibverbs port %d outside 1..255", o.Port)
	case o.GIDIndex < 0 || o.GIDIndex > 65535:
		return o, fmt.Errorf("bench: GID index %d outside 0..65535", o.GIDIndex)
	case o.MaxSizeBytes < 1 || o.MaxSizeBytes > MaxSizeBytes:
		return o, fmt.Errorf("bench: largest message %d bytes outside 1..%d", o.MaxSizeBytes, MaxSizeBytes)
	}
	return o, nil
}

// ibvEndpoint is what the other end needs to reach a queue pair.
type ibvEndpoint struct {
	LID    uint16
	QPN    uint32
	PSN    uint32
	MTU    uint8 // enum ibv_mtu
	HasGID bool
	GID    [16]byte
}

func (e ibvEndpoint) append(b []byte) []byte {
	b = binary.BigEndian.AppendUint16(b, e.LID)
	b = binary.BigEndian.AppendUint32(b, e.QPN)
	b = binary.BigEndian.AppendUint32(b, e.PSN)
	flags := byte(0)
	if e.HasGID {
		flags = 1
	}
	b = append(b, e.MTU, flags, 0, 0)
	return append(b, e.GID[:]...)
}

// decodeIBVEndpoint reads an endpoint from b (ibvEndpointSize bytes).
func decodeIBVEndpoint(b []byte) (ibvEndpoint, error) {
	if len(b) != ibvEndpointSize {
		return ibvEndpoint{}, fmt.Errorf("%w: endpoint of %d bytes, want %d", ErrProtocol, len(b), ibvEndpointSize)
	}
	e := ibvEndpoint{
		LID: binary.BigEndian.Uint16(b[0:]),
		QPN: binary.BigEndian.Uint32(b[2:]),
		PSN: binary.BigEndian.Uint32(b[6:]),
		MTU: b[10],
	}
	flags := b[11]
	copy(e.GID[:], b[14:])
	switch {
	case e.QPN >= 1<<24 || e.PSN >= 1<<24:
		return e, fmt.Errorf("%w: endpoint QPN %#x, PSN %#x: want 24 bits", ErrProtocol, e.QPN, e.PSN)
	case e.MTU < 1 || e.MTU > 5:
		return e, fmt.Errorf("%w: endpoint MTU code %d outside 1..5 (256..4096 bytes)", ErrProtocol, e.MTU)
	case flags&^1 != 0 || b[12] != 0 || b[13] != 0:
		return e, fmt.Errorf("%w: endpoint flags %#x %#x %#x: unknown bits", ErrProtocol, flags, b[12], b[13])
	}
	e.HasGID = flags&1 != 0
	return e, nil
}

// writeIBVHello writes the client's (maxSize > 0) or the server's
// (maxSize == 0) hello.
func writeIBVHello(w io.Writer, maxSize int64, e ibvEndpoint) error {
	b := []byte(ibvMagic)
	if maxSize > 0 {
		b = binary.BigEndian.AppendUint32(b, uint32(maxSize))
	}
	_, err := w.Write(e.append(b))
	return err
}

// readIBVHello reads the other end's hello: the client's with its
// largest message size (client true), or the server's.
func readIBVHello(r io.Reader, client bool) (maxSize int64, e ibvEndpoint, err error) {
	n := len(ibvMagic) + ibvEndpointSize
	if client {
		n += 4
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return 0, e, err
	}
	if string(b[:len(ibvMagic)]) != ibvMagic {
		return 0, e, fmt.Errorf("%w: got %q, want %q", ErrProtocol, b[:len(ibvMagic)], ibvMagic)
	}
	b = b[len(ibvMagic):]
	if client {
		maxSize = int64(binary.BigEndian.Uint32(b))
		if maxSize < 1 || maxSize > MaxSizeBytes {
			return 0, e, fmt.Errorf("%w: largest message %d bytes outside 1..%d", ErrProtocol, maxSize, MaxSizeBytes)
		}
		b = b[4:]
	}
	e, err = decodeIBVEndpoint(b)
	return maxSize, e, err
}

// ibvMTUBytes is the size of an enum ibv_mtu.
func ibvMTUBytes(code uint8) int { return 128 << code }
