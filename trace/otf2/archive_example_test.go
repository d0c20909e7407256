package otf2_test

import (
	"fmt"
	"io"
	"log"
	"path/filepath"

	"github.com/gopsim/gopsim/trace/otf2"
)

// Open an archive, then stream the events of its first location (times in ticks of
// the global clock, here 1 GHz): the
// MPI calls are the regions whose names start with "MPI_".
func Example() {
	a, err := otf2.OpenArchive(filepath.Join("testdata", "otf2gen-3.0.2", "ring.otf2"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("OTF2", a.Anchor.Version, "by", a.Anchor.Creator, "-", len(a.Defs.Locations), "locations")
	loc := a.Defs.Locations[0]
	r, err := a.Events(loc.ID)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	var ev otf2.Event
	for n := 0; n < 12; {
		err := r.Next(&ev) // reuses ev: no allocation per event
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err) // e.g. "otf2: ring/0.evt: byte 4711: ..."
		}
		switch ev.Kind {
		case otf2.Enter:
			fmt.Printf("tick %d: enter %s\n", ev.Time, a.Defs.RegionName(ev.Region))
		case otf2.MpiIsend:
			fmt.Printf("tick %d: isend %d bytes to rank %d, request %d\n", ev.Time, ev.Bytes, ev.Peer, ev.Request)
		case otf2.NonBlockingCollectiveComplete:
			fmt.Printf("tick %d: %s of %d bytes completes request %d\n", ev.Time, ev.Op, ev.Sent, ev.Request)
		default:
			continue
		}
		n++
	}
	// Output:
	// OTF2 3.0.2 by gopsim otf2gen - 4 locations
	// tick 1001000: enter MPI_Init
	// tick 1005000: enter compute
	// tick 1019000: enter compute
	// tick 1071000: enter MPI_Irecv
	// tick 1074000: enter MPI_Isend
	// tick 1075000: isend 4096 bytes to rank 1, request 2
	// tick 1077000: enter MPI_Waitall
	// tick 1081000: enter MPI_Send
	// tick 1084000: enter MPI_Allreduce
	// tick 1088000: enter MPI_Iallreduce
	// tick 1091000: enter MPI_Ibcast
	// tick 1094000: enter MPI_Test
}
