package sandbox

import (
	"strings"
	"testing"
)

// TestParseMemory: a whole number and a binary unit, in any case, with or without a space; a
// bare number, a fraction, an unknown unit, a limit node cannot start under and one past any
// machine are refused, each saying what to give instead. Bytes says back what was given.
func TestParseMemory(t *testing.T) {
	for in, want := range map[string]int64{
		"2GiB": 2 << 30, "2G": 2 << 30, "2gib": 2 << 30, " 512 MiB ": 512 << 20, "512m": 512 << 20,
		"64MiB": MinMemory, "65536KiB": 64 << 20, "1TiB": 1 << 40, "3k": -1,
	} {
		got, err := ParseMemory(in)
		if want < 0 {
			if err == nil {
				t.Errorf("ParseMemory(%q) = %d, want an error", in, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("ParseMemory(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for in, says := range map[string]string{
		"":                       "not a memory size",
		"2147483648":             "give a whole number and a unit",
		"1.5GiB":                 "not a memory size",
		"2GB":                    "not a memory size",
		"-1GiB":                  "not a memory size",
		"GiB":                    "not a memory size",
		"63MiB":                  "less than node needs to start; give at least 64MiB",
		"99999999999TiB":         "more memory than any machine has",
		"4611686018427387904KiB": "more memory than any machine has",
	} {
		if _, err := ParseMemory(in); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("ParseMemory(%q): %v, want it to say %q", in, err, says)
		}
	}
	for _, in := range []string{"2GiB", "512MiB", "3GiB", "64MiB"} {
		n, _ := ParseMemory(in)
		if got := strings.ReplaceAll(Bytes(n), " ", ""); got != in {
			t.Errorf("Bytes(ParseMemory(%q)) = %q", in, got)
		}
	}
	if DefaultMemory != 2<<30 {
		t.Errorf("DefaultMemory is %s; README and CLI say guard's default limit is 2 GiB", Bytes(DefaultMemory))
	}
}
