package trace_test

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	"github.com/gopsim/gopsim/trace"
)

// Read a trace directory rank by rank. The trace here is written with
// trace.Writer; `gopsim trace` writes real ones with the tracer.
func ExampleReader() {
	dir, err := os.MkdirTemp("", "trace")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	writePingPong(dir)

	d, err := trace.OpenDir(dir)
	if err != nil {
		log.Fatal(err)
	}
	for rank := range d.NumRanks() {
		r, err := d.Open(rank)
		if err != nil {
			log.Fatal(err)
		}
		var c trace.Call
		for {
			err := r.Next(&c)
			if err == io.EOF {
				break
			}
			if err != nil {
				log.Fatal(err)
			}
			switch c.Func.Class() {
			case trace.ClassSend, trace.ClassRecv:
				fmt.Printf("rank %d: %v %d bytes, peer %d, %d ns\n", rank, c.Func, c.Bytes, c.Peer, c.Duration())
			case trace.ClassWait:
				for _, done := range c.Done {
					fmt.Printf("rank %d: %v completes the %v of %d bytes from %d\n", rank, c.Func, done.Func, done.Bytes, done.Peer)
				}
			}
		}
		fmt.Printf("rank %d: ended with %v, communicators %v\n", rank, r.End(), r.Comm(0).Members)
		r.Close()
	}
	// Output:
	// rank 0: MPI_Send 1024 bytes, peer 1, 700 ns
	// rank 0: MPI_Recv 1024 bytes, peer 1, 2500 ns
	// rank 0: ended with MPI_Finalize, communicators [0 1]
	// rank 1: MPI_Wait completes the MPI_Irecv of 1024 bytes from 0
	// rank 1: MPI_Send 1024 bytes, peer 0, 800 ns
	// rank 1: ended with MPI_Finalize, communicators [0 1]
}

// writePingPong writes a two-rank trace: rank 0 sends and receives, rank 1
// receives with Irecv and Wait and sends back.
func writePingPong(dir string) {
	for rank := range 2 {
		f, err := os.Create(filepath.Join(dir, trace.FileName(rank)))
		if err != nil {
			log.Fatal(err)
		}
		w, err := trace.NewWriter(f, trace.Header{Rank: rank, Size: 2, T0: 1000})
		if err != nil {
			log.Fatal(err)
		}
		w.WriteComm(&trace.Comm{ID: 0, Members: []int32{0, 1}})
		p2p := func(fn trace.Func, start, end int64) trace.Call {
			c := trace.NewCall(fn, start, end)
			c.Comm, c.Peer, c.Tag, c.Bytes, c.Type = 0, int32(1-rank), 5, 1024, trace.Datatype{Size: 1, Extent: 1}
			return c
		}
		if rank == 0 {
			send, recv := p2p(trace.FuncSend, 2000, 2700), p2p(trace.FuncRecv, 3000, 5500)
			w.WriteCall(&send)
			w.WriteCall(&recv)
		} else {
			irecv := p2p(trace.FuncIrecv, 1500, 1600)
			irecv.Request = 1
			wait := trace.NewCall(trace.FuncWait, 1700, 2900)
			wait.Done = []trace.Completion{{Request: 1, Kind: trace.ReqRecv, Peer: 0, Tag: 5, Bytes: 1024}}
			send := p2p(trace.FuncSend, 3100, 3900)
			w.WriteCall(&irecv)
			w.WriteCall(&wait)
			w.WriteCall(&send)
		}
		if err := w.Close(trace.EndFinalize); err != nil {
			log.Fatal(err)
		}
		f.Close()
	}
}

// Write a synthetic trace, as a converter's tests might, and read it back.
func ExampleNewWriter() {
	var file bytes.Buffer
	w, err := trace.NewWriter(&file, trace.Header{Rank: 0, Size: 2, T0: 0})
	if err != nil {
		log.Fatal(err)
	}
	w.WriteComm(&trace.Comm{ID: 0, Members: []int32{0, 1}})
	bcast := trace.NewCall(trace.FuncBcast, 100, 900)
	bcast.Comm, bcast.Root, bcast.Bytes, bcast.Type = 0, 0, 4096, trace.Datatype{Size: 8, Extent: 8}
	w.WriteCall(&bcast)
	probe := trace.NewCall(trace.FuncIprobe, 1000, 5000)
	probe.Comm, probe.Peer, probe.Tag, probe.Polls = 0, 1, trace.AnyTag, 120 // 120 probes that found nothing
	w.WriteCall(&probe)
	if err := w.Close(trace.EndFinalize); err != nil {
		log.Fatal(err)
	}

	r, err := trace.NewReader(&file, "synthetic")
	if err != nil {
		log.Fatal(err)
	}
	var c trace.Call
	for err = r.Next(&c); err == nil; err = r.Next(&c) {
		fmt.Println(&c)
	}
	if err != io.EOF {
		log.Fatal(err)
	}
	fmt.Println(r.End())
	// Output:
	// MPI_Bcast t=100+800 comm=0 bytes=4096 type=8/8 root=0
	// MPI_Iprobe t=1000+4000 polls=120 comm=0 peer=1 tag=any
	// MPI_Finalize
}

// The library line a trace header holds decides whose collective
// algorithms the converter uses under --coll-select auto.
func ExampleLibraryRules() {
	for _, lib := range []string{"Open MPI v4.1.4, package: Debian OpenMPI", "MPICH Version:\t4.0.2", ""} {
		r, ok := trace.LibraryRules(lib)
		fmt.Printf("%q: %v %v\n", lib, r, ok)
	}
	// Output:
	// "Open MPI v4.1.4, package: Debian OpenMPI": openmpi true
	// "MPICH Version:\t4.0.2": mpich true
	// "": Rules(0) false
}
