package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// networkResult is the part of `gopsim sim --json` these tests read.
type networkResult struct {
	PerRank []int64 `json:"per_rank_ns"`
	Network *struct {
		Type         string  `json:"type"`
		Topology     string  `json:"topology"`
		Mapping      string  `json:"mapping"`
		Routing      string  `json:"routing"`
		Bandwidth    float64 `json:"link_bandwidth_bytes_per_ns"`
		Messages     int64   `json:"messages"`
		HottestLinks []struct {
			Link      string `json:"link"`
			From      string `json:"from"`
			To        string `json:"to"`
			Bytes     int64  `json:"bytes"`
			BusyNs    int64  `json:"busy_ns"`
			PeakFlows int32  `json:"peak_flows"`
		} `json:"hottest_links"`
	} `json:"network"`
}

func joinInts(xs []int64) string {
	var s []string
	for _, x := range xs {
		s = append(s, strconv.FormatInt(x, 10))
	}
	return strings.Join(s, ";")
}

// conformanceNet is LogGOPSim's two-switch network and its two cases
// (sim/testdata/conformance/network): one 1,000,000-byte message 0 -> 2,
// and two (0 -> 2, 1 -> 3) sharing the link S0 -> S1.
var conformanceNet = filepath.Join("..", "..", "sim", "testdata", "conformance", "network")

// TestSimNetworkFlags runs `gopsim sim --json` with the network flags and
// checks the times (LogGOPSim's where it has them) and the "network" part
// of the result.
func TestSimNetworkFlags(t *testing.T) {
	dir := t.TempDir()
	dot := filepath.Join(conformanceNet, "two-switch.dot")
	one := filepath.Join(conformanceNet, "one-flow.goal")
	two := filepath.Join(conformanceNet, "two-flows.goal")
	// Ranks 0 and 2 on H0 and H1 (switch S0), ranks 1 and 3 on H2 and H3
	// (S1): the two messages stay under their own switch.
	mapFile := writeFile(t, dir, "map.txt", "# rank r's host, one per line\n0\n2\n1\n3\n")
	type link struct {
		name         string
		bytes, busy  int64
		peak, number int
	}
	for _, tc := range []struct {
		name    string
		args    []string
		times   string // per-rank ns
		typ     string // "" for no network part
		topo    string // prefix
		mapping string
		routing string
		msgs    int64
		hot     *link // the hottest link, with the number of links listed
	}{
		{name: "no network flags", args: []string{two}, times: "4000;4000;6005494;6005494"},
		{name: "simple, LogGOPSim's row", args: []string{"--network-type", "simple", "--network-file", dot, two},
			times: "2000000;2000000;8001494;8001494", typ: "simple", topo: dot + " (4 hosts, 2 switches, 10 links)",
			mapping: "linear", routing: "static", msgs: 2, hot: &link{"S0->S1", 2000000, 2000000, 2, 5}},
		{name: "simple, one flow", args: []string{"--network-type", "simple", "--network-file", dot, one},
			times: "1000000;1;7001494;1", typ: "simple", topo: dot, mapping: "linear", routing: "static", msgs: 1,
			hot: &link{"H0->S0", 1000000, 1000000, 1, 3}},
		{name: "flow", args: []string{"--network-type", "flow", "--network-file", dot, two},
			times: "2000000;2000000;8001494;8001494", typ: "flow", topo: dot, mapping: "linear", routing: "static", msgs: 2,
			hot: &link{"S0->S1", 2000000, 2000000, 2, 5}},
		{name: "--hottest 1", args: []string{"--network-type", "flow", "--network-file", dot, "--hottest", "1", two},
			times: "2000000;2000000;8001494;8001494", typ: "flow", topo: dot, mapping: "linear", routing: "static", msgs: 2,
			hot: &link{"S0->S1", 2000000, 2000000, 2, 1}},
		{name: "--link-bandwidth 2: half the time", args: []string{"--network-type", "flow", "--network-file", dot, "--link-bandwidth", "2", one},
			times: "500000;1;6501494;1", typ: "flow", topo: dot, mapping: "linear", routing: "static", msgs: 1,
			hot: &link{"H0->S0", 1000000, 500000, 1, 3}},
		{name: "mapping file: no shared link", args: []string{"--network-type", "simple", "--network-file", dot, "--mapping", mapFile, two},
			times: "1000000;1000000;7001494;7001494", typ: "simple", topo: dot, mapping: "file:" + mapFile, routing: "static", msgs: 2},
		{name: "file: prefix", args: []string{"--network-type", "simple", "--network-file", dot, "--mapping", "file:" + mapFile, two},
			times: "1000000;1000000;7001494;7001494", typ: "simple", topo: dot, mapping: "file:" + mapFile, routing: "static", msgs: 2},
		{name: "two ranks per host share H0's links", args: []string{"--network-type", "flow", "--network-file", dot, "--ranks-per-host", "2", two},
			times: "2000000;2000000;8001494;8001494", typ: "flow", topo: dot, mapping: "linear:ppn=2", routing: "static", msgs: 2,
			hot: &link{"H0->S0", 2000000, 2000000, 2, 2}},
		{name: "round-robin", args: []string{"--network-type", "flow", "--topology", "fattree:k=2,n=2", "--mapping", "round-robin", two},
			typ: "flow", topo: "fattree:k=2,n=2 (4 hosts, 4 switches, 16 links)", mapping: "roundrobin", routing: "static", msgs: 2},
		{name: "random from --seed", args: []string{"--network-type", "flow", "--topology", "torus:4x4", "--mapping", "random", "--seed", "7", two},
			typ: "flow", topo: "torus:4x4 (16 hosts, 16 switches, 96 links)", mapping: "random:seed=7", routing: "static", msgs: 2},
		{name: "adaptive", args: []string{"--network-type", "simple", "--topology", "fattree:k=4,n=2,oversub=2", "--routing", "adaptive", two},
			typ: "simple", topo: "fattree:k=4,n=2,oversub=2 (16 hosts, 6 switches, 48 links)", mapping: "linear", routing: "adaptive", msgs: 2},
		{name: "none with a topology: LogGOPS, named", args: []string{"--network-type", "none", "--network-file", dot, two},
			times: "4000;4000;6005494;6005494", typ: "none", topo: dot, mapping: "linear", routing: "static", msgs: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(append([]string{"sim", "--json"}, tc.args...)...)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var r networkResult
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if tc.times != "" && joinInts(r.PerRank) != tc.times {
				t.Errorf("per-rank times %s, want %s", joinInts(r.PerRank), tc.times)
			}
			if tc.typ == "" {
				if r.Network != nil || strings.Contains(out, `"network"`) {
					t.Errorf("a network part without network flags:\n%s", out)
				}
				return
			}
			n := r.Network
			if n == nil {
				t.Fatalf("no network part:\n%s", out)
			}
			if n.Type != tc.typ || !strings.HasPrefix(n.Topology, tc.topo) || n.Mapping != tc.mapping || n.Routing != tc.routing || n.Messages != tc.msgs {
				t.Errorf("network %q on %q, mapping %q, routing %q, %d messages; want %q on %q..., %q, %q, %d",
					n.Type, n.Topology, n.Mapping, n.Routing, n.Messages, tc.typ, tc.topo, tc.mapping, tc.routing, tc.msgs)
			}
			if n.HottestLinks == nil {
				t.Errorf("hottest_links is null, want a list")
			}
			if tc.typ == "none" && len(n.HottestLinks) != 0 {
				t.Errorf("none: %d hottest links, want none", len(n.HottestLinks))
			}
			if h := tc.hot; h != nil {
				if len(n.HottestLinks) != h.number {
					t.Fatalf("%d hottest links, want %d", len(n.HottestLinks), h.number)
				}
				l := n.HottestLinks[0]
				if l.Link != h.name || l.From+"->"+l.To != h.name || l.Bytes != h.bytes || l.BusyNs != h.busy || int(l.PeakFlows) != h.peak {
					t.Errorf("hottest link %+v, want %s, %d bytes, busy %d ns, peak %d", l, h.name, h.bytes, h.busy, h.peak)
				}
			}
		})
	}

	// The same seed gives the same placement; the JSON is byte-identical.
	args := []string{"sim", "--json", "--network-type", "flow", "--topology", "fattree:k=4,n=2,oversub=4", "--mapping", "random", "--seed", "11", two}
	_, a, _ := run(args...)
	_, b, _ := run(args...)
	if a != b || !strings.Contains(a, `"mapping": "random:seed=11"`) {
		t.Errorf("two runs with --seed 11 differ or do not echo the seed")
	}
}

// TestSimNetworkJSONField checks the exact shape of the "network" part:
// its keys, in order, and those of a hottest link.
func TestSimNetworkJSONField(t *testing.T) {
	code, out, errOut := run("sim", "--json", "--network-type", "simple", "--network-file",
		filepath.Join(conformanceNet, "two-switch.dot"), "--hottest", "1", filepath.Join(conformanceNet, "two-flows.goal"))
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Network json.RawMessage `json:"network"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(doc.Network, &fields); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"type", "topology", "mapping", "routing", "messages", "hottest_links"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("network part has no %q:\n%s", k, doc.Network)
		}
	}
	var links []map[string]any
	if err := json.Unmarshal(fields["hottest_links"], &links); err != nil || len(links) != 1 {
		t.Fatalf("hottest_links %s: %v", fields["hottest_links"], err)
	}
	want := map[string]any{"link": "S0->S1", "from": "S0", "to": "S1", "bytes": 2e6, "busy_ns": 2e6, "peak_flows": 2.0}
	for k, v := range want {
		if links[0][k] != v {
			t.Errorf("hottest link %q = %v, want %v", k, links[0][k], v)
		}
	}
}

// TestSimNetworkText: the text result names the network and lists the
// hottest links with their units.
func TestSimNetworkText(t *testing.T) {
	code, out, errOut := run("sim", "--network-type", "flow", "--network-file", filepath.Join(conformanceNet, "two-switch.dot"),
		filepath.Join(conformanceNet, "two-flows.goal"))
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"network:    flow (max-min fair, 1 byte/ns per link) on ",
		"two-switch.dot (4 hosts, 2 switches, 10 links), mapping linear, static routing; 2 messages",
		"hottest links",
		"busy_ns",
		"peak_flows",
		"S0->S1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	if code, out, _ := run("sim", filepath.Join(conformanceNet, "two-flows.goal")); code != ExitOK || strings.Contains(out, "network:") {
		t.Errorf("without network flags: exit %d, output names a network:\n%s", code, out)
	}
}

// TestSimNetworkErrors: wrong combinations and bad files are errors that
// name the flag, the file and the line.
func TestSimNetworkErrors(t *testing.T) {
	dir := t.TempDir()
	dot := filepath.Join(conformanceNet, "two-switch.dot")
	goalFile := filepath.Join(conformanceNet, "two-flows.goal")
	bad := writeFile(t, dir, "bad.dot", "digraph net {\n  H0 -> S0 [comment=\"*\"];\n  H1 -> [comment=\"*\"];\n}\n")
	badMap := writeFile(t, dir, "map.txt", "0\nzero\n1\n2\n")
	shortMap := writeFile(t, dir, "short.txt", "0\n1\n")
	unreadable := filepath.Join(dir, "secret.dot")
	if err := os.WriteFile(unreadable, []byte("digraph{}"), 0); err != nil {
		t.Fatal(err)
	}
	usageRows := map[string]bool{"type without network": true, "unknown type": true, "file and topology": true,
		"mapping without network": true, "routing without network": true, "hottest without network": true,
		"bandwidth without network": true, "bandwidth with simple": true, "negative bandwidth": true,
		"bad ranks per host": true, "negative hottest": true, "--seed beside random:seed=": true, "--seed without anything random": true,
		"mapping with none": true, "routing with none": true, "hottest with none": true, "--seed with none and no noise": true}
	for _, tc := range []struct {
		name string
		args []string
		want []string // substrings of the error
	}{
		{"type without network", []string{"--network-type", "flow"}, []string{"--network-type flow needs a network", "--network-file", "--topology"}},
		{"unknown type", []string{"--network-type", "mesh", "--network-file", dot}, []string{"--network-type", `"mesh"`, "none, simple or flow"}},
		{"missing dot file", []string{"--network-type", "simple", "--network-file", filepath.Join(dir, "nope.dot")}, []string{"--network-file", "nope.dot", "no such file"}},
		{"dot syntax error", []string{"--network-type", "simple", "--network-file", bad}, []string{"--network-file", "bad.dot:3:"}},
		{"file and topology", []string{"--network-type", "flow", "--network-file", dot, "--topology", "torus:4"}, []string{"--network-file and --topology"}},
		{"bad spec", []string{"--network-type", "flow", "--topology", "fattree:k=4"}, []string{"--topology:1:", "fattree needs k, n"}},
		{"more ranks than hosts", []string{"--network-type", "flow", "--topology", "torus:3"}, []string{"--mapping linear", "4 ranks do not fit on 3 hosts", "--ranks-per-host"}},
		{"more ranks than slots", []string{"--network-type", "flow", "--topology", "torus:1", "--ranks-per-host", "2"}, []string{"4 ranks do not fit on 1 hosts with 2 rank(s) per host"}},
		{"mapping without network", []string{"--mapping", "random"}, []string{"--mapping needs a network"}},
		{"routing without network", []string{"--routing", "adaptive"}, []string{"--routing needs a network"}},
		{"hottest without network", []string{"--hottest", "3"}, []string{"--hottest needs a network"}},
		{"bandwidth without network", []string{"--link-bandwidth", "2"}, []string{"--link-bandwidth needs a network"}},
		// none names the network in the result but never consults it: a
		// placement, a routing or a links report would change nothing.
		{"mapping with none", []string{"--network-type", "none", "--network-file", dot, "--mapping", "round-robin"}, []string{"--mapping has no effect with --network-type none", "never consulted", "simple or flow"}},
		{"routing with none", []string{"--network-type", "none", "--topology", "torus:4", "--routing", "adaptive"}, []string{"--routing has no effect with --network-type none"}},
		{"hottest with none", []string{"--topology", "torus:4", "--hottest", "3"}, []string{"--hottest has no effect with --network-type none"}},
		{"--seed with none and no noise", []string{"--network-type", "none", "--topology", "torus:4", "--seed", "7"}, []string{"--seed has no effect"}},
		{"bandwidth with simple", []string{"--network-type", "simple", "--network-file", dot, "--link-bandwidth", "2"}, []string{"--link-bandwidth applies to --network-type flow only"}},
		{"negative bandwidth", []string{"--network-type", "flow", "--network-file", dot, "--link-bandwidth", "-1"}, []string{"--link-bandwidth -1"}},
		{"bad routing", []string{"--network-type", "flow", "--network-file", dot, "--routing", "sideways"}, []string{`--routing "sideways"`, "static or adaptive"}},
		{"bad ranks per host", []string{"--network-type", "flow", "--network-file", dot, "--ranks-per-host", "0"}, []string{"--ranks-per-host 0"}},
		{"negative hottest", []string{"--network-type", "flow", "--network-file", dot, "--hottest", "-1"}, []string{"--hottest -1"}},
		{"unknown mapping", []string{"--network-type", "flow", "--network-file", dot, "--mapping", "snake"}, []string{`--mapping "snake"`, "linear, round-robin, random", "no such file"}},
		{"bad mapping parameter", []string{"--network-type", "flow", "--network-file", dot, "--mapping", "linear:seed=4"}, []string{"--mapping:1:", `"seed"`}},
		{"--seed beside random:seed=", []string{"--network-type", "flow", "--network-file", dot, "--mapping", "random:seed=3", "--seed", "7"}, []string{"--seed has no effect"}},
		{"--seed without anything random", []string{"--seed", "7"}, []string{"--seed has no effect", "nothing in this run is random"}},
		{"mapping file error", []string{"--network-type", "flow", "--network-file", dot, "--mapping", badMap}, []string{"--mapping", "map.txt:2:1", "zero"}},
		{"mapping file too short", []string{"--network-type", "flow", "--network-file", dot, "--mapping", shortMap}, []string{"short.txt:3:1", "2 ranks listed, want 4"}},
		{"ppn twice", []string{"--network-type", "flow", "--topology", "torus:8", "--mapping", "linear:ppn=4", "--ranks-per-host", "2"}, []string{"ppn=4", "--ranks-per-host 2"}},
		{"ppn with a file", []string{"--network-type", "flow", "--network-file", dot, "--mapping", shortMap, "--ranks-per-host", "2"}, []string{"--ranks-per-host does not apply to a mapping file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := run(append(append([]string{"sim"}, tc.args...), goalFile)...)
			// Flags that need or exclude each other, and values no
			// network takes, are mistakes of the command line.
			want := ExitError
			if usageRows[tc.name] {
				want = ExitUsage
			}
			if code != want {
				t.Fatalf("exit %d, want %d: %s", code, want, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("error %q lacks %q", strings.TrimSpace(errOut), w)
				}
			}
		})
	}
	if os.Geteuid() != 0 { // root reads anything
		code, _, errOut := run("sim", "--network-type", "simple", "--network-file", unreadable, goalFile)
		if code != ExitError || !strings.Contains(errOut, "secret.dot") || !strings.Contains(errOut, "permission denied") {
			t.Errorf("unreadable dot file: exit %d, %q", code, errOut)
		}
	}
}
