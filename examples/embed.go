// Package examples holds runnable example inputs, embedded so that the
// gopsim binary can run its default example without any file.
package examples

import "embed"

// FS holds every example schedule.
//
//go:embed *.goal
var FS embed.FS

// Default is the example `gopsim sim` runs when it is given no file: an
// 8-rank recursive-doubling allreduce of 64 KiB written by LogGOPSim's
// Schedgen (`schedgen -p allreduce_recdoub -s 8 -d 65536`).
const Default = "allreduce_recdoub_8.goal"
