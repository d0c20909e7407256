package cli

import (
	"slices"
	"testing"

	"github.com/gopsim/gopsim/trace"
)

// TestConvertFormatsRegistered checks that the formats `convert --from`
// lists and its help describes are gopsim's own, the registered trace
// formats, and goal: a format package added to internal/traceformats
// must be added to the help too.
func TestConvertFormatsRegistered(t *testing.T) {
	var reg []string
	for _, f := range trace.Formats() {
		reg = append(reg, f.Name)
	}
	listed := slices.Clone(convertFormats[1 : len(convertFormats)-1])
	slices.Sort(listed)
	if convertFormats[0] != "gopsim" || convertFormats[len(convertFormats)-1] != "goal" || !slices.Equal(listed, reg) {
		t.Fatalf("convertFormats %v, registered %v", convertFormats, reg)
	}
}
