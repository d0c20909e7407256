// Package topology is gopsim's network: the machine's hosts, switches and
// links, where ranks run, how messages are routed, and how messages in
// flight share links (congestion), for an engine that would otherwise
// treat the network as LogGOPS's perfect crossbar.
//
// # Graphs
//
// A Graph has hosts (0..NumHosts-1), nodes (hosts and switches) and
// directed links, all int32 indices; a route is a []int32 of links. It
// comes from a generator, usually through a --topology spec (see Spec):
//
//	fattree:k=16,n=3            k-ary n-tree, 4,096 hosts, d-mod-k routing
//	fattree:k=16,n=3,oversub=2  leaves with 8 up-links: 2:1 oversubscribed
//	torus:8x8x8[,p=2]           dimension-order routing, p hosts per router
//	dragonfly:a=4,p=2,h=2,g=9   minimal routing (local, global, local)
//
// or from LogGOPSim's --network-file format, read by ReadDot (hosts are the
// nodes named H..., in order of appearance; an edge's comment lists the
// destinations routed over it); WriteDot writes any Graph in that format
// for LogGOPSim. Route gives static routes; RouteAdaptive picks, wherever
// the topology offers several minimal next hops, the least loaded one.
//
// # Placement
//
// A Mapping gives each rank its host: Linear (LogGOPSim's: rank i on the
// i-th host), RoundRobin over leaf switches or routers, Random from a seed,
// or a file (ReadMapping); ParseMapping reads a --mapping spec.
//
// # Congestion
//
// A Network holds the messages in flight for one run, under a Model:
//
//   - None: LogGOPS; the network is never consulted.
//   - Simple: LogGOPSim's model, reproduced operation for operation
//     (its fixed point in units of 1e-4 byte, its rounding, its retry
//     estimates and its "noorder" queries): a message progresses at 1/k
//     byte per ns, k the most messages in flight on a link of its route,
//     and leaves the network when its arrival finds it drained.
//   - Flow: max-min fair sharing by progressive filling, recomputed when
//     flows start and drain (batched per instant), restricted to the flows
//     whose rates can change and verified by the bottleneck criterion, so
//     that thousands of concurrent flows cost microseconds per change.
//     Drain times are whole ns, rounded up.
//
// The engine calls three methods, in non-decreasing time order, and the
// Network allocates nothing per message once warm:
//
//	h := net.Start(t, src, dst, bytes, op)   // send starts: keep h with its arrival
//	at := net.Arrive(h, t)                   // arrival processed, before CPU/NIC checks:
//	                                         // t: drained; later: retry then (Simple);
//	                                         // Never: parked (Flow)
//	id, t, ok := net.Wake(headTime)          // before each pop: parked arrivals
//	                                         // that drained by headTime; queue
//	                                         // each at t, then headTime = t
//
// Per-link statistics (bytes, messages, busy time, peak concurrent
// messages) come from LinkStats and Hottest.
//
// # Example
//
// A bisection on a 2:1 oversubscribed fat tree under the Flow model:
//
//	g, _ := topology.Generate("fattree:k=8,n=3,oversub=2") // 512 hosts
//	m, _ := topology.Linear(g, 512, 1)
//	net, _ := topology.NewNetwork(g, m, topology.Options{Model: topology.Flow})
//	for r := int32(0); r < 512; r++ {
//		h := net.Start(0, r, (r+256)%512, 1<<20, r)
//		net.Arrive(h, 0) // parks: a megabyte takes a while
//	}
//	for {
//		id, t, ok := net.Wake(topology.Never)
//		if !ok {
//			break
//		}
//		fmt.Println(id, t) // the last at 2,097,152 ns: twice the full tree's time
//	}
//
// Results depend only on the inputs: no maps, goroutines or clocks on the
// event path, ties broken by start order and link index, and the
// generators' numbering and Random's generator are fixed.
package topology
