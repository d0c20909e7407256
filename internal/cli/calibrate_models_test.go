package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/sim"
)

// TestCalibrateModels fits the model family to a PRTT table made from
// LogGP's formulas, a burst table with a kink at f = 4 and a measured
// pack table, and simulates with the file it writes under every model.
func TestCalibrateModels(t *testing.T) {
	dir := t.TempDir()
	// L=3000, o=1000, g=4000, G=1, O=0: PRTT(1,0,s) = 2(L+2o+b), PRTT(8,0,s)
	// adds 7(g+b), PRTT(8,d,s) 7(o+d) with d = PRTT(1,0,s).
	var prtt strings.Builder
	prtt.WriteString("n,d_ns,s_bytes,prtt_ns\n")
	for _, s := range []int{1, 1024, 4096, 16384, 65536} {
		b := s - 1
		p1 := 2 * (3000 + 2000 + b)
		for k := range 5 {
			fmt.Fprintf(&prtt, "1,0,%d,%d\n8,0,%d,%d\n8,%d,%d,%d\n2,%d,%d,%d\n", s, p1+k%2, s, p1+7*(4000+b)+k%2,
				p1, s, p1+7*(1000+p1)+k%2, p1, s, p1+(1000+p1)+k%2)
		}
	}
	table := writeFile(t, dir, "prtt.csv", prtt.String())
	var burst strings.Builder
	burst.WriteString("n,d_ns,s_bytes,prtt_ns\n")
	for p := 1; p <= 16; p++ {
		fmt.Fprintf(&burst, "%d,0,8,%d\n", p, 6000+1000+max(p*1000, 1000+(p-4)*4000))
	}
	bt := writeFile(t, dir, "burst.csv", burst.String())
	out := filepath.Join(dir, "models.json")
	pack := filepath.Join(dir, "pack.csv")
	code, stdout, errOut := run("calibrate", "models", table, "--burst", bt, "--measure-pack", "--pack", pack, "-o", out, "--plot", filepath.Join(dir, "m.png"))
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"logfp:      f=4", "alphabeta:  alpha=", "plogp:      L=3000 ns, 5 sizes", "log3p:      20 size and stride points"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	p, err := sim.ReadParamsFile(out, sim.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	if p.L != 3000 || p.LogfP == nil || p.LogfP.F != 4 || p.PLogP == nil || p.Log3P == nil || p.AlphaBeta == nil {
		t.Fatalf("parameters %s", p)
	}
	code, stdout, errOut = run("sim", "--model", "all", "--params", out, writeFile(t, dir, "pp.goal", pingpong))
	if code != ExitOK || strings.Count(stdout, "\n") < 10 {
		t.Errorf("sim --model all with the fitted file: exit %d: %s%s", code, stdout, errOut)
	}
	if code, _, errOut := run("calibrate", "models"); code != ExitUsage || !strings.Contains(errOut, "one PRTT table expected") {
		t.Errorf("no table: exit %d: %s", code, errOut)
	}
}
