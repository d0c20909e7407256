package topology

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteDot writes g in LogGOPSim's dot format with its static routes:
// every node first, in node order (so hosts keep their indices), then
// every link grouped by source node in port order, with the comment
// listing the destination hosts routed over it ("*" for a node's single
// out-link). LogGOPSim (--network-type simple --network-file) and
// ReadDot then route every message as g.Route does. The file lists, for
// every switch, every host: it grows as nodes × hosts.
func WriteDot(w io.Writer, g *Graph) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "digraph %s {\n", dotQuote(g.desc))
	for v := int32(0); v < g.numNodes; v++ {
		fmt.Fprintf(bw, "  %s;\n", dotQuote(g.NodeName(v)))
	}
	// For each node, the hosts routed over each out-link.
	var dests [][]int32
	for v := int32(0); v < g.numNodes; v++ {
		out := g.OutLinks(v)
		if len(out) == 1 {
			fmt.Fprintf(bw, "  %s -> %s [comment=\"*\"];\n", dotQuote(g.NodeName(v)), dotQuote(g.NodeName(g.to[out[0]])))
			continue
		}
		for len(dests) < len(out) {
			dests = append(dests, nil)
		}
		for i := range out {
			dests[i] = dests[i][:0]
		}
		for d := int32(0); d < int32(len(g.hostNode)); d++ {
			if g.hostNode[d] == v {
				continue
			}
			l := int32(-1)
			if g.kind == kindDot {
				if c := g.routeChoices(v, g.hostNode[d]); len(c) > 0 {
					l = c[0]
				}
			} else {
				l = g.nextHop(v, d, nil)
			}
			for i, o := range out {
				if o == l {
					dests[i] = append(dests[i], d)
					break
				}
			}
		}
		for i, l := range out {
			var sb strings.Builder
			for k, d := range dests[i] {
				if k > 0 {
					sb.WriteString(", ")
				}
				sb.WriteString(g.NodeName(g.hostNode[d]))
			}
			fmt.Fprintf(bw, "  %s -> %s [comment=%s];\n", dotQuote(g.NodeName(v)), dotQuote(g.NodeName(g.to[l])), dotQuote(sb.String()))
		}
	}
	fmt.Fprintf(bw, "}\n")
	return bw.Flush()
}

// dotQuote quotes s for dot.
func dotQuote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}
