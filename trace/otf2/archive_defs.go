package otf2

// Definitions: the global definition file NAME.def and the local ones
// NAME/L.def. Record ids and the attributes read, in file order (c:
// compressed, u8: one byte, u64: 8 bytes fixed, s: string; attributes in
// brackets came with later versions and may be missing):
//
//	global  5  ClockProperties  ticks per second c, global offset c,
//	                            trace length c, [realtime c]
//	global 10  String           id c, s
//	global 14  Location         id c, name c, type u8, events c, group c
//	global 15  Region           id c, name c, description c, type u8,
//	                            file c, begin c, end c, [canonical name c,
//	                            role u8, paradigm u8, flags c]
//	global 18  Group            id c, name c, type (before 1.2) u8,
//	                            n c, n members c, [type u8, paradigm u8,
//	                            flags c]
//	global 22  Comm             id c, name c, group c, parent c, [flags c]
//	local   5  MappingTable     kind u8, n c, mode u8 (0 dense: n global
//	                            ids c, the local id is the index; 1
//	                            sparse: n pairs local c, global c)
//	local   6  ClockOffset      time u64, offset c (an int64), std dev u64
//
// Other definitions (system tree, paradigms, attributes, metrics, ...)
// are skipped by their length.

import (
	"fmt"
	"io"
	"math"
	"os"
	"sort"
)

// Global definition record ids.
const (
	defClockProperties = 5
	defString          = 10
	defLocation        = 14
	defRegion          = 15
	defGroup           = 18
	defComm            = 22
)

// Local definition record ids.
const (
	defMappingTable = 5
	defClockOffset  = 6
)

// Group types (OTF2_GroupType).
const (
	GroupLocations     = 1
	GroupRegions       = 2
	GroupMetric        = 3
	GroupCommLocations = 4 // the locations of a paradigm's processes, in rank order
	GroupCommGroup     = 5 // ranks (indices into the paradigm's CommLocations group)
	GroupCommSelf      = 6
)

// Paradigms (OTF2_Paradigm) gopsim reads.
const ParadigmMPI = 4

// Clock is the global clock of the trace.
type Clock struct {
	TicksPerSecond uint64
	GlobalOffset   uint64 // the trace's first tick
	TraceLength    uint64 // ticks
}

// Location is a location definition: a thread or a process of the trace.
type Location struct {
	ID     uint64
	Name   uint32 // string id
	Type   uint8  // 1: CPU thread
	Events uint64 // number of events in its event file
	Group  uint32 // location group (process)
}

// Region is a region definition: a function or code region.
type Region struct {
	Name      uint32 // string id
	Canonical uint32 // string id, Undefined before OTF2 1.1
	Paradigm  uint8
}

// Group is a group definition.
type Group struct {
	Name     uint32
	Type     uint8 // GroupCommLocations, GroupCommGroup, ...
	Paradigm uint8
	Members  []uint64
}

// Comm is a communicator definition.
type Comm struct {
	ID     uint32
	Name   uint32 // string id
	Group  uint32 // group id
	Parent uint32 // comm id, or Undefined
}

// Definitions are the global definitions of an archive, in the order of
// the file where it matters (locations, communicators).
type Definitions struct {
	Clock     Clock
	HasClock  bool
	Strings   map[uint32]string
	Regions   map[uint32]Region
	Groups    map[uint32]Group
	Locations []Location
	Comms     []Comm
	Count     uint64 // records read
}

// Text returns string id's text, or "" if it is not defined.
func (d *Definitions) Text(id uint32) string { return d.Strings[id] }

// RegionName returns the name of region id, or "" if it is not defined.
func (d *Definitions) RegionName(id uint32) string {
	r, ok := d.Regions[id]
	if !ok {
		return ""
	}
	return d.Strings[r.Name]
}

// DecodeGlobalDefs decodes a global definition file from r, in chunks of
// chunkSize bytes (the anchor's definition chunk size); name names it in
// errors.
func DecodeGlobalDefs(name string, r io.Reader, chunkSize uint64) (*Definitions, error) {
	c := newChunks(name, r, chunkSize)
	d := &Definitions{Strings: map[uint32]string{}, Regions: map[uint32]Region{}, Groups: map[uint32]Group{}}
	for {
		id, err := c.marker()
		if err != nil {
			return nil, err
		}
		if id == markEndData {
			return d, nil
		}
		x, err := c.record(id)
		if err != nil {
			return nil, err
		}
		d.Count++
		d.global(&x)
		if x.err != nil {
			return nil, x.err
		}
	}
}

// global decodes one global definition record.
func (d *Definitions) global(x *rec) {
	switch x.id {
	case defClockProperties:
		d.Clock = Clock{TicksPerSecond: x.u64c(), GlobalOffset: x.u64c(), TraceLength: x.u64c()}
		d.HasClock = true
		if x.err == nil && d.Clock.TicksPerSecond == 0 {
			x.fail("clock of 0 ticks per second")
		}
	case defString:
		id := x.u32c()
		d.Strings[id] = x.str()
	case defLocation:
		d.Locations = append(d.Locations, Location{ID: x.u64c(), Name: x.u32c(), Type: x.u8(), Events: x.u64c(), Group: x.u32c()})
	case defRegion:
		id := x.u32c()
		r := Region{Name: x.u32c(), Canonical: Undefined}
		x.u32c() // description
		x.u8()   // region type (before 1.1)
		x.u32c() // source file
		x.u32c() // begin line
		x.u32c() // end line
		if x.has() {
			r.Canonical = x.u32c()
			x.u8() // role
			r.Paradigm = x.u8()
		}
		d.Regions[id] = r
	case defGroup:
		d.group(x)
	case defComm:
		d.Comms = append(d.Comms, Comm{ID: x.u32c(), Name: x.u32c(), Group: x.u32c(), Parent: x.u32c()})
	}
}

func (d *Definitions) group(x *rec) {
	id := x.u32c()
	g := Group{Name: x.u32c()}
	x.u8() // the group type of OTF2 1.0 and 1.1
	n := x.u32c()
	if x.err != nil {
		return
	}
	if uint64(n) > uint64(len(x.b)-x.pos) {
		x.fail(fmt.Sprintf("group %d of %d members: more than the record's bytes", id, n))
		return
	}
	g.Members = make([]uint64, n)
	for i := range g.Members {
		g.Members[i] = x.u64c()
	}
	if !x.has() {
		x.fail(fmt.Sprintf("group %d without the group type of OTF2 1.2 and later (an OTF2 1.x archive?)", id))
		return
	}
	g.Type, g.Paradigm = x.u8(), x.u8()
	d.Groups[id] = g
}

// Mapping kinds (OTF2_MappingType) the decoder applies to events.
const (
	mapRegion = 3
	mapComm   = 6
)

// idMap maps a location's ids of one kind to global ids.
type idMap struct {
	dense  []uint64          // local id = index
	sparse map[uint64]uint64 // when not dense
	set    bool
}

func (m *idMap) get(local uint64) uint64 {
	switch {
	case !m.set:
		return local
	case m.dense != nil:
		if local < uint64(len(m.dense)) {
			return m.dense[local]
		}
		return local
	}
	if g, ok := m.sparse[local]; ok {
		return g
	}
	return local
}

// clockOffset is one ClockOffset definition of a location.
type clockOffset struct {
	time   uint64
	offset int64
}

// Local is what a location's definition file says about its events.
type Local struct {
	regions, comms idMap
	offsets        []clockOffset
}

// DecodeLocalDefs decodes a location's definition file from r; name
// names it in errors.
func DecodeLocalDefs(name string, r io.Reader, chunkSize uint64) (*Local, error) {
	c := newChunks(name, r, chunkSize)
	l := &Local{}
	for {
		id, err := c.marker()
		if err != nil {
			return nil, err
		}
		if id == markEndData {
			sort.SliceStable(l.offsets, func(i, j int) bool { return l.offsets[i].time < l.offsets[j].time })
			return l, nil
		}
		x, err := c.record(id)
		if err != nil {
			return nil, err
		}
		switch id {
		case defMappingTable:
			l.mapping(&x)
		case defClockOffset:
			l.offsets = append(l.offsets, clockOffset{time: x.u64(), offset: int64(x.u64c())})
		}
		if x.err != nil {
			return nil, x.err
		}
	}
}

func (l *Local) mapping(x *rec) {
	kind := x.u8()
	n := x.u64c()
	mode := x.u8()
	if x.err != nil {
		return
	}
	per := uint64(1)
	if mode == 1 {
		per = 2
	}
	if mode > 1 || n > uint64(len(x.b)-x.pos)/per {
		x.fail(fmt.Sprintf("mapping table of mode %d and %d entries: not in the record", mode, n))
		return
	}
	var m idMap
	m.set = true
	if mode == 0 {
		m.dense = make([]uint64, n)
		for i := range m.dense {
			m.dense[i] = x.u64c()
		}
	} else {
		m.sparse = make(map[uint64]uint64, n)
		for i := uint64(0); i < n; i++ {
			k := x.u64c()
			m.sparse[k] = x.u64c()
		}
	}
	switch kind {
	case mapRegion:
		l.regions = m
	case mapComm:
		l.comms = m
	}
}

// correct turns a time of the location's clock into the global clock:
// the offset is interpolated linearly between the two clock offsets
// around t (the first two before the first one, the last two after the
// last one; a single offset applies everywhere), and the interpolated
// part rounded to the nearest tick: what otf2-print prints, on every
// event of the Score-P sample.
func (l *Local) correct(t uint64) uint64 {
	o := l.offsets
	switch len(o) {
	case 0:
		return t
	case 1:
		return uint64(int64(t) + o[0].offset)
	}
	i := sort.Search(len(o), func(i int) bool { return o[i].time > t }) // first offset after t
	i = min(max(i, 1), len(o)-1)
	a, b := o[i-1], o[i]
	slope := 0.0
	if b.time != a.time {
		slope = float64(b.offset-a.offset) / float64(b.time-a.time)
	}
	d := math.Round(slope * float64(int64(t-a.time)))
	if math.IsNaN(d) || math.Abs(d) > 1<<62 {
		d = 0
	}
	return uint64(int64(t) + a.offset + int64(d))
}

// openLocal reads location loc's definition file; a missing file means
// no mappings and no clock offsets.
func (a *Archive) openLocal(loc uint64) (*Local, error) {
	path := a.LocationFile(loc, ".def")
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return &Local{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("otf2: %w", err)
	}
	defer f.Close()
	return DecodeLocalDefs(path, f, a.Anchor.ChunkSizeDefs)
}
