package excerpt_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gopsim/gopsim/internal/excerpt"
)

func TestExcerpt(t *testing.T) {
	nines := strings.Repeat("9", 5000)
	at64 := strings.Repeat("x", excerpt.Max)
	euro := strings.Repeat("x", 39) + strings.Repeat("€", 30) // € is 3 bytes: byte 40 is inside a rune
	for _, tc := range []struct {
		name, in, of, quote string
	}{
		{"short", "12ab", "12ab", `"12ab"`},
		{"empty", "", "", `""`},
		{"Max bytes: whole", at64, at64, `"` + at64 + `"`},
		{"one more: cut", at64 + "x", strings.Repeat("x", 40) + "… (65 bytes)", `"` + strings.Repeat("x", 40) + `…" (65 bytes)`},
		{"long number", nines, nines[:40] + "… (5000 bytes)", `"` + nines[:40] + `…" (5000 bytes)`},
		{"cut at a rune boundary", euro, euro[:39] + "… (129 bytes)", `"` + euro[:39] + `…" (129 bytes)`},
		{"quote escapes", "a\"b\n", "a\"b\n", `"a\"b\n"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := excerpt.Of(tc.in); got != tc.of {
				t.Errorf("Of = %q, want %q", got, tc.of)
			}
			if got := excerpt.Quote(tc.in); got != tc.quote {
				t.Errorf("Quote = %q, want %q", got, tc.quote)
			}
		})
	}
}

func TestMessage(t *testing.T) {
	long := strings.Repeat("7", 100)
	for _, tc := range []struct {
		name, in, want string
	}{
		{"nothing long", "sim: the schedule cannot finish", "sim: the schedule cannot finish"},
		{"a bare token", "value " + long + " too big", "value " + long[:40] + "… (100 bytes) too big"},
		{"a quoted token: as Quote", `"` + long + `" bad`, `"` + long[:40] + `…" (100 bytes) bad`},
		{"single quotes", "'" + long + "'", "'" + long[:40] + "…' (100 bytes)"},
		{"an open quote", `"` + long + ":", `"` + long[:40] + `…" (101 bytes)`},
		{"a path is never cut", "/a/very/long/path/" + long + ".goal: bad", "/a/very/long/path/" + long + ".goal: bad"},
		{"blanks kept", "a\t" + long + "\nb", "a\t" + long[:40] + "… (100 bytes)\nb"},
		{"already cut: unchanged", excerpt.Quote(long) + " " + excerpt.Of(long), excerpt.Quote(long) + " " + excerpt.Of(long)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := excerpt.Message(tc.in); got != tc.want {
				t.Errorf("Message(%q)\n= %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

// FuzzMessage checks that Message keeps valid UTF-8 valid, leaves no
// token longer than Max but paths, and changes nothing a second time.
func FuzzMessage(f *testing.F) {
	for _, s := range []string{"", "a b", strings.Repeat("9", 100), `"` + strings.Repeat("€", 40) + `" x`, "/p/" + strings.Repeat("q", 80)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m := excerpt.Message(s)
		if utf8.ValidString(s) && !utf8.ValidString(m) {
			t.Fatalf("%q -> invalid UTF-8 %q", s, m)
		}
		for _, tok := range strings.FieldsFunc(m, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' }) {
			if len(tok) > excerpt.Max && !strings.Contains(tok, "/") {
				t.Fatalf("%q -> token %q longer than %d", s, tok, excerpt.Max)
			}
		}
		if again := excerpt.Message(m); again != m {
			t.Fatalf("%q -> %q -> %q", s, m, again)
		}
	})
}
