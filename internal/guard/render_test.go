package guard

import "testing"

// TestSummaryNothingToGuard: the closing line when every publishable package is on the
// registry already speaks of one package in the singular.
func TestSummaryNothingToGuard(t *testing.T) {
	for _, c := range []struct {
		skipped int
		want    string
	}{
		{1, "nothing to guard: the publishable package is on the registry at its version (use --all to guard it anyway)"},
		{3, "nothing to guard: the 3 publishable packages are all on the registry at their versions (use --all to guard them anyway)"},
		{0, "nothing to guard: there is no publishable package here"},
	} {
		if got := Summary(&Report{Selection: "unpublished", Skipped: c.skipped}); got != c.want {
			t.Errorf("%d skipped: %q, want %q", c.skipped, got, c.want)
		}
	}
}
