package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/topology"
)

// simNetwork holds the congestion-model flags of `gopsim sim`:
// LogGOPSim's --network-type and --network-file, and gopsim's generated
// topologies, rank placement, routing and flow bandwidth.
type simNetwork struct {
	typ       string // --network-type
	file      string // --network-file
	topo      string // --topology
	mapping   string // --mapping
	ppn       int    // --ranks-per-host
	routing   string // --routing
	bandwidth float64
	hottest   int

	fs *flag.FlagSet // for --seed (a noise flag) and which flags were given

	// Set by network for report.
	desc    string
	mapDesc string
	seeded  bool // the placement is drawn from --seed
	model   topology.Model
	route   topology.Routing
	bw      float64
}

// defaultHottest is the number of links --hottest reports by default.
const defaultHottest = 10

func (n *simNetwork) flags(fs *flag.FlagSet) {
	n.fs = fs
	fs.StringVar(&n.typ, "network-type", "", "congestion `model`: none (LogGOPS's crossbar, the default), simple (LogGOPSim's: a message progresses at 1/k byte/ns, k the most messages on a link of its route) or flow (max-min fair sharing); simple and flow need --network-file or --topology")
	fs.StringVar(&n.file, "network-file", "", "network `FILE.dot` in LogGOPSim's format: nodes named H... are hosts in order of appearance, an edge's comment lists the destinations routed over it")
	fs.StringVar(&n.topo, "topology", "", "generate the network from `SPEC`: fattree:k=K,n=N[,oversub=O] (K^N hosts, d-mod-k routing, leaves with K/O up-links), torus:D0xD1[xD2][,p=P] (P hosts per router, dimension order), dragonfly:a=A,p=P,h=H[,g=G] (G groups of A routers with P hosts and H global links each; default G = A*H+1)")
	fs.StringVar(&n.mapping, "mapping", "", "rank placement `M`: linear (rank r on host r/ranks-per-host, LogGOPSim's; the default), round-robin (dealt over leaf switches or routers), random (seeded by --seed, or random:seed=S) or a file of one host index per rank per line (FILE or file:FILE)")
	fs.IntVar(&n.ppn, "ranks-per-host", 1, "`N` ranks per host for --mapping linear, round-robin and random (two ranks on one host exchange messages without the network)")
	fs.StringVar(&n.routing, "routing", "", "routing `R`: static (the dot file's comments, d-mod-k, dimension order, minimal; the default) or adaptive (at each choice of minimal next hops, the link with the fewest messages in flight when the message enters)")
	fs.Var(bandwidthQty(&n.bandwidth), "link-bandwidth", "flow model: bandwidth of every link in `bytes/ns`, or with a unit (12.5GB/s, 100Gb/s) (default 1, the rate of LogGOPSim's simple model)")
	fs.IntVar(&n.hottest, "hottest", defaultHottest, "report the `K` busiest links (busy time, bytes, peak concurrent messages)")
}

// given reports whether the flag name was set on the command line.
func (n *simNetwork) given(name string) bool {
	if n.fs == nil {
		return false
	}
	set := false
	n.fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// seed returns the value of --seed (defined by the noise flags), 0 if
// there is none.
func (n *simNetwork) seed() (uint64, error) {
	if n.fs == nil {
		return 0, nil
	}
	f := n.fs.Lookup("seed")
	if f == nil {
		return 0, nil
	}
	s, err := strconv.ParseUint(f.Value.String(), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("--seed %q: %w", f.Value.String(), err)
	}
	return s, nil
}

// network builds the run's network, nil for LogGOPS's crossbar (no
// network flags). With --network-type none and a topology it builds a
// None network, which the engine never consults, so that the result
// still names the topology; the flags that only the engine would use
// (--mapping, --routing, --hottest, --link-bandwidth) are refused.
func (n *simNetwork) network(numRanks int) (*topology.Network, error) {
	model, err := topology.ParseModel(n.typ)
	if err != nil {
		return nil, usageMistake(fmt.Errorf("--network-type: %w", err))
	}
	n.model = model
	hasGraph := n.file != "" || n.topo != ""
	if n.file != "" && n.topo != "" {
		return nil, usageMistake(fmt.Errorf("--network-file and --topology both given: use one"))
	}
	if !hasGraph {
		if model != topology.None {
			return nil, usageMistake(fmt.Errorf("--network-type %s needs a network: --network-file FILE.dot or --topology SPEC", model))
		}
		for _, f := range []struct {
			name string
			set  bool
		}{{"mapping", n.mapping != ""}, {"routing", n.routing != ""}, {"ranks-per-host", n.given("ranks-per-host") || n.ppn > 1},
			{"link-bandwidth", n.bandwidth != 0}, {"hottest", n.given("hottest")}} {
			if f.set {
				return nil, usageMistake(fmt.Errorf("--%s needs a network: --network-type simple or flow with --network-file FILE.dot or --topology SPEC", f.name))
			}
		}
		return nil, nil
	}
	if model == topology.None {
		// The result names the network, but no placement, routing or
		// links report changes anything the engine never consults.
		// (--ranks-per-host stays: it decides whether the named network
		// holds the ranks.)
		for _, f := range []struct {
			name string
			set  bool
		}{{"mapping", n.mapping != ""}, {"routing", n.routing != ""}, {"hottest", n.given("hottest")}} {
			if f.set {
				return nil, usageMistake(fmt.Errorf("--%s has no effect with --network-type none: the network is named in the result but never consulted (LogGOPS's crossbar); use --network-type simple or flow", f.name))
			}
		}
	}
	if n.bandwidth != 0 && model != topology.Flow {
		return nil, usageMistake(fmt.Errorf("--link-bandwidth applies to --network-type flow only (simple is LogGOPSim's 1 byte/ns; none has no links)"))
	}
	if n.bandwidth < 0 {
		return nil, usageMistake(fmt.Errorf("--link-bandwidth %g: want a positive number of bytes/ns", n.bandwidth))
	}
	if n.hottest < 0 {
		return nil, usageMistake(fmt.Errorf("--hottest %d: want 0 or more links", n.hottest))
	}
	if n.ppn == 0 && !n.given("ranks-per-host") {
		n.ppn = 1 // options built without the flags
	}
	if n.ppn < 1 {
		return nil, usageMistake(fmt.Errorf("--ranks-per-host %d: want at least 1", n.ppn))
	}
	switch strings.ToLower(n.routing) {
	case "", "static":
		n.route = topology.Static
	case "adaptive":
		n.route = topology.Adaptive
	default:
		return nil, fmt.Errorf("--routing %q: want static or adaptive", n.routing)
	}

	var g *topology.Graph
	if n.file != "" {
		if g, err = topology.ReadDotFile(n.file); err != nil {
			return nil, fmt.Errorf("--network-file: %w", err)
		}
	} else if g, err = topology.Generate(n.topo); err != nil {
		var se *topology.SyntaxError
		if errors.As(err, &se) {
			return nil, err // at --topology:1:COL
		}
		return nil, fmt.Errorf("--topology %s: %w", n.topo, err)
	}
	n.desc = fmt.Sprintf("%s (%d hosts, %d switches, %d links)", g, g.NumHosts(), g.NumNodes()-g.NumHosts(), g.NumLinks())

	ms, err := n.mappingSpec()
	if err != nil {
		return nil, err
	}
	m, err := ms.Build(g, numRanks)
	if err != nil {
		var se *topology.SyntaxError
		if errors.As(err, &se) { // a mapping file: FILE:LINE:COL says it all
			return nil, fmt.Errorf("--mapping: %w", err)
		}
		return nil, fmt.Errorf("--mapping %s: %w (%d ranks on %s; more ranks per host with --ranks-per-host)", ms, err, numRanks, n.desc)
	}
	n.mapDesc = ms.String()
	n.bw = n.bandwidth
	if n.bw == 0 {
		n.bw = 1
	}
	net, err := topology.NewNetwork(g, m, topology.Options{Model: model, Routing: n.route, Bandwidth: n.bandwidth})
	if err != nil {
		return nil, err
	}
	return net, nil
}

// mappingSpec parses --mapping: topology.ParseMapping's specs, the
// spelling round-robin, and a bare file name. Random placement takes its
// seed from --seed unless the spec gives one; --ranks-per-host applies
// unless the spec gives ppn.
func (n *simNetwork) mappingSpec() (topology.MappingSpec, error) {
	s := n.mapping
	kind, args, _ := strings.Cut(s, ":")
	switch strings.ToLower(kind) {
	case "round-robin":
		s = "roundrobin" + strings.TrimPrefix(s, kind)
	case "", "linear", "roundrobin", "rr", "random", "file":
	default:
		// Not a mapping kind: a mapping file.
		if _, err := os.Stat(s); err != nil {
			return topology.MappingSpec{}, fmt.Errorf("--mapping %q: not linear, round-robin, random or a readable mapping file: %w", s, err)
		}
		s = "file:" + s
	}
	ms, err := topology.ParseMapping(s)
	if err != nil {
		return ms, err // a SyntaxError at --mapping:1:COL
	}
	hasKey := func(key string) bool {
		for _, a := range strings.Split(args, ",") {
			if k, _, ok := strings.Cut(a, "="); ok && strings.EqualFold(k, key) {
				return true
			}
		}
		return false
	}
	if ms.Kind == "random" && !hasKey("seed") {
		if ms.Seed, err = n.seed(); err != nil {
			return ms, err
		}
		n.seeded = true
	}
	if ms.Kind == "file" {
		if n.ppn > 1 {
			return ms, fmt.Errorf("--ranks-per-host does not apply to a mapping file, which names each rank's host")
		}
	} else if n.ppn > 1 {
		if hasKey("ppn") && ms.PPN != n.ppn {
			return ms, fmt.Errorf("--mapping %q gives ppn=%d and --ranks-per-host %d: give one", n.mapping, ms.PPN, n.ppn)
		}
		ms.PPN = n.ppn
	}
	return ms, nil
}

// networkReport is the "network" part of the JSON result: the network
// and what the run did on it.
type networkReport struct {
	networkConfig
	Messages     int64     `json:"messages"`
	Recomputes   uint64    `json:"flow_recomputes,omitempty"`
	HottestLinks []hotLink `json:"hottest_links"`
}

// networkConfig is the network a run had, which results echo.
type networkConfig struct {
	Type          string  `json:"type"`
	Topology      string  `json:"topology"`
	Hosts         int     `json:"hosts"`
	Switches      int     `json:"switches"`
	Links         int     `json:"links"`
	Mapping       string  `json:"mapping"`
	Routing       string  `json:"routing"`
	BandwidthBpNs float64 `json:"link_bandwidth_bytes_per_ns"`
}

// hotLink is one of the busiest links of the run.
type hotLink struct {
	Link      string `json:"link"` // FROM->TO
	Index     int32  `json:"index"`
	From      string `json:"from"`
	To        string `json:"to"`
	Bytes     int64  `json:"bytes"`
	Messages  int64  `json:"messages"`
	BusyNs    int64  `json:"busy_ns"`
	PeakFlows int32  `json:"peak_flows"`
}

// config returns network net as results echo it; nil for none.
func (n *simNetwork) config(net *topology.Network) *networkConfig {
	if net == nil {
		return nil
	}
	g := net.Graph()
	c := &networkConfig{Type: net.Model().String(), Topology: n.desc, Hosts: g.NumHosts(), Switches: g.NumNodes() - g.NumHosts(),
		Links: g.NumLinks(), Mapping: n.mapDesc, Routing: "static", BandwidthBpNs: n.bw}
	if n.route == topology.Adaptive {
		c.Routing = "adaptive"
	}
	return c
}

func (n *simNetwork) report(net *topology.Network, res *sim.Result) *networkReport {
	if net == nil {
		return nil
	}
	g := net.Graph()
	r := &networkReport{networkConfig: *n.config(net), HottestLinks: []hotLink{}}
	if net.Model() == topology.None {
		return r
	}
	r.Messages = int64(net.Messages())
	if net.Model() == topology.Flow {
		r.Recomputes = net.Recomputes()
	}
	var end int64
	if res != nil {
		end = res.MaxTime
	}
	for _, s := range net.Hottest(n.hottest, end) {
		if s.Bytes == 0 && s.BusyNs == 0 {
			break // the rest carried nothing either
		}
		r.HottestLinks = append(r.HottestLinks, hotLink{Link: g.LinkName(s.Link), Index: s.Link, From: g.NodeName(s.From),
			To: g.NodeName(s.To), Bytes: s.Bytes, Messages: s.Messages, BusyNs: s.BusyNs, PeakFlows: s.PeakFlows})
	}
	return r
}

func (r *networkReport) text(w io.Writer) {
	if r == nil {
		return
	}
	switch r.Type {
	case "none":
		fmt.Fprintf(w, "network:    %s\n", r.describe())
		return
	case "simple":
		fmt.Fprintf(w, "network:    %s; %d messages\n", r.describe(), r.Messages)
	default:
		fmt.Fprintf(w, "network:    %s; %d messages, %d rate recomputations\n", r.describe(), r.Messages, r.Recomputes)
	}
	if len(r.HottestLinks) == 0 {
		fmt.Fprintln(w, "hottest links: none carried a message")
		return
	}
	fmt.Fprintf(w, "hottest links (busy: time with a message in flight on the link):\n")
	width := len("link")
	for _, l := range r.HottestLinks {
		width = max(width, len(l.Link))
	}
	fmt.Fprintf(w, "  %-*s %8s %14s %10s %14s %10s\n", width, "link", "index", "bytes", "messages", "busy_ns", "peak_flows")
	for _, l := range r.HottestLinks {
		fmt.Fprintf(w, "  %-*s %8d %14d %10d %14d %10d\n", width, l.Link, l.Index, l.Bytes, l.Messages, l.BusyNs, l.PeakFlows)
	}
}

// describe says what the network is: its model, links, topology,
// mapping and routing.
func (c *networkConfig) describe() string {
	switch c.Type {
	case "none":
		return fmt.Sprintf("none (LogGOPS crossbar) on %s, mapping %s: not consulted", c.Topology, c.Mapping)
	case "simple":
		return fmt.Sprintf("simple (LogGOPSim's, 1 byte/ns per link) on %s, mapping %s, %s routing", c.Topology, c.Mapping, c.Routing)
	}
	unit := "bytes"
	if c.BandwidthBpNs == 1 {
		unit = "byte"
	}
	return fmt.Sprintf("%s (max-min fair, %g %s/ns per link) on %s, mapping %s, %s routing", c.Type, c.BandwidthBpNs, unit, c.Topology, c.Mapping, c.Routing)
}
