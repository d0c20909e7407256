package bench

// The tcp backend's protocol. One TCP connection (TCP_NODELAY on both
// ends) carries a whole calibration between a client, which times, and a
// server, which echoes. All integers are unsigned 32-bit big-endian.
//
//	handshake  client -> server  "GOPSPRT1"          (8 bytes: magic and version 1)
//	           server -> client  "GOPSPRT1"
//	batch      client -> server  'B' size count n[0] ... n[count-1]
//	           server -> client  'A'                 (ready)
//	           then for i in 0..count-1:
//	             client -> server  n[i] messages of size bytes
//	             server -> client  one message of size bytes
//	quit       client -> server  'Q'
//	           server -> client  'Q', and the server closes
//
// A batch has 1..maxBatch rounds, 1 <= n[i] <= MaxRoundMessages and
// 1 <= size <= MaxSizeBytes; the server closes the connection on anything
// else. Message bytes carry no header and no meaning: TCP is a byte stream,
// so the server knows where a message ends from size alone, and a header
// would add its own cost to every message. The delay between the n
// messages of a round is the client's business (a busy wait or a sleep
// after each send returns, timed by the client), so the server never needs
// to know it. The 'A' after the batch header lets the client start its
// clock only when the server is waiting for data.
//
// Design notes. A batch carries the whole interleaved sequence of rounds
// for one size, so switching between PRTT(1,0,s), PRTT(n,0,s),
// PRTT(n,d,s) and PRTT(2,d,s) costs no extra round trip. Version changes
// bump the digit of the magic; a server refuses a magic it does not know.
// The server must run in a process of its own (StartServerProcess says
// why).

import (
	"bufio"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strings"
	"time"
)

const (
	tcpMagic = "GOPSPRT1"
	maxBatch = 1 << 20
)

// ErrProtocol is wrapped by errors about a peer that does not follow the
// tcp backend's protocol.
var ErrProtocol = errors.New("bench: PRTT protocol violation")

// TCPProber is the client side of the tcp backend: it times PRTT rounds
// against a server run by Serve.
type TCPProber struct {
	conn *net.TCPConn
	buf  []byte
	hdr  []byte
}

// Dial connects to a tcp backend server at addr (host:port) and performs
// the handshake.
func Dial(ctx context.Context, addr string) (*TCPProber, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	p, err := NewTCPProber(ctx, c)
	if err != nil {
		c.Close()
		return nil, err
	}
	return p, nil
}

// NewTCPProber performs the client's handshake on a connected TCP
// connection and returns the prober that owns it.
func NewTCPProber(ctx context.Context, c net.Conn) (*TCPProber, error) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return nil, fmt.Errorf("bench: %T is not a TCP connection", c)
	}
	if err := tc.SetNoDelay(true); err != nil {
		return nil, fmt.Errorf("bench: TCP_NODELAY: %w", err)
	}
	defer watch(ctx, tc)()
	if _, err := io.WriteString(tc, tcpMagic); err != nil {
		return nil, fmt.Errorf("bench: handshake with %v: %w", tc.RemoteAddr(), ctxErr(ctx, err))
	}
	var m [len(tcpMagic)]byte
	if _, err := io.ReadFull(tc, m[:]); err != nil {
		return nil, fmt.Errorf("bench: handshake with %v: %w", tc.RemoteAddr(), ctxErr(ctx, err))
	}
	if string(m[:]) != tcpMagic {
		return nil, fmt.Errorf("%w: %v answered %q, want %q", ErrProtocol, tc.RemoteAddr(), m[:], tcpMagic)
	}
	return &TCPProber{conn: tc}, nil
}

// watch makes ctx's cancellation interrupt I/O on c; call the result when
// done.
func watch(ctx context.Context, c net.Conn) func() {
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Unix(1, 0)) })
	return func() { stop() }
}

// ctxErr prefers ctx's error to the I/O error it caused.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// Rounds implements Prober.
func (p *TCPProber) Rounds(ctx context.Context, sizeBytes int64, rounds []Round, res []Result) error {
	if sizeBytes < 1 || sizeBytes > MaxSizeBytes {
		return fmt.Errorf("bench: message size %d bytes outside 1..%d", sizeBytes, MaxSizeBytes)
	}
	if len(rounds) < 1 || len(rounds) > maxBatch || len(res) != len(rounds) {
		return fmt.Errorf("bench: %d rounds (%d results) in a batch, want 1..%d", len(rounds), len(res), maxBatch)
	}
	if err := checkRounds(rounds, false); err != nil {
		return err
	}
	defer watch(ctx, p.conn)()
	hdr := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(append(p.hdr[:0], 'B'), uint32(sizeBytes)), uint32(len(rounds)))
	for _, r := range rounds {
		hdr = binary.BigEndian.AppendUint32(hdr, uint32(r.N))
	}
	p.hdr = hdr
	if _, err := p.conn.Write(hdr); err != nil {
		return fmt.Errorf("bench: sending batch: %w", ctxErr(ctx, err))
	}
	var ack [1]byte
	if _, err := io.ReadFull(p.conn, ack[:]); err != nil {
		return fmt.Errorf("bench: waiting for the server: %w", ctxErr(ctx, err))
	}
	if ack[0] != 'A' {
		return fmt.Errorf("%w: server answered %q to a batch, want 'A'", ErrProtocol, ack[0])
	}
	if int64(cap(p.buf)) < sizeBytes {
		p.buf = make([]byte, sizeBytes)
	}
	msg := p.buf[:sizeBytes]
	for i, r := range rounds {
		var delays time.Duration
		start := time.Now()
		for j := range r.N {
			if _, err := p.conn.Write(msg); err != nil {
				return fmt.Errorf("bench: round %d, message %d: %w", i, j, ctxErr(ctx, err))
			}
			if r.Delay > 0 && j < r.N-1 {
				delays += pause(r.Delay, r.Sleep)
			}
		}
		if _, err := io.ReadFull(p.conn, msg); err != nil {
			return fmt.Errorf("bench: round %d, reply: %w", i, ctxErr(ctx, err))
		}
		res[i] = Result{PRTT: time.Since(start)}
		if r.N > 1 {
			res[i].Delay = delays / time.Duration(r.N-1)
		}
	}
	return nil
}

// Close ends the session and closes the connection.
func (p *TCPProber) Close() error {
	p.conn.SetDeadline(time.Now().Add(5 * time.Second))
	_, err := p.conn.Write([]byte{'Q'})
	if err == nil {
		var q [1]byte
		_, err = io.ReadFull(p.conn, q[:])
		if err == nil && q[0] != 'Q' {
			err = fmt.Errorf("%w: server answered %q to quit", ErrProtocol, q[0])
		}
	}
	if cerr := p.conn.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("bench: closing: %w", err)
	}
	return nil
}

// ServeStats says what a server did.
type ServeStats struct {
	Peer     string
	Batches  int
	Rounds   int
	Messages int64
}

// Serve runs the server side of the tcp backend on c until the client
// quits (nil error), the connection fails or ctx is cancelled. It closes
// c.
func Serve(ctx context.Context, c net.Conn) (ServeStats, error) {
	defer c.Close()
	st := ServeStats{Peer: c.RemoteAddr().String()}
	if tc, ok := c.(*net.TCPConn); ok {
		if err := tc.SetNoDelay(true); err != nil {
			return st, fmt.Errorf("bench: TCP_NODELAY: %w", err)
		}
	}
	defer watch(ctx, c)()
	fail := func(what string, err error) (ServeStats, error) {
		return st, fmt.Errorf("bench: serving %s: %s: %w", st.Peer, what, ctxErr(ctx, err))
	}
	var m [len(tcpMagic)]byte
	if _, err := io.ReadFull(c, m[:]); err != nil {
		return fail("handshake", err)
	}
	if string(m[:]) != tcpMagic {
		return fail("handshake", fmt.Errorf("%w: got %q, want %q", ErrProtocol, m[:], tcpMagic))
	}
	if _, err := io.WriteString(c, tcpMagic); err != nil {
		return fail("handshake", err)
	}
	var buf, ns []byte
	for {
		var hdr [9]byte
		if _, err := io.ReadFull(c, hdr[:1]); err != nil {
			return fail("reading a frame", err)
		}
		switch hdr[0] {
		case 'Q':
			if _, err := c.Write([]byte{'Q'}); err != nil {
				return fail("quit", err)
			}
			return st, nil
		case 'B':
		default:
			return fail("reading a frame", fmt.Errorf("%w: frame type %q", ErrProtocol, hdr[0]))
		}
		if _, err := io.ReadFull(c, hdr[1:]); err != nil {
			return fail("reading a batch", err)
		}
		size, count := binary.BigEndian.Uint32(hdr[1:]), binary.BigEndian.Uint32(hdr[5:])
		if size < 1 || size > MaxSizeBytes || count < 1 || count > maxBatch {
			return fail("reading a batch", fmt.Errorf("%w: size %d bytes, %d rounds", ErrProtocol, size, count))
		}
		if cap(ns) < int(4*count) {
			ns = make([]byte, 4*count)
		}
		ns = ns[:4*count]
		if _, err := io.ReadFull(c, ns); err != nil {
			return fail("reading a batch", err)
		}
		for i := 0; i < len(ns); i += 4 {
			if n := binary.BigEndian.Uint32(ns[i:]); n < 1 || n > MaxRoundMessages {
				return fail("reading a batch", fmt.Errorf("%w: round of %d messages", ErrProtocol, n))
			}
		}
		if uint32(cap(buf)) < size {
			buf = make([]byte, size)
		}
		msg := buf[:size]
		if _, err := c.Write([]byte{'A'}); err != nil {
			return fail("batch", err)
		}
		for i := 0; i < len(ns); i += 4 {
			n := binary.BigEndian.Uint32(ns[i:])
			for range n {
				if _, err := io.ReadFull(c, msg); err != nil {
					return fail(fmt.Sprintf("round %d", i/4), err)
				}
			}
			if _, err := c.Write(msg); err != nil {
				return fail(fmt.Sprintf("round %d, reply", i/4), err)
			}
			st.Rounds++
			st.Messages += int64(n)
		}
		st.Batches++
	}
}

// ServeOne accepts one connection on ln and serves it (Serve).
func ServeOne(ctx context.Context, ln net.Listener) (ServeStats, error) {
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	c, err := ln.Accept()
	stop()
	if err != nil {
		return ServeStats{}, fmt.Errorf("bench: waiting for a peer on %v: %w", ln.Addr(), ctxErr(ctx, err))
	}
	return Serve(ctx, c)
}

// ListenBanner starts the line that announces a server's address: a
// process serving the tcp backend writes ListenBanner + "HOST:PORT\n" as
// the first line of its standard output (`gopsim calibrate --listen`
// does), and StartServerProcess reads it.
const ListenBanner = "listening on "

// StartServerProcess starts cmd, a process that serves a tcp backend
// session and announces its address (ListenBanner), and returns that
// address. The server and the prober must be separate processes: a prober
// busy-waits between messages, and Go's scheduler does not poll the
// network for other goroutines of a process while its goroutines are
// busy, so a server in the prober's process would read late. Call wait
// after the session: it waits for the process to end and returns its
// error.
func StartServerProcess(cmd *exec.Cmd) (addr string, wait func() error, err error) {
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, fmt.Errorf("bench: server process: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("bench: server process: %w", err)
	}
	wait = func() error {
		io.Copy(io.Discard, out)
		if err := cmd.Wait(); err != nil {
			return fmt.Errorf("bench: server process %s: %w", cmd.Path, err)
		}
		return nil
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if a, ok := strings.CutPrefix(strings.TrimSpace(line), ListenBanner); ok && err == nil {
		return a, wait, nil
	}
	cmd.Process.Kill()
	werr := wait()
	return "", nil, fmt.Errorf("bench: server process %s announced %q, want %q HOST:PORT (%v)", cmd.Path, line, ListenBanner, cmp.Or(werr, err))
}
