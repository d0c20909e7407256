package sim

import (
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
)

func TestReadParams(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      Params
		err       string
	}{
		{name: "partial", src: `{"L_ns": 100}`, want: func() Params { p := DefaultParams(); p.L = 100; return p }()},
		{name: "ranges and calibration extras", src: `{"o_ns": 10, "ranges": [{"min_bytes": 0, "max_bytes": 12288, "L_ns": 1, "o_ns": 2, "g_ns": 3, "G_ns_per_byte": 4, "O_ns_per_byte": 5},
			{"min_bytes": 12289, "max_bytes": 1000000, "L_ns": 6, "o_ns": 7, "g_ns": 8, "G_ns_per_byte": 9, "O_ns_per_byte": 0}],
			"fit": {"r2": 0.99}, "warnings": ["o > g"], "source": "tcp loopback"}`,
			want: func() Params {
				p := DefaultParams()
				p.Overhead = 10
				p.Ranges = []Range{{0, 12288, 1, 2, 3, 4, 5}, {12289, 1000000, 6, 7, 8, 9, 0}}
				return p
			}()},
		{name: "misspelt key", src: `{"L": 1}`, err: `p.json:1:2: unknown key "L" (keys here: L_ns, o_ns,`},
		{name: "syntax", src: `{"L_ns": }`, err: "p.json:1:10: invalid character '}'"},
		{name: "negative", src: `{"g_ns": -1}`, err: "p.json:1:10: sim: parameter g=-1 ns outside"},
		{name: "overlap", src: `{"ranges": [{"min_bytes": 0, "max_bytes": 100, "L_ns": 1, "o_ns": 1, "g_ns": 1, "G_ns_per_byte": 1, "O_ns_per_byte": 0}, {"min_bytes": 100, "max_bytes": 200, "L_ns": 1, "o_ns": 1, "g_ns": 1, "G_ns_per_byte": 1, "O_ns_per_byte": 0}]}`, err: "p.json:1:122: sim: range 1 (100..200 bytes) overlaps"},
		{name: "inverted", src: `{"ranges": [{"min_bytes": 10, "max_bytes": 1, "L_ns": 1, "o_ns": 1, "g_ns": 1, "G_ns_per_byte": 1, "O_ns_per_byte": 0}]}`, err: "p.json:1:13: sim: range 0: min_bytes 10 above max_bytes 1"},
		{name: "range negative", src: `{"ranges": [{"min_bytes": 0, "max_bytes": 1, "L_ns": 1, "o_ns": 1, "g_ns": 1, "G_ns_per_byte": -2, "O_ns_per_byte": 0}]}`, err: "p.json:1:96: sim: range 0 (0..1 bytes): parameter G=-2"},
		{name: "range without G", src: `{"ranges": [{"min_bytes": 0, "max_bytes": 100, "L_ns": 1, "o_ns": 2, "g_ns": 3, "O_ns_per_byte": 0}]}`, err: `1:99: key "ranges[0]": missing "G_ns_per_byte": a range gives every one of`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ReadParams(strings.NewReader(tc.src), "p.json", DefaultParams())
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.String() != tc.want.String() {
				t.Fatalf("got  %s\nwant %s", p, tc.want)
			}
		})
	}
}

// TestRanges: a message pays the parameters of its size range. Worked by
// hand from docs/model.md: 1024 bytes in a range with L=100, o=10, g=5,
// G=1: sender busy [0, 10], arrival at 10+100 = 110, receive CPU
// [110, 110+10+1023·1] = 1143. A 10-byte message outside every range uses
// the defaults: arrival 1500+2500 = 4000, end 4000+1500+9·6 = 5554.
func TestRanges(t *testing.T) {
	p := DefaultParams()
	p.Ranges = []Range{{MinBytes: 1000, MaxBytes: 2000, L: 100, Overhead: 10, Gap: 5, GapPerByte: 1}}
	for _, tc := range []struct {
		size           uint64
		sender, recver int64
	}{{1024, 10, 1143}, {10, 1500, 5554}, {2000, 10, 110 + 10 + 1999}, {2001, 1500, 4000 + 1500 + 2000*6}} {
		s := goal.NewSchedule(2)
		var b goal.Builder
		b.Reset(0)
		b.Send(tc.size, 1, 0, 0, 0)
		if err := s.AppendRank(b.Block()); err != nil {
			t.Fatal(err)
		}
		b.Reset(1)
		b.Recv(tc.size, 0, 0, 0, 0)
		if err := s.AppendRank(b.Block()); err != nil {
			t.Fatal(err)
		}
		res, err := Run(s, Options{Params: p})
		if err != nil {
			t.Fatal(err)
		}
		if res.PerRank[0] != tc.sender || res.PerRank[1] != tc.recver {
			t.Errorf("%d bytes: ranks finish at %v, want [%d %d]", tc.size, res.PerRank, tc.sender, tc.recver)
		}
	}
}

func TestCostTable(t *testing.T) {
	p := DefaultParams()
	p.Ranges = []Range{{MinBytes: 0, MaxBytes: 9, L: 1}, {MinBytes: 20, MaxBytes: 29, L: 2}, {MinBytes: 30, MaxBytes: 30, L: 3}}
	ct := newCostTable(&p, 1)
	for size, want := range map[uint64]int64{0: 1, 9: 1, 10: 2500, 19: 2500, 20: 2, 29: 2, 30: 3, 31: 2500, 1 << 40: 2500} {
		if got := ct.of(size).L; got != want {
			t.Errorf("size %d: L=%d, want %d", size, got, want)
		}
	}
}

// TestFractionalPerByte: ranges may give times and per-byte costs with
// fractions of a ns, as calibration measures them on fast networks; the
// engine then counts ps and rounds the finishing times once. 1024 bytes
// at G = 0.5 ns/byte, L = 100.4, o = 10.6, g = 5: sender busy
// [0, 10.6] (11 ns), arrival at 111, receive CPU
// [111, 111 + 10.6 + 1023·0.5 = 633.1] (633 ns). With O = 0.25 too, the
// sender's CPU is busy 10.6 + 1023·0.25 = 266.35 ns (266), but the message
// still leaves at o + L (arrival 111), and the receiver pays
// max(O, G) = G per byte: the same 633.
func TestFractionalPerByte(t *testing.T) {
	for _, tc := range []struct {
		r              Range
		sender, recver int64
	}{
		{Range{MinBytes: 0, MaxBytes: 1 << 20, L: 100.4, Overhead: 10.6, Gap: 5, GapPerByte: 0.5}, 11, 633},
		{Range{MinBytes: 0, MaxBytes: 1 << 20, L: 100.4, Overhead: 10.6, Gap: 5, GapPerByte: 0.5, OverheadPerByte: 0.25}, 266, 633},
	} {
		p := DefaultParams()
		p.Ranges = []Range{tc.r}
		s := goal.NewSchedule(2)
		var b goal.Builder
		b.Reset(0)
		b.Send(1024, 1, 0, 0, 0)
		if err := s.AppendRank(b.Block()); err != nil {
			t.Fatal(err)
		}
		b.Reset(1)
		b.Recv(1024, 0, 0, 0, 0)
		if err := s.AppendRank(b.Block()); err != nil {
			t.Fatal(err)
		}
		res, err := Run(s, Options{Params: p})
		if err != nil {
			t.Fatal(err)
		}
		if res.PerRank[0] != tc.sender || res.PerRank[1] != tc.recver {
			t.Errorf("%+v: ranks finish at %v, want [%d %d]", tc.r, res.PerRank, tc.sender, tc.recver)
		}
	}
}

func TestPerByte(t *testing.T) {
	for _, tc := range []struct{ b, t, want int64 }{
		{1023, 6, 6138}, {1023, 500, 511500}, {0, 7000, 0}, {1 << 40, 0, 0},
		{MaxMessage, MaxParam * 1000, tooLong}, {MaxMessage, 1, MaxMessage},
		{MaxTime / 3, 3, MaxTime / 3 * 3}, {MaxTime/3 + 1, 3, tooLong},
	} {
		if got := newPerByte(tc.t).of(tc.b); got != tc.want {
			t.Errorf("%d bytes at %d ticks per byte = %d, want %d", tc.b, tc.t, got, tc.want)
		}
	}
}

// TestOverride: a what-if value replaces the parameter for every size,
// base and ranges, without changing a Params that shares the ranges.
func TestOverride(t *testing.T) {
	p := DefaultParams()
	p.Ranges = []Range{{MinBytes: 0, MaxBytes: 100, L: 1, GapPerByte: 0.5}, {MinBytes: 101, MaxBytes: 1 << 41, L: 2, GapPerByte: 0.1}}
	q := p
	if err := q.Override("G", 0.08); err != nil {
		t.Fatal(err)
	}
	if q.GapPerByte != 0.08 || q.Ranges[0].GapPerByte != 0.08 || q.Ranges[1].GapPerByte != 0.08 || q.Ranges[1].L != 2 {
		t.Errorf("after Override G: %s", q)
	}
	if p.Ranges[0].GapPerByte != 0.5 || p.Ranges[1].GapPerByte != 0.1 {
		t.Errorf("the original's ranges changed: %s", p)
	}
	for _, name := range []string{"L", "o", "g", "O"} {
		if err := q.Override(name, 7); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range q.Ranges {
		if r.L != 7 || r.Overhead != 7 || r.Gap != 7 || r.OverheadPerByte != 7 {
			t.Errorf("range %+v after overriding L, o, g, O", r)
		}
	}
	if err := q.Override("S", 1); err == nil {
		t.Error("Override S: no error")
	}
}

// TestParamsString: G is echoed in ns/byte and as a bandwidth, in the base
// parameters and in every range; a range up to MaxMessage, as calibration
// writes the last one, ends at "max", not at 2199023255552 bytes.
func TestParamsString(t *testing.T) {
	const base = "L=2500 ns, o=1500 ns, g=1000 ns, G=0.08 ns/byte (12.5 GB/s), O=0 ns/byte, S=65535 bytes" +
		"; 0..4096 bytes: L=1 ns, o=0 ns, g=0 ns, G=0 ns/byte (unlimited), O=0 ns/byte"
	for _, tc := range []struct {
		name string
		end  uint64
		want string
	}{
		{"bounded", 1 << 40, base + "; 4097..1099511627776 bytes: L=2 ns, o=0 ns, g=0 ns, G=2.5 ns/byte (400 MB/s), O=0 ns/byte"},
		{"up to MaxMessage", MaxMessage, base + "; 4097..max bytes: L=2 ns, o=0 ns, g=0 ns, G=2.5 ns/byte (400 MB/s), O=0 ns/byte"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultParams()
			p.GapPerByte = 0.08
			p.Ranges = []Range{{MinBytes: 0, MaxBytes: 4096, L: 1, GapPerByte: 0}, {MinBytes: 4097, MaxBytes: tc.end, L: 2, GapPerByte: 2.5}}
			if got := p.String(); got != tc.want {
				t.Errorf("String() =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
