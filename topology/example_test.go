package topology_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/gopsim/gopsim/topology"
)

// Generate a fat tree from a --topology spec and follow a static route.
func ExampleGenerate() {
	g, err := topology.Generate("fattree:k=4,n=3,oversub=2")
	if err != nil {
		panic(err)
	}
	fmt.Println(g, g.NumHosts(), "hosts,", g.NumNodes()-g.NumHosts(), "switches,", g.NumLinks(), "links")
	var hops []string
	for _, l := range g.Route(nil, 0, 63) { // d-mod-k up, then down
		hops = append(hops, g.LinkName(l))
	}
	fmt.Println(strings.Join(hops, " "))
	// Output:
	// fattree:k=4,n=3,oversub=2 64 hosts, 32 switches, 256 links
	// H0->S0.0 S0.0->S1.1 S1.1->S2.13 S2.13->S1.13 S1.13->S0.15 S0.15->H63
}

// Read a LogGOPSim network file: hosts are the nodes named H*, and each
// edge's comment lists the destinations routed over it.
func ExampleReadDot() {
	const dot = `digraph net {
  H0 -> S0 [comment="*"];
  H1 -> S0 [comment="*"];
  H2 -> S1 [comment="*"];
  S0 -> S1 [comment="H2"];
  S0 -> H0 [comment="H0"];
  S0 -> H1 [comment="H1"];
  S1 -> S0 [comment="H0, H1"];
  S1 -> H2 [comment="H2"];
}`
	g, err := topology.ReadDot("net.dot", strings.NewReader(dot))
	if err != nil {
		panic(err)
	}
	var hops []string
	for _, l := range g.Route(nil, 2, 1) {
		hops = append(hops, g.LinkName(l))
	}
	fmt.Println(strings.Join(hops, " "))
	_, err = topology.ReadDot("bad.dot", strings.NewReader("digraph {\n  H0 -> S0\n  H1 -> S0\n  S0 -> H0 [comment=\"H0\"]\n  S0 -> H1\n}"))
	fmt.Println(err)
	// Output:
	// H2->S1 S1->S0 S0->H1
	// bad.dot:2:9: node S0 has 2 out-edges and none whose comment lists H1 (needed by the route from H0)
}

// Two messages share the S0->S1 link: under the Flow model each gets half
// of it. An engine parks an arrival whose message has not drained and
// gets it back from Wake.
func ExampleNetwork() {
	g, _ := topology.Generate("fattree:k=2,n=2")
	m, _ := topology.Linear(g, 4, 1)
	net, _ := topology.NewNetwork(g, m, topology.Options{Model: topology.Flow})
	a := net.Start(0, 0, 2, 1_000_000, 100) // rank 0 -> 2, a megabyte, id 100
	b := net.Start(0, 1, 3, 1_000_000, 101) // rank 1 -> 3: d-mod-k shares nothing with a
	c := net.Start(0, 1, 2, 1_000_000, 102) // rank 1 -> 2: shares links with a and b
	fmt.Printf("rates: %.3f %.3f %.3f bytes/ns\n", net.Rate(a), net.Rate(b), net.Rate(c))
	for _, h := range []int32{a, b, c} {
		fmt.Println(net.Arrive(h, 4000) == topology.Never) // not drained: parked
	}
	for {
		id, t, ok := net.Wake(topology.Never)
		if !ok {
			break
		}
		fmt.Println("message", id, "drained at", t, "ns")
	}
	// Output:
	// rates: 0.500 0.500 0.500 bytes/ns
	// true
	// true
	// true
	// message 100 drained at 2000000 ns
	// message 101 drained at 2000000 ns
	// message 102 drained at 2000000 ns
}

// Place ranks round-robin over the leaves of a fat tree.
func ExampleParseMapping() {
	g, _ := topology.Generate("fattree:k=4,n=2")
	spec, err := topology.ParseMapping("roundrobin")
	if err != nil {
		panic(err)
	}
	m, _ := spec.Build(g, 8)
	fmt.Println(spec, m)
	// Output:
	// roundrobin [0 4 8 12 1 5 9 13]
}

// Write a generated network for LogGOPSim's --network-file.
func ExampleWriteDot() {
	g, _ := topology.Generate("torus:2")
	if err := topology.WriteDot(os.Stdout, g); err != nil {
		panic(err)
	}
	// Output:
	// digraph "torus:2" {
	//   "H0";
	//   "H1";
	//   "R0";
	//   "R1";
	//   "H0" -> "R0" [comment="*"];
	//   "H1" -> "R1" [comment="*"];
	//   "R0" -> "H0" [comment="H0"];
	//   "R0" -> "R1" [comment="H1"];
	//   "R1" -> "H1" [comment="H1"];
	//   "R1" -> "R0" [comment="H0"];
	// }
}
