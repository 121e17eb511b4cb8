// Package report renders diagnostics for people and machines: the compiler-style text of
// CLI.md, the stable JSON document (`schemaVersion: 1`), SARIF 2.1.0 for code scanning, and
// GitHub Actions workflow annotations. It knows nothing about terminals beyond a colour switch.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/plaios/plaios/internal/check"
)

// Package is one checked package, as the JSON output lists it.
type Package struct {
	Dir     string `json:"dir"`
	Name    string `json:"name"`
	Version string `json:"version"`
	Runtime string `json:"runtime"`
}

// Formats are the output formats validate accepts.
var Formats = []string{"text", "json", "sarif", "github"}

const (
	red    = "\x1b[31m"
	yellow = "\x1b[33m"
	bold   = "\x1b[1m"
	dim    = "\x1b[2m"
	reset  = "\x1b[0m"
)

// Text writes `file:line:col: severity rule: message` lines, hints indented below, then the
// summary line.
func Text(w io.Writer, diags []check.Diagnostic, sum check.Summary, color bool) error {
	var b strings.Builder
	for _, d := range diags {
		sev := d.Severity.String()
		if color {
			c := yellow
			if d.Severity == check.Error {
				c = red
			}
			sev = c + bold + sev + reset
		}
		fmt.Fprintf(&b, "%s:%d:%d: %s %s: %s\n", d.File, d.Line, d.Col, sev, d.Rule, d.Message)
		if d.Hint != "" {
			h := "hint:"
			if color {
				h = dim + h + reset
			}
			fmt.Fprintf(&b, "    %s %s\n", h, d.Hint)
		}
	}
	b.WriteString(SummaryLine(sum))
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// SummaryLine is `N packages, E errors, W warnings`.
func SummaryLine(s check.Summary) string {
	return fmt.Sprintf("%s, %s, %s", plural(s.Packages, "package"), plural(s.Errors, "error"), plural(s.Warnings, "warning"))
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// Document is validate's JSON output.
type Document struct {
	SchemaVersion int                `json:"schemaVersion"`
	Packages      []Package          `json:"packages"`
	Diagnostics   []check.Diagnostic `json:"diagnostics"`
	Summary       check.Summary      `json:"summary"`
}

// JSON writes the validate document.
func JSON(w io.Writer, pkgs []Package, diags []check.Diagnostic, sum check.Summary) error {
	if pkgs == nil {
		pkgs = []Package{}
	}
	if diags == nil {
		diags = []check.Diagnostic{}
	}
	return WriteJSON(w, Document{SchemaVersion: 1, Packages: pkgs, Diagnostics: diags, Summary: sum})
}

// WriteJSON writes v as indented JSON with a final newline, without HTML escaping.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// GitHub writes one workflow command per diagnostic (::error / ::warning).
func GitHub(w io.Writer, diags []check.Diagnostic) error {
	var b strings.Builder
	for _, d := range diags {
		b.WriteString(Annotation(d))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Annotation is the workflow command for one diagnostic.
func Annotation(d check.Diagnostic) string {
	cmd := "error"
	if d.Severity == check.Warning {
		cmd = "warning"
	}
	msg := d.Message
	if d.Hint != "" {
		msg += "\nhint: " + d.Hint
	}
	return fmt.Sprintf("::%s file=%s,line=%d,col=%d,title=%s::%s", cmd, escapeProperty(d.File), d.Line, d.Col, escapeProperty(d.Rule), escapeData(msg))
}

func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// SARIF writes a SARIF 2.1.0 log with one rule entry per rule ID (its help text).
func SARIF(w io.Writer, diags []check.Diagnostic, rules []*check.Rule, version, informationURI string) error {
	type text struct {
		Text string `json:"text"`
	}
	type ruleConf struct {
		Level string `json:"level"`
	}
	type rule struct {
		ID                   string   `json:"id"`
		Name                 string   `json:"name"`
		ShortDescription     text     `json:"shortDescription"`
		FullDescription      text     `json:"fullDescription"`
		Help                 text     `json:"help"`
		DefaultConfiguration ruleConf `json:"defaultConfiguration"`
	}
	type region struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn"`
	}
	type artifact struct {
		URI string `json:"uri"`
	}
	type physical struct {
		ArtifactLocation artifact `json:"artifactLocation"`
		Region           region   `json:"region"`
	}
	type location struct {
		PhysicalLocation physical `json:"physicalLocation"`
	}
	type result struct {
		RuleID    string     `json:"ruleId"`
		RuleIndex int        `json:"ruleIndex"`
		Level     string     `json:"level"`
		Message   text       `json:"message"`
		Locations []location `json:"locations"`
	}
	index := map[string]int{}
	var rs []rule
	for i, r := range rules {
		index[r.ID] = i
		rs = append(rs, rule{
			ID: r.ID, Name: RuleName(r.ID),
			ShortDescription:     text{firstSentence(r.Help)},
			FullDescription:      text{r.Help},
			Help:                 text{r.Help},
			DefaultConfiguration: ruleConf{sarifLevel(r.Severity)},
		})
	}
	results := []result{}
	for _, d := range diags {
		msg := d.Message
		if d.Hint != "" {
			msg += " (hint: " + d.Hint + ")"
		}
		results = append(results, result{
			RuleID: d.Rule, RuleIndex: index[d.Rule], Level: sarifLevel(d.Severity), Message: text{msg},
			Locations: []location{{physical{artifact{d.File}, region{d.Line, d.Col}}}},
		})
	}
	log := map[string]any{
		"$schema": "https://json.schemastore.org/sarif-2.1.0.json",
		"version": "2.1.0",
		"runs": []any{map[string]any{
			"tool": map[string]any{"driver": map[string]any{
				"name": "plaios", "version": version, "semanticVersion": semanticVersion(version),
				"informationUri": informationURI, "rules": rs,
			}},
			"columnKind": "unicodeCodePoints",
			"results":    results,
		}},
	}
	return WriteJSON(w, log)
}

// semanticVersion is the version as SARIF's semanticVersion wants it: semver without the "v"
// Go writes (v1.2.0 → 1.2.0), or 0.0.0-dev for a build that records no version.
func semanticVersion(v string) string {
	v = strings.TrimPrefix(v, "v")
	if v == "" || v[0] < '0' || v[0] > '9' || strings.ContainsAny(v, " ,()") {
		return "0.0.0-dev"
	}
	return v
}

// ruleWords are the words of rule IDs that a name writes otherwise than capitalised.
var ruleWords = map[string]string{
	"agentos":  "AgentOS",
	"plaios":   "PLAIOS",
	"openclaw": "OpenClaw",
	"json":     "JSON",
	"readme":   "README",
}

// RuleName is a rule's readable SARIF name, the PascalCase of its ID with the runtimes spelt
// as they are (entry-not-shipped → EntryNotShipped, agentos-license → AgentOSLicense). SARIF
// wants a name that differs from the opaque id; viewers show it as the rule's title.
func RuleName(id string) string {
	var b strings.Builder
	for _, w := range strings.Split(id, "-") {
		if w == "" {
			continue
		}
		if s, ok := ruleWords[w]; ok {
			b.WriteString(s)
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

func sarifLevel(s check.Severity) string {
	switch s {
	case check.Error:
		return "error"
	case check.Warning:
		return "warning"
	}
	return "none"
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i > 0 {
		return s[:i+1]
	}
	return s
}
