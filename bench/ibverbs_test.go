//go:build ibverbs

package bench

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"
)

// needRDMA skips the test on a machine without an RDMA device: that is
// hardware, which no installation provides (CI has none either).
func needRDMA(t *testing.T) []string {
	t.Helper()
	devs, err := IBVerbsDevices()
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) == 0 {
		t.Skip("no RDMA device: ibv_get_device_list returns no devices (the ibverbs backend needs RDMA hardware or a soft-RoCE link, rdma link add)")
	}
	return devs
}

// serveIBVerbsOnce serves one ibverbs session on a loopback listener in
// this process and returns its address and its result. (The server's
// loops run in C on their own thread, so unlike the tcp backend's server
// it needs no process of its own.)
func serveIBVerbsOnce(t *testing.T, ctx context.Context, o IBVerbsOptions) (string, <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		defer ln.Close()
		stop := context.AfterFunc(ctx, func() { ln.Close() })
		c, err := ln.Accept()
		stop()
		if err != nil {
			errc <- err
			return
		}
		_, err = ServeIBVerbs(ctx, c, o)
		errc <- err
	}()
	return ln.Addr().String(), errc
}

// TestIBVerbsLoopback measures over an RC queue pair between two ends on
// this host's first RDMA device (the NIC's loopback), with a short
// configuration: the table must be complete and the fit work.
func TestIBVerbsLoopback(t *testing.T) {
	devs := needRDMA(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	addr, errc := serveIBVerbsOnce(t, ctx, IBVerbsOptions{})
	sizes := []int64{1, 1024, 8192, 65536}
	p, err := DialIBVerbs(ctx, addr, IBVerbsOptions{MaxSizeBytes: sizes[len(sizes)-1]})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("devices %v; using %v", devs, p.Info())
	tab, err := Measure(ctx, p, Config{Sizes: sizes, Reps: 20, Warmup: 5, N: 4})
	if cerr := p.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("server: %v", err)
	}
	if len(tab) != 4*20*len(sizes) {
		t.Errorf("%d rows, want %d", len(tab), 4*20*len(sizes))
	}
	if err := p.Rounds(ctx, 2*sizes[len(sizes)-1], []Round{{N: 1}}, make([]Result, 1)); err == nil || !strings.Contains(err.Error(), "outside 1..65536") {
		t.Errorf("a size above MaxSizeBytes: %v", err)
	}
	pf, err := Fit(tab, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range pf.Ranges {
		t.Logf("%d..%d bytes: L=%.0f ns o=%.0f ns g=%.0f ns G=%.4f ns/byte", r.MinBytes, r.MaxBytes, r.L, r.Overhead, r.Gap, r.GapPerByte)
	}
}

// TestIBVerbsNoDevice: without an RDMA device the client says so, after
// reaching the server, and the server sees the client go.
func TestIBVerbsNoDevice(t *testing.T) {
	if devs, err := IBVerbsDevices(); err != nil || len(devs) > 0 {
		t.Skipf("this machine has RDMA devices %v (%v)", devs, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	addr, errc := serveIBVerbsOnce(t, ctx, IBVerbsOptions{})
	_, err := DialIBVerbs(ctx, addr, IBVerbsOptions{})
	if err == nil || !strings.Contains(err.Error(), "no RDMA device (ibv_get_device_list returns none") {
		t.Errorf("error %v, want no RDMA device", err)
	}
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "handshake") {
		t.Errorf("server: %v, want a failed handshake", err)
	}
}
