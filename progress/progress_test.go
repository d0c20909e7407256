package progress

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestBarOutput(t *testing.T) {
	tests := []struct {
		name  string
		opt   Options
		total int64
		want  bool // something is written
	}{
		{name: "not a terminal", opt: Options{}, total: 10, want: false},
		{name: "quiet", opt: Options{Quiet: true}, total: 10, want: false},
		{name: "quiet terminal", opt: Options{Quiet: true, Terminal: true}, total: 10, want: false},
		{name: "terminal", opt: Options{Terminal: true}, total: 10, want: true},
		{name: "terminal, unknown total", opt: Options{Terminal: true}, total: 0, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			b := NewWith(&buf, tc.total, "ranks", tc.opt)
			if b.Enabled() != tc.want {
				t.Errorf("Enabled() = %v, want %v", b.Enabled(), tc.want)
			}
			for range 10 {
				b.Add(1)
			}
			b.Set(7)
			b.Finish()
			b.Finish()
			b.Add(1) // after Finish: nothing
			got := buf.String()
			if (got != "") != tc.want {
				t.Fatalf("output %q, want output: %v", got, tc.want)
			}
			if tc.want {
				if !strings.Contains(got, "ranks") {
					t.Errorf("output %q does not name the unit", got)
				}
				if !strings.HasSuffix(got, "\n") {
					t.Errorf("output %q does not end its line when finished", got)
				}
			}
		})
	}
}

func TestBarRateAndCount(t *testing.T) {
	var buf bytes.Buffer
	b := NewWith(&buf, 4, "points", Options{Terminal: true, Throttle: time.Nanosecond})
	for range 4 {
		b.Add(1)
	}
	b.Finish()
	out := buf.String()
	for _, want := range []string{"4/4", "points/s", "100%"} {
		if !strings.Contains(out, want) {
			t.Errorf("output %q lacks %q", out, want)
		}
	}
}

func TestNewNotTerminal(t *testing.T) {
	// A regular file is not a terminal: New draws nothing there.
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Fatal("a regular file reported as a terminal")
	}
	b := New(f, 3, "ranks", false)
	b.Add(3)
	b.Finish()
	if st, _ := f.Stat(); st.Size() != 0 {
		t.Errorf("%d bytes written to a file that is not a terminal", st.Size())
	}
	var nilBar *Bar
	nilBar.Add(1) // a nil bar is a no-op
	nilBar.Finish()
	nilBar.Poll(func() int64 { return 0 }, 0)()
}

func TestPoll(t *testing.T) {
	var buf lockedBuffer
	b := NewWith(&buf, 1000, "ops", Options{Terminal: true, Throttle: time.Nanosecond})
	var n atomic.Int64
	stop := b.Poll(n.Load, time.Millisecond)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 250 {
				n.Add(1)
				b.Add(0) // concurrent use of the bar itself
			}
		}()
	}
	wg.Wait()
	stop()
	stop() // twice is fine
	b.Finish()
	if out := buf.String(); !strings.Contains(out, "1000/1000") {
		t.Errorf("output %q does not reach 1000/1000", out)
	}
}

func TestAbandon(t *testing.T) {
	var buf bytes.Buffer
	b := NewWith(&buf, 10, "sizes", Options{Terminal: true, Throttle: time.Nanosecond})
	b.Add(3)
	b.Abandon()
	n := buf.Len()
	b.Add(3)
	b.Finish()
	if buf.Len() != n {
		t.Errorf("the bar drew after Abandon: %q", buf.String()[n:])
	}
	if !strings.HasSuffix(buf.String(), "\n") {
		t.Errorf("Abandon did not end the line: %q", buf.String())
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
