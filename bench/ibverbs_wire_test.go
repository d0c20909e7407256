package bench

import (
	"bytes"
	"strings"
	"testing"
)

func TestIBVerbsHello(t *testing.T) {
	e := ibvEndpoint{LID: 7, QPN: 0x123456, PSN: 0xabcdef, MTU: 5, HasGID: true}
	copy(e.GID[:], "fe80::1 as bytes")
	for _, client := range []bool{true, false} {
		var b bytes.Buffer
		max := int64(0)
		if client {
			max = 131072
		}
		if err := writeIBVHello(&b, max, e); err != nil {
			t.Fatal(err)
		}
		if want := len(ibvMagic) + ibvEndpointSize + 4*int(max/131072); b.Len() != want {
			t.Errorf("client %v: hello of %d bytes, want %d", client, b.Len(), want)
		}
		gotMax, got, err := readIBVHello(&b, client)
		if err != nil || got != e || gotMax != max {
			t.Errorf("client %v: read back %d %+v, %v", client, gotMax, got, err)
		}
	}
}

func TestIBVerbsHelloRejects(t *testing.T) {
	good := ibvEndpoint{LID: 1, QPN: 2, PSN: 3, MTU: 3}.append(nil)
	with := func(i int, b byte) string {
		x := bytes.Clone(good)
		x[i] = b
		return ibvMagic + "\x00\x00\x10\x00" + string(x)
	}
	tests := []struct {
		name, in, want string
	}{
		{"magic", "GOPSPRT1" + "\x00\x00\x10\x00" + string(good), `got "GOPSPRT1"`},
		{"size 0", ibvMagic + "\x00\x00\x00\x00" + string(good), "largest message 0 bytes"},
		{"size too large", ibvMagic + "\x40\x00\x00\x01" + string(good), "largest message 1073741825 bytes"},
		{"qpn", with(2, 1), "want 24 bits"},
		{"mtu 0", with(10, 0), "MTU code 0 outside 1..5"},
		{"mtu 6", with(10, 6), "MTU code 6"},
		{"flags", with(11, 2), "unknown bits"},
		{"reserved", with(13, 1), "unknown bits"},
		{"short", ibvMagic + "\x00\x00\x10\x00" + string(good[:10]), "unexpected EOF"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := readIBVHello(strings.NewReader(tc.in), true)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestIBVerbsOptions(t *testing.T) {
	o, err := IBVerbsOptions{}.withDefaults()
	if err != nil || o.Port != 1 || o.MaxSizeBytes != 131072 || o.GIDIndex != 0 || o.UseGID {
		t.Errorf("defaults %+v, %v", o, err)
	}
	for _, bad := range []IBVerbsOptions{{Port: -1}, {Port: 256}, {GIDIndex: -1}, {MaxSizeBytes: -1}, {MaxSizeBytes: MaxSizeBytes + 1}} {
		if _, err := bad.withDefaults(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if s := (IBVerbsInfo{Device: "mlx5_0", Port: 1, LinkLayer: "Ethernet", MTUBytes: 1024, GIDIndex: 3}).String(); s != "mlx5_0 port 1 (Ethernet, MTU 1024 bytes, by GID 3)" {
		t.Errorf("info %q", s)
	}
}

// FuzzIBVerbsHello checks that reading a hello never panics and that what
// it accepts is within the protocol's limits and written back unchanged.
func FuzzIBVerbsHello(f *testing.F) {
	var b bytes.Buffer
	writeIBVHello(&b, 4096, ibvEndpoint{LID: 1, QPN: 2, PSN: 3, MTU: 3, HasGID: true})
	f.Add(b.Bytes(), true)
	f.Add(b.Bytes()[4:], false)
	f.Add([]byte(ibvMagic), true)
	f.Fuzz(func(t *testing.T, data []byte, client bool) {
		max, e, err := readIBVHello(bytes.NewReader(data), client)
		if err != nil {
			return
		}
		if client && (max < 1 || max > MaxSizeBytes) || !client && max != 0 || e.QPN >= 1<<24 || e.PSN >= 1<<24 || e.MTU < 1 || e.MTU > 5 {
			t.Fatalf("accepted %d %+v", max, e)
		}
		var out bytes.Buffer
		writeIBVHello(&out, max, e)
		if !bytes.Equal(out.Bytes(), data[:out.Len()]) {
			t.Fatalf("written back as %x, read from %x", out.Bytes(), data)
		}
	})
}
