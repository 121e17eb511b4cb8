package release

import (
	"fmt"
	"io"
	"path"
	"strings"
	"text/tabwriter"
)

// WriteText prints the plan for people: one line per release in publish order
// (`name  dir  last → next  (reason)`), then one line per refusal, then one per warning, then
// each release's changelog entry, indented.
func (p *Plan) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range p.Releases {
		last := "new"
		if r.Last != nil {
			last = *r.Last
		}
		fmt.Fprintf(tw, "%s\t%s\t%s → %s\t(%s)\n", r.Name, r.Dir, last, r.Next, r.Reason)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(p.Releases) == 0 && len(p.Refusals) == 0 {
		if _, err := fmt.Fprintln(w, "nothing to release: this pull request changed no publishable package"); err != nil {
			return err
		}
	}
	for _, r := range p.Refusals {
		name := r.Name
		if name == "" {
			name = r.Dir
		}
		if _, err := fmt.Fprintf(w, "refused: %s (%s): %s.\n", name, r.Dir, r.Message); err != nil {
			return err
		}
	}
	for _, x := range p.Warnings {
		if _, err := fmt.Fprintf(w, "warning: %s.\n", x.Message); err != nil {
			return err
		}
	}
	if !p.OK() {
		return nil
	}
	for _, r := range p.Releases {
		if r.Changelog == "" {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "\n%s (%s):\n", r.Tag, path.Join(r.Dir, ChangelogFile))
		for _, line := range strings.Split(strings.TrimRight(r.Changelog, "\n"), "\n") {
			if line == "" {
				b.WriteString("\n")
				continue
			}
			b.WriteString("    " + line + "\n")
		}
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
	}
	return nil
}
