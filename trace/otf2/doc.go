// Package otf2 reads OTF2 traces, the format Score-P writes, as a
// trace.Source for gopsim's converter to GOAL.
//
// Open takes an archive's anchor file (traces.otf2) or its directory and
// decodes the archive natively, OTF2 2.x and 3.x, with no OTF2 library or
// tool: archive.go specifies the binary format, otf2.go says how the
// archive is streamed rank by rank, archive_convert.go what the converter
// takes from the events and what it cannot model. OpenArchive and
// EventReader give the decoded definitions and events themselves.
// ReadPrint reads the text of OTF2's reference printer, otf2-print, into
// the same events: the tests compare both readers on every sample.
//
// The package registers the format "otf2" with trace.RegisterFormat, so
// `gopsim convert` detects and opens OTF2 archives.
//
// Example: convert an archive and simulate it.
//
//	t, err := otf2.Open("scorep-run/traces.otf2", otf2.Options{})
//	if err != nil {
//		return err // e.g. "otf2: scorep-run/traces/3.evt: byte 4096: ... (file cut short?)"
//	}
//	s := goal.NewSchedule(t.NumRanks())
//	if _, err := trace.Convert(t, trace.ConvertOptions{}, s.AppendRank); err != nil {
//		return err
//	}
//	res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
package otf2
