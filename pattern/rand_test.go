package pattern

import "testing"

// Reference values: C++ std::mt19937 with the default seed 5489 gives
// 3499211612 first and 4123659995 as its 10000th value (the C++ standard,
// [rand.predef]); glibc's rand() after srand(1) starts 1804289383,
// 846930886, 1681692777, 1714636915, 1957747793.
func TestMT19937(t *testing.T) {
	m := newMT19937(5489)
	if v := m.next(); v != 3499211612 {
		t.Fatalf("first value %d, want 3499211612", v)
	}
	var v uint32
	for i := 2; i <= 10000; i++ {
		v = m.next()
	}
	if v != 4123659995 {
		t.Fatalf("10000th value %d, want 4123659995", v)
	}
}

func TestGlibcRand(t *testing.T) {
	g := newGlibcRand(1)
	for i, want := range []int32{1804289383, 846930886, 1681692777, 1714636915, 1957747793, 424238335, 719885386, 1649760492, 596516649, 1189641421} {
		if v := g.next(); v != want {
			t.Fatalf("value %d: %d, want %d", i, v, want)
		}
	}
}
