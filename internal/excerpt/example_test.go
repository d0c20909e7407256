package excerpt_test

import (
	"fmt"
	"strings"

	"github.com/gopsim/gopsim/internal/excerpt"
)

func Example() {
	huge := strings.Repeat("9", 5000)
	fmt.Println("calc time", excerpt.Of(huge), "overflows")
	fmt.Println("found", excerpt.Quote(strings.Repeat("x", 3000)))
	fmt.Println(excerpt.Message(`sim: invalid value "` + huge + `" for -L`))
	// Output:
	// calc time 9999999999999999999999999999999999999999… (5000 bytes) overflows
	// found "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…" (3000 bytes)
	// sim: invalid value "9999999999999999999999999999999999999999…" (5000 bytes) for -L
}
