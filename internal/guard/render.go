package guard

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/plaios/plaios/internal/check"
)

// WriteText writes one line per package (`ok name@version (3 descriptors)` or
// `FAIL name@version (dir): reason`), every finding indented below it as validate writes them
// (`file:line:col: error rule: message` and its `hint:`), and a summary.
func WriteText(w io.Writer, rep *Report) {
	for _, r := range rep.Packages {
		if r.OK {
			if noun := r.Noun(); noun != "" {
				fmt.Fprintf(w, "ok %s@%s (%s)\n", r.Name, r.Version, noun)
			} else {
				fmt.Fprintf(w, "ok %s@%s\n", r.Name, r.Version)
			}
		} else {
			fmt.Fprintf(w, "FAIL %s@%s (%s): %s\n", r.Name, r.Version, r.Dir, r.Reason)
		}
		for _, d := range r.Diagnostics {
			if d.Severity == check.Off {
				continue
			}
			where := d.File
			if d.Line > 0 {
				where = fmt.Sprintf("%s:%d:%d", d.File, d.Line, d.Col)
			}
			fmt.Fprintf(w, "  %s: %s %s: %s\n", where, d.Severity, d.Rule, d.Message)
			if d.Hint != "" {
				fmt.Fprintf(w, "      hint: %s\n", d.Hint)
			}
		}
	}
	fmt.Fprintln(w, Summary(rep))
}

// Summary is the closing line.
func Summary(rep *Report) string {
	n := len(rep.Packages)
	failed := len(rep.Failed())
	if n == 0 {
		switch {
		case rep.Selection == "unpublished" && rep.Skipped == 1:
			return "nothing to guard: the publishable package is on the registry at its version (use --all to guard it anyway)"
		case rep.Selection == "unpublished" && rep.Skipped > 0:
			return fmt.Sprintf("nothing to guard: the %d publishable packages are all on the registry at their versions (use --all to guard them anyway)", rep.Skipped)
		case rep.Selection == "unpublished":
			return "nothing to guard: there is no publishable package here"
		}
		return "nothing to guard: no candidate was selected"
	}
	s := fmt.Sprintf("%d %s guarded: %d ok, %d failed", n, plural(n, "package", "packages"), n-failed, failed)
	if rep.Skipped > 0 {
		s += fmt.Sprintf(" (%d already on the registry)", rep.Skipped)
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// WriteJSON writes the report as guard-report.json holds it.
func WriteJSON(w io.Writer, rep *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// WriteGitHub writes GitHub Actions workflow annotations: one error per failed package and
// one per finding.
func WriteGitHub(w io.Writer, rep *Report) {
	for _, r := range rep.Packages {
		if !r.OK {
			props := "file=" + escapeProperty(strings.TrimPrefix(r.Dir+"/package.json", "./"))
			msg := fmt.Sprintf("%s@%s (%s): %s", r.Name, r.Version, r.Dir, r.Reason)
			for _, d := range r.Diagnostics {
				if d.Severity == check.Error && d.Message == r.Reason && d.File != "" {
					props = "file=" + escapeProperty(d.File)
					if d.Line > 0 {
						props += fmt.Sprintf(",line=%d,col=%d", d.Line, d.Col)
					}
					if d.Hint != "" {
						msg += "\nhint: " + d.Hint
					}
					break
				}
			}
			fmt.Fprintf(w, "::error %s,title=%s::%s\n", props, escapeProperty("plaios guard"), escapeData(msg))
		}
		for _, d := range r.Diagnostics {
			if d.Severity == check.Error && !r.OK && d.Message == r.Reason {
				continue // already the package's annotation
			}
			level := "warning"
			if d.Severity == check.Error {
				level = "error"
			}
			props := "file=" + escapeProperty(d.File)
			if d.Line > 0 {
				props += fmt.Sprintf(",line=%d,col=%d", d.Line, d.Col)
			}
			props += ",title=" + escapeProperty(d.Rule)
			msg := d.Message
			if d.Hint != "" {
				msg += "\nhint: " + d.Hint
			}
			fmt.Fprintf(w, "::%s %s::%s\n", level, props, escapeData(msg))
		}
	}
}

func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
