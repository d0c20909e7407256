package topology_test

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/topology"
)

// conformanceDir holds LogGOPSim's results with --network-type simple.
var conformanceDir = filepath.Join("..", "sim", "testdata", "conformance", "network")

// TestConformanceSimple runs every row of the network conformance table
// through refEngine and the Simple (or None) model and checks LogGOPSim's
// per-rank times exactly.
func TestConformanceSimple(t *testing.T) {
	f, err := os.Open(filepath.Join(conformanceDir, "expected.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	if len(rows) < 2 {
		t.Fatal("no conformance rows")
	}
	for _, row := range rows[1:] {
		t.Run(row[col["case"]], func(t *testing.T) {
			s, _, err := goal.ReadFile(filepath.Join(conformanceDir, row[col["goal"]]))
			if err != nil {
				t.Fatal(err)
			}
			model, err := topology.ParseModel(row[col["network_type"]])
			if err != nil {
				t.Fatal(err)
			}
			var g *topology.Graph
			if file := row[col["network_file"]]; file != "" {
				g, err = topology.ReadDotFile(filepath.Join(conformanceDir, file))
			} else {
				g, err = topology.Generate("torus:" + strconv.Itoa(s.NumRanks)) // unused by None
			}
			if err != nil {
				t.Fatal(err)
			}
			m, err := topology.Linear(g, s.NumRanks, 1)
			if err != nil {
				t.Fatal(err)
			}
			net, err := topology.NewNetwork(g, m, topology.Options{Model: model})
			if err != nil {
				t.Fatal(err)
			}
			got, err := newRefEngine(s, net).run()
			if err != nil {
				t.Fatal(err)
			}
			var gs []string
			for _, x := range got {
				gs = append(gs, strconv.FormatInt(x, 10))
			}
			if want := row[col["per_rank_times_ns"]]; strings.Join(gs, ";") != want {
				t.Errorf("per-rank times %s, LogGOPSim %s", strings.Join(gs, ";"), want)
			}
			if net.InFlight() != 0 {
				t.Errorf("%d messages still in the network", net.InFlight())
			}
		})
	}
}

// TestEngineHookFlow runs the network cases through refEngine with the
// Flow model: on these cases max-min sharing gives LogGOPSim's times too
// (one message alone at 1 byte/ns, two sharing a link at half of it).
func TestEngineHookFlow(t *testing.T) {
	g, err := topology.ReadDotFile(filepath.Join(conformanceDir, "two-switch.dot"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ goal, want string }{
		{"one-flow.goal", "1000000;1;7001494;1"},
		{"two-flows.goal", "2000000;2000000;8001494;8001494"},
	} {
		t.Run(tc.goal, func(t *testing.T) {
			s, _, err := goal.ReadFile(filepath.Join(conformanceDir, tc.goal))
			if err != nil {
				t.Fatal(err)
			}
			m, _ := topology.Linear(g, s.NumRanks, 1)
			net, _ := topology.NewNetwork(g, m, topology.Options{Model: topology.Flow})
			got, err := newRefEngine(s, net).run()
			if err != nil {
				t.Fatal(err)
			}
			var gs []string
			for _, x := range got {
				gs = append(gs, strconv.FormatInt(x, 10))
			}
			if strings.Join(gs, ";") != tc.want {
				t.Errorf("per-rank times %s, want %s", strings.Join(gs, ";"), tc.want)
			}
		})
	}
}

// TestSimpleAgainstLogGOPSim runs testdata/simple/*.txt: 96 random
// schedules without dependencies on LogGOPSim-format networks (the golden
// files of WriteDot and the conformance network; in 32 of them messages
// in flight share a link), each with the per-rank times LogGOPSim
// (76451de, -O2) printed with --network-type simple. Each file
// is a `network FILE` line, the GOAL text, a `----` line and the times.
// (LogGOPSim aborts, on an assertion, whenever a drained message's
// arrival has to wait for a busy receiver: it queries the message again
// after deleting it. Such schedules are not among the cases; gopsim keeps
// a drained message drained.)
func TestSimpleAgainstLogGOPSim(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "simple", "*.txt"))
	if len(files) == 0 {
		t.Fatal("no cases in testdata/simple")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			text, want, ok := strings.Cut(string(data), "----\n")
			if !ok {
				t.Fatal("no ---- line")
			}
			var network string
			var goalText strings.Builder
			for _, line := range strings.SplitAfter(text, "\n") {
				switch {
				case strings.HasPrefix(line, "#"):
				case strings.HasPrefix(line, "network "):
					network = strings.TrimSpace(strings.TrimPrefix(line, "network "))
				default:
					goalText.WriteString(line)
				}
			}
			s, err := goal.ReadText(strings.NewReader(goalText.String()), file)
			if err != nil {
				t.Fatal(err)
			}
			g, err := topology.ReadDotFile(filepath.Join(filepath.Dir(file), network))
			if err != nil {
				t.Fatal(err)
			}
			m, _ := topology.Linear(g, s.NumRanks, 1)
			net, _ := topology.NewNetwork(g, m, topology.Options{Model: topology.Simple})
			got, err := newRefEngine(s, net).run()
			if err != nil {
				t.Fatal(err)
			}
			var gs []string
			for _, x := range got {
				gs = append(gs, strconv.FormatInt(x, 10))
			}
			if w := strings.TrimSpace(want); strings.Join(gs, " ") != w {
				t.Errorf("per-rank times\n%s\nLogGOPSim\n%s", strings.Join(gs, " "), w)
			}
		})
	}
}
