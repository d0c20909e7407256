package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gopsim/gopsim/internal/testenv"
)

const warmupGood = `# gopsim-warmup 2 Open MPI v4.1.4, package: Debian OpenMPI
contact 300000 2000
call MPI_Irecv 15000 60
call MPI_Allgather 7000 900
call MPI_Allreduce 50000 1000
call MPI_Comm_split 200000 6500
# end
`

func TestReadWarmup(t *testing.T) {
	w, err := readWarmup(strings.NewReader(warmupGood), "out")
	if err != nil {
		t.Fatal(err)
	}
	if w.Library != "Open MPI v4.1.4, package: Debian OpenMPI" || w.Contact != (WarmupCost{"contact", 300000, 2000}) || len(w.Calls) != 4 ||
		w.Calls[3] != (WarmupCost{"MPI_Comm_split", 200000, 6500}) {
		t.Errorf("read %+v", w)
	}
	for _, tc := range []struct {
		name, in, want string
		is             error
	}{
		{"empty", "", "out:1:1: the output ends, want \"# gopsim-warmup VERSION LIBRARY\"", io.ErrUnexpectedEOF},
		{"foreign", "hello\n", "out:1:1: \"hello\", want", ErrProtocol},
		{"version", "# gopsim-warmup 1 X\n", "out:1:17: version \"1\", want 2: rebuild it", ErrProtocol},
		{"program error", "# gopsim-warmup 2 X\nerror: needs exactly 2 ranks, has 3\n", "out:2:1: gopsim-warmup: needs exactly 2 ranks, has 3", ErrMPIProgram},
		{"contact missing", "# gopsim-warmup 2 X\ncall MPI_Barrier 1 2\n", "out:2:1: \"call MPI_Barrier 1 2\", want \"contact FIRST_NS WARM_NS\"", ErrProtocol},
		{"negative", "# gopsim-warmup 2 X\ncontact -5 2\n", "out:2:2: field 2 \"-5\": want a time in 0..", ErrProtocol},
		{"not a number", "# gopsim-warmup 2 X\ncontact 5 2\ncall MPI_Bcast 1 x\n", "out:3:4: field 4 \"x\"", ErrProtocol},
		{"not MPI", "# gopsim-warmup 2 X\ncontact 5 2\ncall Bcast 1 2\n", "out:3:1: \"call Bcast 1 2\", want \"call MPI_NAME", ErrProtocol},
		{"twice", "# gopsim-warmup 2 X\ncontact 5 2\ncall MPI_Bcast 1 2\ncall MPI_Bcast 1 2\n", "out:4:6: MPI_Bcast probed twice", ErrProtocol},
		{"no calls", "# gopsim-warmup 2 X\ncontact 5 2\n# end\n", "out:3:1: no call line", ErrProtocol},
		{"cut", "# gopsim-warmup 2 X\ncontact 5 2\ncall MPI_Bcast 1 2\n", "out:4:1: the output ends, want \"call NAME FIRST_NS WARM_NS\" or \"# end\"", io.ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readWarmup(strings.NewReader(tc.in), "out")
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, tc.is) {
				t.Errorf("error %v\nwant one containing %q, wrapping %v", err, tc.want, tc.is)
			}
		})
	}
}

func TestWarmupCosts(t *testing.T) {
	w, err := readWarmup(strings.NewReader(warmupGood), "out")
	if err != nil {
		t.Fatal(err)
	}
	run2 := w
	run2.Calls = append([]WarmupCost(nil), w.Calls...)
	run2.Contact.First, run2.Calls[0].First = 100000, 5 // below the warm time: no extra
	run3 := run2
	run3.Contact.First = 400000
	m := medianWarmup([]Warmup{w, run2, run3})
	if m.Runs != 3 || m.ContactRuns != 3 || m.Contact.First != 300000 || m.Calls[0].First != 5 {
		t.Errorf("median %+v", m)
	}
	// A run whose contact was not timed counts for the calls only.
	untimed, err := readWarmup(strings.NewReader(strings.Replace(warmupGood, "contact 300000", "contact -", 1)), "out")
	if err != nil || untimed.Contact.First != contactUnknown {
		t.Fatalf("contact - read as %+v, %v", untimed.Contact, err)
	}
	if u := medianWarmup([]Warmup{untimed, run2, run3}); u.ContactRuns != 2 || u.Contact.First != 400000 || u.Runs != 3 {
		t.Errorf("median with an untimed contact: %+v", u)
	}
	c := m.Costs()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	// Sorted by name; the split's warm cost less an allgather and Open
	// MPI's three allreduces.
	got := fmt.Sprintf("%v %v %v", c.FirstContactNs, c.CommCreateNs, c.FirstCall)
	want := "298000 2600 [{MPI_Allgather 6100} {MPI_Allreduce 49000} {MPI_Comm_split 193500} {MPI_Irecv 0}]"
	if got != want {
		t.Errorf("costs %s\nwant  %s", got, want)
	}
	m.Library = "MPICH Version: 4.0.2" // one allreduce
	if c := m.Costs(); c.CommCreateNs != 4600 {
		t.Errorf("MPICH: communicator creation %v ns, want 4600", c.CommCreateNs)
	}
	if c.FirstCallNs("MPI_Allreduce") != 49000 || c.FirstCallNs("MPI_Send") != 0 {
		t.Errorf("FirstCallNs: %v %v", c.FirstCallNs("MPI_Allreduce"), c.FirstCallNs("MPI_Send"))
	}
}

func FuzzReadWarmup(f *testing.F) {
	f.Add(warmupGood)
	f.Add("# gopsim-warmup 2 X\ncontact 5 2\ncall MPI_Bcast 1 2\n# end\n")
	f.Add("# gopsim-warmup 2 X\ncontact - 2\ncall MPI_Bcast 1 2\n# end\n")
	f.Fuzz(func(t *testing.T, in string) {
		w, err := readWarmup(strings.NewReader(in), "out")
		if err != nil {
			var oe *MPIOutputError
			if !errors.As(err, &oe) || oe.Line < 1 {
				t.Fatalf("error %v is not an *MPIOutputError with a line", err)
			}
			return
		}
		if err := medianWarmup([]Warmup{w}).Costs().Validate(); err != nil {
			t.Fatalf("costs of an accepted output: %v", err)
		}
	})
}

// toolSetup is the one-time build of an MPI program of the Makefile for
// the tests (needTool).
type toolSetup struct {
	once      sync.Once
	prog, msg string
	err       error
}

var warmupSetup, packSetup toolSetup

// needWarmup returns gopsim-warmup, built by the Makefile.
func needWarmup(t *testing.T) string {
	return needTool(t, &warmupSetup, "gopsim-warmup", "the one-time cost probe")
}

// needTool returns bin/name, built once by the Makefile with the default
// mpicc. Without mpicc, mpirun or make the test skips, unless $CI is set:
// then it fails.
func needTool(t *testing.T, s *toolSetup, name, what string) string {
	t.Helper()
	s.once.Do(func() {
		for _, tool := range []string{"mpicc", "mpirun", "make"} {
			if _, err := exec.LookPath(tool); err != nil {
				s.msg = tool + " not found: " + what + " needs an MPI (make mpi-deps)"
				return
			}
		}
		root, err := filepath.Abs("..")
		if err != nil {
			s.err = err
			return
		}
		if out, err := exec.Command("make", "--no-print-directory", "-s", "-C", root, "bin/"+name).CombinedOutput(); err != nil {
			s.err = fmt.Errorf("make bin/%s: %v\n%s", name, err, out)
			return
		}
		s.prog = filepath.Join(root, "bin", name)
	})
	if s.msg != "" {
		testenv.Missing(t, s.msg)
	}
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.prog
}

// TestMeasureWarmup runs the probe for real on two ranks of this host.
// One-time costs on a shared machine vary run to run, so only what must
// hold is checked: every probe is there, and the first contact with a
// peer costs more than a warm round trip (it sets up the connection).
func TestMeasureWarmup(t *testing.T) {
	prog := needWarmup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w, err := MeasureWarmup(ctx, WarmupOptions{Runs: 2, Reps: 5, Launcher: []string{"mpirun", "-np", "2", "--oversubscribe"}, Program: prog, Env: mpiRootEnv})
	if err != nil {
		t.Fatal(err)
	}
	if w.Runs != 2 || len(w.Calls) < 15 || w.Library == "" {
		t.Fatalf("measured %+v", w)
	}
	if w.Contact.First <= w.Contact.Warm || w.Contact.Warm <= 0 {
		t.Errorf("first round trip %d ns, warm %d ns: want the first dearer", w.Contact.First, w.Contact.Warm)
	}
	c := w.Costs()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.FirstCallNs("MPI_Comm_split") <= 0 {
		t.Errorf("the first MPI_Comm_split costs nothing extra: %+v", w.Calls)
	}
	_, err = MeasureWarmup(ctx, WarmupOptions{Runs: 1, Launcher: []string{"mpirun", "-np", "3", "--oversubscribe"}, Program: prog, Env: mpiRootEnv})
	if !errors.Is(err, ErrMPIProgram) || !strings.Contains(err.Error(), "needs exactly 2 ranks, has 3") {
		t.Errorf("3 ranks: error %v", err)
	}
}
