package bench

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

func TestLoopbackMeasure(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	addr, wait := startHelper(t, ctx, "server")
	p, err := Dial(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	sizes := []int64{1, 1000, 70000}
	var progress []int64
	tab, err := Measure(ctx, p, Config{Sizes: sizes, Reps: 5, Warmup: 2, N: 3,
		Progress: func(done, total int, s int64) { progress = append(progress, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := wait(); err != nil {
		t.Fatalf("server: %v", err)
	}
	if len(tab) != 4*5*len(sizes) {
		t.Fatalf("%d rows, want %d", len(tab), 4*5*len(sizes))
	}
	if len(progress) != len(sizes) {
		t.Errorf("progress %v, want one call per size", progress)
	}
	kinds := map[[2]int64]int{}
	for _, s := range tab {
		if s.PRTTNs <= 0 || s.PRTTNs > float64(10*time.Second) {
			t.Errorf("implausible sample %+v", s)
		}
		delayed := int64(0)
		if s.DelayNs > 0 {
			delayed = 1
		}
		kinds[[2]int64{int64(s.N), delayed}]++
		if s.DelayNs > 0 && s.PRTTNs < float64(s.N-1)*s.DelayNs {
			t.Errorf("PRTT(%d,d,s) = %g ns is less than (n-1)d = %g ns", s.N, s.PRTTNs, float64(s.N-1)*s.DelayNs)
		}
	}
	if want := 5 * len(sizes); kinds[[2]int64{1, 0}] != want || kinds[[2]int64{3, 0}] != want || kinds[[2]int64{3, 1}] != want || kinds[[2]int64{2, 1}] != want {
		t.Errorf("rows per kind %v, want %d each of (1,0), (3,0), (3,d), (2,d)", kinds, want)
	}
	if _, err := Fit(tab, FitOptions{}); err != nil {
		t.Errorf("fit of a loopback table: %v", err)
	}
}

func TestMeasureConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"size 0", Config{Sizes: []int64{0}}},
		{"size too large", Config{Sizes: []int64{MaxSizeBytes + 1}}},
		{"no sizes", Config{Sizes: []int64{}}},
		{"n 1", Config{N: 1}},
		{"negative reps", Config{Reps: -1}},
		{"negative delay", Config{Delay: -1}},
		{"more launches than passes", Config{Passes: 2, Launches: 3}},
		{"negative launches", Config{Launches: -1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Measure(context.Background(), nil, tc.cfg); err == nil {
				t.Error("no error")
			}
		})
	}
}

// TestServeRejects checks that the server refuses what the protocol does
// not allow instead of allocating or looping on it.
func TestServeRejects(t *testing.T) {
	tests := []struct {
		name  string
		input string
	}{
		{"bad magic", "GOPSPRT9"},
		{"bad frame", tcpMagic + "X"},
		{"size 0", tcpMagic + "B\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x01"},
		{"huge size", tcpMagic + "B\x7f\xff\xff\xff\x00\x00\x00\x01\x00\x00\x00\x01"},
		{"no rounds", tcpMagic + "B\x00\x00\x00\x08\x00\x00\x00\x00"},
		{"n 0", tcpMagic + "B\x00\x00\x00\x08\x00\x00\x00\x01\x00\x00\x00\x00"},
		{"truncated", tcpMagic + "B\x00\x00"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			client, server := net.Pipe()
			errc := make(chan error, 1)
			go func() {
				_, err := Serve(context.Background(), server)
				errc <- err
			}()
			go io.Copy(io.Discard, client)
			client.Write([]byte(tc.input))
			client.Close()
			if err := <-errc; err == nil {
				t.Error("served without error")
			}
		})
	}
}

func TestServeCancel(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := ServeOne(ctx, ln)
		errc <- err
	}()
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeOne did not return after cancel")
	}
}

func TestDialWrongServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			io.WriteString(c, "HTTP/1.0 400 Bad Request\r\n\r\n")
			c.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := Dial(ctx, ln.Addr().String()); !errors.Is(err, ErrProtocol) {
		t.Errorf("error %v, want ErrProtocol", err)
	}
}
