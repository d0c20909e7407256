//go:build linux && (amd64 || arm64)

package bench

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"net"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
)

// An emulated network link for TestEmulatedLink: a relay process between
// the prober and the server that delays what it forwards as a link with a
// known latency and time per byte would.

// link is an emulated network link: every byte takes PerByte ns to go onto
// the wire (one after the other, in order), and a packet arrives Latency
// after its last byte went onto the wire.
type link struct {
	Latency time.Duration
	PerByte float64 // ns per byte
	Packet  int     // bytes; 0 means packetBytes
}

// packetBytes is the link's default packet size: bytes are delivered in
// packets of at most this size, so that a receiver handles a message while
// the next one is still on the wire (the relay cannot see where messages
// end, and one read may hold several).
const packetBytes = 1024

const (
	soTimestampNS   = 35 // SO_TIMESTAMPNS and SCM_TIMESTAMPNS on amd64 and arm64
	prSetTimerslack = 29 // PR_SET_TIMERSLACK
	// spinMargin is how long before a delivery the relay stops sleeping
	// and spins: nanosleep with a timer slack of 1 ns overshoots by about
	// 20 µs here, rarely more than 50 µs.
	spinMargin = 300 * time.Microsecond
)

// startRelay listens on 127.0.0.1, and, for the one connection it
// accepts, connects to target and forwards both directions through the
// link. It returns its address and a function that waits until both
// directions are closed.
func startRelay(target string, l link) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer ln.Close()
		a, err := ln.Accept()
		if err != nil {
			return
		}
		b, err := net.Dial("tcp", target)
		if err != nil {
			a.Close()
			return
		}
		ta, tb := a.(*net.TCPConn), b.(*net.TCPConn)
		ta.SetNoDelay(true)
		tb.SetNoDelay(true)
		wg.Go(func() { l.forward(tb, ta) })
		wg.Go(func() { l.forward(ta, tb) })
	}()
	return ln.Addr().String(), wg.Wait, nil
}

// forward copies src to dst through the link. Bytes that arrived at time
// t go onto the wire when the bytes before them are off it (no earlier
// than t), take len*PerByte there, and are delivered, packet by packet,
// Latency after the last byte of their packet went on.
//
// The design keeps the emulation exact on a busy machine. Arrival times
// are the kernel's (SO_TIMESTAMPNS), not the time the relay got round to
// reading, so a late wake-up of the relay does not delay the link. The
// relay sleeps in nanosleep with a timer slack of 1 ns until spinMargin
// before a delivery and spins only for the rest: a process that mostly
// sleeps is scheduled promptly when it wakes, one that spins is time-sliced
// with everything else on the machine.
func (l link) forward(dst, src *net.TCPConn) {
	defer dst.CloseWrite()
	runtime.LockOSThread() // the timer slack is per thread
	defer runtime.UnlockOSThread()
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerslack, 1, 0)
	rc, err := src.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, soTimestampNS, 1) })
	type packet struct {
		data []byte
		at   time.Time
	}
	var (
		q    []packet
		wire time.Time // when the wire is free
		buf  = make([]byte, 256<<10)
		oob  = make([]byte, syscall.CmsgSpace(16))
		eof  bool
	)
	// recv reads what has arrived (waiting for it if wait) and queues it.
	// It reports whether it read anything.
	recv := func(wait bool) bool {
		var n, oobn int
		var rerr error
		err := rc.Read(func(fd uintptr) bool {
			n, oobn, _, _, rerr = syscall.Recvmsg(int(fd), buf, oob, syscall.MSG_DONTWAIT)
			return !wait || !errors.Is(rerr, syscall.EAGAIN)
		})
		switch {
		case err != nil || rerr != nil && !errors.Is(rerr, syscall.EAGAIN) || rerr == nil && n == 0:
			eof = true
			return false
		case n <= 0:
			return false
		}
		arrived := arrivalTime(oob[:oobn])
		if wire.Before(arrived) {
			wire = arrived
		}
		for data := buf[:n]; len(data) > 0; {
			k := min(len(data), cmp.Or(l.Packet, packetBytes))
			wire = wire.Add(time.Duration(math.Round(float64(k) * l.PerByte)))
			q = append(q, packet{append([]byte(nil), data[:k]...), wire.Add(l.Latency)})
			data = data[k:]
		}
		return true
	}
	for {
		if len(q) == 0 {
			if eof {
				return
			}
			recv(true)
			continue
		}
		for !eof && recv(false) {
		}
		if d := time.Until(q[0].at); d > spinMargin {
			ts := syscall.NsecToTimespec((d - spinMargin).Nanoseconds())
			syscall.Nanosleep(&ts, nil)
			continue // read what arrived meanwhile
		}
		for time.Now().Before(q[0].at) {
		}
		if _, err := dst.Write(q[0].data); err != nil {
			return
		}
		q = q[1:]
	}
}

// arrivalTime is the kernel's receive time in the control message of a
// recvmsg, or now when there is none. It has no monotonic reading: the
// relay's times are all wall-clock times.
func arrivalTime(oob []byte) time.Time {
	msgs, _ := syscall.ParseSocketControlMessage(oob)
	for _, m := range msgs {
		if m.Header.Level == syscall.SOL_SOCKET && m.Header.Type == soTimestampNS && len(m.Data) >= 16 {
			return time.Unix(int64(binary.NativeEndian.Uint64(m.Data)), int64(binary.NativeEndian.Uint64(m.Data[8:])))
		}
	}
	return time.Now().Round(0)
}

// calibrateThrough measures PRTT through a relay process with the given
// link to a server process and fits one range.
func calibrateThrough(t *testing.T, l link, cfg Config) (Range, RangeFit) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Client, relay and server in three processes: Go's scheduler does not
	// poll the network for a process's other goroutines while one of them
	// spins, so a server next to the relay would read late.
	server, waitServer := startHelper(t, ctx, "server")
	addr, waitRelay := startHelper(t, ctx, "relay,"+itoa(l.Latency.Nanoseconds())+","+ftoa(l.PerByte)+","+itoa(int64(l.Packet))+","+server)
	p, err := Dial(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Measure(ctx, p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := waitServer(); err != nil {
		t.Fatal(err)
	}
	if err := waitRelay(); err != nil {
		t.Fatal(err)
	}
	pf, err := Fit(tab, FitOptions{MaxRanges: 1})
	if err != nil {
		t.Fatal(err)
	}
	r, f := pf.Ranges[0], pf.Fit.Ranges[0]
	t.Logf("link %v + %g ns/byte: L=%.0f ns o=%.0f ns g=%.0f ns G=%.3f ns/byte O=%.3f ns/byte (G from the round trip %.3f; R² half round trip %v, gap %v; L ± %.0f ns, G ± %.3f ns/byte)",
		l.Latency, l.PerByte, r.L, r.Overhead, r.Gap, r.GapPerByte, r.OverheadPerByte, f.GRTT, *f.R2HalfRTT, *f.R2Gap, f.LSE, f.GapPerByteSE)
	return r, f
}

// TestEmulatedLink calibrates through a relay that adds a known latency
// and a known time per byte, and wants them back within 5 %.
//
// The link adds 2 ms and 400 ns/byte. What the path costs besides (two
// more loopback hops, wake-ups of three processes: 10 to 30 µs; under the
// race detector on a busy machine up to about 6 ns per byte, which biased
// G by 6 % when the link added only 100 ns/byte) stays within 1 or 2 % of
// that, so the fitted L and G are compared with the link's directly. (A calibration through the relay without delay,
// subtracted, would be cleaner in principle, but on a shared two-core
// machine o itself changes with CPU contention, and L = (L+2o) - 2o
// doubles that.) The fixed 2 ms delay exceeds the link's 1.64 ms per
// 4 KiB message, as PRTT(n,d,s) needs; medians over 30 repetitions absorb
// the noise. The prober sleeps through the delays: it shares two CPUs
// with the relay, which spins before each delivery. About 7 s.
//
// A measurement is physics on a shared machine: when other processes
// take the CPUs for long stretches, some rounds are delayed (the prober's
// sends most of all, which is o, and L = (L+2o) - 2o). Such a measurement
// is recognized by the fit's own standard errors (L or G uncertain by more
// than 2.5 %, half the tolerance; an undisturbed one is within 1 %) and
// repeated, up to four times; so is a precise one outside the tolerance
// (the relay's timing itself can be biased for a whole measurement under
// the race detector and load), and the tolerance fails the test only on
// the last attempt. On two cores with two other CPU-bound processes about half
// the measurements are disturbed; without, hardly any. When all four are,
// the test skips: the machine cannot time 5 % at the moment, which says
// nothing about the code (a wrong result with good precision still fails).
// `make test` runs it alone, after the other tests and without the race
// detector: among them, on CI's two cores, four attempts in a row missed
// G by 2.5 to 7.2 %, where alone it is within 2.5 %.
func TestEmulatedLink(t *testing.T) {
	if testing.Short() {
		t.Skip("measures for a few seconds")
	}
	l := link{Latency: 2 * time.Millisecond, PerByte: 400}
	cfg := Config{Sizes: []int64{512, 1024, 2048, 4096}, Reps: 30, Warmup: 5, N: 8, Delay: 2 * time.Millisecond, Sleep: true}
	const attempts, maxSE = 4, 0.025
	wantL := float64(l.Latency.Nanoseconds())
	for a := 1; ; a++ {
		got, f := calibrateThrough(t, l, cfg)
		if f.LSE > maxSE*wantL || f.GapPerByteSE > maxSE*l.PerByte {
			if a < attempts {
				t.Logf("attempt %d disturbed (L or G uncertain by more than %.1f %%): measuring again", a, 100*maxSE)
				continue
			}
			t.Skipf("%d attempts disturbed (L or G uncertain by more than %.1f %%): the machine is too busy for this timing test", a, 100*maxSE)
		}
		eL, eG := math.Abs(got.L/wantL-1), math.Abs(got.GapPerByte/l.PerByte-1)
		if (eL > 0.05 || eG > 0.05) && a < attempts {
			// Precise but off: under the race detector, with other test
			// binaries on both CPUs, the relay's own timing can be biased
			// for a whole measurement (seen in CI: L +5.2 %, G -5.7 %).
			// A wrong fit is off every time and still fails below.
			t.Logf("attempt %d off (L error %.1f %%, G error %.1f %%): measuring again", a, 100*eL, 100*eG)
			continue
		}
		if eL > 0.05 {
			t.Errorf("L = %.0f ns, want %.0f ns (error %.1f %% > 5 %%, %d attempts)", got.L, wantL, 100*eL, a)
		}
		if eG > 0.05 {
			t.Errorf("G = %.2f ns/byte, want %.0f (error %.1f %% > 5 %%, %d attempts)", got.GapPerByte, l.PerByte, 100*eG, a)
		}
		return
	}
}
