package report

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/check"
)

var diags = []check.Diagnostic{
	{Rule: "package-version-invalid", Severity: check.Error, File: "a/package.json", Line: 3, Col: 14, Message: "version \"1.0\" is not a semantic version", Hint: "write \"1.0.0\""},
	{Rule: "readme-missing", Severity: check.Warning, File: "a, b/README.md", Line: 1, Col: 1, Message: "100% missing:\nno example"},
}

func TestText(t *testing.T) {
	var b bytes.Buffer
	if err := Text(&b, diags, check.Summarize(1, diags), false); err != nil {
		t.Fatal(err)
	}
	want := "a/package.json:3:14: error package-version-invalid: version \"1.0\" is not a semantic version\n" +
		"    hint: write \"1.0.0\"\n" +
		"a, b/README.md:1:1: warning readme-missing: 100% missing:\nno example\n" +
		"1 package, 1 error, 1 warning\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	_ = Text(&b, diags[:1], check.Summarize(1, diags[:1]), true)
	if !strings.Contains(b.String(), "\x1b[31m\x1b[1merror\x1b[0m") {
		t.Errorf("colour output lacks the red error: %q", b.String())
	}
	if got := SummaryLine(check.Summary{Packages: 2, Errors: 0, Warnings: 3}); got != "2 packages, 0 errors, 3 warnings" {
		t.Errorf("summary = %q", got)
	}
}

func TestGitHubEscapes(t *testing.T) {
	var b bytes.Buffer
	_ = GitHub(&b, diags)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want one command per diagnostic, got %q", b.String())
	}
	if lines[0] != `::error file=a/package.json,line=3,col=14,title=package-version-invalid::version "1.0" is not a semantic version%0Ahint: write "1.0.0"` {
		t.Errorf("error line = %s", lines[0])
	}
	if lines[1] != `::warning file=a%2C b/README.md,line=1,col=1,title=readme-missing::100%25 missing:%0Ano example` {
		t.Errorf("warning line = %s", lines[1])
	}
}

func TestJSONAndSARIF(t *testing.T) {
	var b bytes.Buffer
	_ = JSON(&b, nil, nil, check.Summary{})
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["schemaVersion"].(float64) != 1 || doc["packages"] == nil || doc["diagnostics"] == nil {
		t.Errorf("empty document must still carry schemaVersion and empty lists: %s", b.String())
	}
	b.Reset()
	rules := []*check.Rule{{ID: "package-version-invalid", Severity: check.Error, Help: "The version must be semver. More text."}, {ID: "readme-missing", Severity: check.Warning, Help: "A README."}}
	if err := SARIF(&b, diags, rules, "dev", "https://example.invalid"); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID               string `json:"id"`
						ShortDescription struct{ Text string }
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine, StartColumn int }
					}
				}
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	r := log.Runs[0]
	if log.Version != "2.1.0" || len(r.Tool.Driver.Rules) != 2 || r.Tool.Driver.Rules[0].ShortDescription.Text != "The version must be semver." {
		t.Errorf("SARIF driver: %s", b.String())
	}
	if len(r.Results) != 2 || r.Results[1].RuleIndex != 1 || r.Results[1].Level != "warning" || r.Results[0].Locations[0].PhysicalLocation.Region.StartColumn != 14 {
		t.Errorf("SARIF results: %s", b.String())
	}
}

// TestSARIFRuleNames: every rule of the catalogue gets a readable SARIF name, PascalCase and
// different from its id (sarif-multitool warns on a name equal to the id), and no two rules
// share one.
func TestSARIFRuleNames(t *testing.T) {
	var b bytes.Buffer
	if err := SARIF(&b, nil, check.Rules(), "v1.2.0", "https://example.invalid"); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					SemanticVersion string `json:"semanticVersion"`
					Rules           []struct{ ID, Name string }
				}
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	driver := log.Runs[0].Tool.Driver
	if len(driver.Rules) != len(check.Rules()) || len(driver.Rules) < 40 {
		t.Fatalf("%d rules in the SARIF log, %d in the catalogue", len(driver.Rules), len(check.Rules()))
	}
	pascal := regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
	seen := map[string]string{}
	for _, r := range driver.Rules {
		if r.Name == r.ID || !pascal.MatchString(r.Name) {
			t.Errorf("rule %s: name %q is not a PascalCase name different from the id", r.ID, r.Name)
		}
		if other, ok := seen[r.Name]; ok {
			t.Errorf("rules %s and %s share the name %s", other, r.ID, r.Name)
		}
		seen[r.Name] = r.ID
	}
	for id, want := range map[string]string{
		"entry-not-shipped":        "EntryNotShipped",
		"agentos-version-mismatch": "AgentOSVersionMismatch",
		"plaios-manifest-invalid":  "PLAIOSManifestInvalid",
		"openclaw-contract-drift":  "OpenClawContractDrift",
		"package-json-invalid":     "PackageJSONInvalid",
		"pi-peer-range":            "PiPeerRange",
		"readme-missing":           "READMEMissing",
	} {
		if got := RuleName(id); got != want {
			t.Errorf("RuleName(%s) = %s, want %s", id, got, want)
		}
	}
	if driver.SemanticVersion != "1.2.0" {
		t.Errorf("semanticVersion of v1.2.0: %q", driver.SemanticVersion)
	}
	for v, want := range map[string]string{"1.2.0": "1.2.0", "(devel) 4bf426a1c2d3+dirty": "0.0.0-dev", "(devel), no commit recorded": "0.0.0-dev", "v0.0.0-20261203093100-4bf426a1c2d3+dirty": "0.0.0-20261203093100-4bf426a1c2d3+dirty", "": "0.0.0-dev"} {
		if got := semanticVersion(v); got != want {
			t.Errorf("semanticVersion(%q) = %q, want %q", v, got, want)
		}
	}
}
