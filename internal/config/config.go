// Package config finds and checks `.plaios.yaml`, the project configuration file. The values
// themselves are layered by viper in cmd (flags > PLAIOS_* environment > file > defaults);
// this package knows the keys, where the file is, and says precisely what is wrong with one:
// an unknown key is a warning, a value of the wrong type is an error naming the file and line.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// FileName is the configuration file looked for from the working directory upwards.
const FileName = ".plaios.yaml"

// Key kinds.
const (
	kindString = "a string"
	kindInt    = "an integer"
	kindBool   = "a boolean"
	kindMap    = "a mapping"
)

// Keys lists every configuration key with the type its value must have. Nested keys are
// written with a dot, as viper and the PLAIOS_* variables name them (github.apiURL →
// PLAIOS_GITHUB_APIURL).
var Keys = map[string]string{
	"runtime":         kindString,
	"scope":           kindString,
	"registry":        kindString,
	"packManager":     kindString,
	"jobs":            kindInt,
	"github":          kindMap,
	"github.repo":     kindString,
	"github.apiURL":   kindString,
	"github.releases": kindBool,
	"rules":           kindMap,
	"fixtures":        kindMap,
}

// Config is the resolved configuration.
type Config struct {
	Runtime     string
	Scope       string
	Registry    string
	PackManager string
	Jobs        int
	GitHubRepo  string
	GitHubAPI   string
	// GitHubReleases says whether publish writes GitHub releases (default true; false for a
	// registry with no GitHub repository, such as a PLAIOS Verdaccio).
	GitHubReleases bool
	Rules          map[string]string
	// Fixtures are guard's inert inputs per package folder (relative to the repository
	// root), for repositories without a role map or on top of its fixtures. They are read
	// from the file itself (ReadFixtures), not through viper, which would split secret ids
	// such as "telegram.botToken" at their dots and lower-case them.
	Fixtures map[string]Fixture
	File     string // the file that was read, "" when none
}

// Fixture is what `plaios guard` feeds one package: secrets by id, the options its factory or
// constructors receive, the dependencies whose install scripts it rebuilds, and whether it may
// try the loopback while it loads (workspace.Fixture says more). The role map's fixtures
// (scripts/package-roles.json) have the same shape.
type Fixture struct {
	Secrets        map[string]string
	Options        map[string]any
	InstallScripts []string
	Loopback       bool
}

// Find walks up from dir to the filesystem root and returns the first .plaios.yaml, or "".
func Find(dir string) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		p := filepath.Join(dir, FileName)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Locate is the configuration file a command reads from dir: given (--config, else
// PLAIOS_CONFIG), relative to dir, which must exist; without one, the nearest .plaios.yaml from
// dir upwards (Find). It returns "" when there is no file to read.
func Locate(dir, given string) (string, error) {
	if given == "" {
		return Find(dir), nil
	}
	if !filepath.IsAbs(given) {
		given = filepath.Join(dir, given)
	}
	if _, err := os.Stat(given); err != nil {
		return "", fmt.Errorf("the configuration file %s does not exist; check --config", given)
	}
	return given, nil
}

// Error is a problem in the configuration file, with its position.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Check reads a configuration file and returns warnings for unknown keys, or an *Error for
// the first value of the wrong type or a file that is not YAML.
func Check(path string) (warnings []string, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &Error{File: path, Msg: "the configuration file does not exist"}
		}
		return nil, &Error{File: path, Msg: fmt.Sprintf("cannot read the configuration file: %v", err)}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line := 0
		msg := err.Error()
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			// yaml: line N: message
			if _, scanErr := fmt.Sscanf(msg, "yaml: line %d:", &line); scanErr == nil {
				msg = strings.TrimSpace(msg[strings.Index(msg, ":")+1:])
				msg = strings.TrimSpace(msg[strings.Index(msg, ":")+1:])
			}
		}
		return nil, &Error{File: path, Line: line, Msg: "not valid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
	}
	if len(doc.Content) == 0 {
		return nil, nil // empty file
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, &Error{File: path, Line: root.Line, Msg: "the configuration must be a mapping of keys to values"}
	}
	warnings, err = checkMapping(path, root, "")
	return warnings, err
}

func checkMapping(path string, m *yaml.Node, prefix string) ([]string, error) {
	var warnings []string
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		key := prefix + k.Value
		if seen[key] {
			return nil, &Error{File: path, Line: k.Line, Msg: fmt.Sprintf("the key %q is given twice", key)}
		}
		seen[key] = true
		if prefix == "fixtures." {
			if err := checkFixture(path, key, v); err != nil {
				return nil, err
			}
			continue
		}
		if prefix == "rules." {
			if v.Kind != yaml.ScalarNode || v.Tag != "!!str" && v.Tag != "!!bool" {
				return nil, &Error{File: path, Line: v.Line, Msg: fmt.Sprintf("%q must be off, warning or error", key)}
			}
			switch v.Value {
			case "off", "warning", "error", "false":
			default:
				return nil, &Error{File: path, Line: v.Line, Msg: fmt.Sprintf("%q is %q; it must be off, warning or error", key, v.Value)}
			}
			continue
		}
		kind, known := lookup(key)
		if !known {
			warnings = append(warnings, fmt.Sprintf("%s:%d: unknown key %q is ignored (known keys: %s)", path, k.Line, key, knownList()))
			continue
		}
		if err := checkType(path, key, kind, v); err != nil {
			return nil, err
		}
		if kind == kindMap {
			w, err := checkMapping(path, v, key+".")
			if err != nil {
				return nil, err
			}
			warnings = append(warnings, w...)
		}
	}
	return warnings, nil
}

func lookup(key string) (string, bool) {
	for k, kind := range Keys {
		if strings.EqualFold(k, key) {
			return kind, true
		}
	}
	return "", false
}

func knownList() string {
	var ks []string
	for k := range Keys {
		if k == "github" {
			continue
		}
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

func checkType(path, key, kind string, v *yaml.Node) error {
	ok := false
	switch kind {
	case kindString:
		ok = v.Kind == yaml.ScalarNode && v.Tag == "!!str"
	case kindInt:
		ok = v.Kind == yaml.ScalarNode && v.Tag == "!!int"
	case kindBool:
		ok = v.Kind == yaml.ScalarNode && v.Tag == "!!bool"
	case kindMap:
		ok = v.Kind == yaml.MappingNode
	}
	if ok {
		return nil
	}
	got := describe(v)
	return &Error{File: path, Line: v.Line, Msg: fmt.Sprintf("%q must be %s, not %s", key, kind, got)}
}

func describe(v *yaml.Node) string {
	switch v.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	switch v.Tag {
	case "!!int":
		return "the integer " + v.Value
	case "!!float":
		return "the number " + v.Value
	case "!!bool":
		return "the boolean " + v.Value
	case "!!null":
		return "null"
	case "!!str":
		return fmt.Sprintf("the string %q", v.Value)
	}
	return v.Value
}

// checkFixture checks one entry of fixtures: a mapping with secrets (strings by id), options
// (a mapping), installScripts (a list of package names) and loopback (true or false), and
// nothing else.
func checkFixture(path, key string, v *yaml.Node) error {
	if v.Kind != yaml.MappingNode {
		return &Error{File: path, Line: v.Line, Msg: fmt.Sprintf("%q must be a mapping with secrets, options, installScripts and loopback, not %s", key, describe(v))}
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		name := key + "." + k.Value
		switch k.Value {
		case "secrets":
			if val.Kind != yaml.MappingNode {
				return &Error{File: path, Line: val.Line, Msg: fmt.Sprintf("%q must be a mapping of secret ids to strings, not %s", name, describe(val))}
			}
			for j := 0; j+1 < len(val.Content); j += 2 {
				if s := val.Content[j+1]; s.Kind != yaml.ScalarNode || s.Tag != "!!str" {
					return &Error{File: path, Line: s.Line, Msg: fmt.Sprintf("the secret %q of %q must be a string, not %s", val.Content[j].Value, key, describe(s))}
				}
			}
		case "options":
			if val.Kind != yaml.MappingNode {
				return &Error{File: path, Line: val.Line, Msg: fmt.Sprintf("%q must be a mapping, not %s", name, describe(val))}
			}
		case "installScripts":
			if val.Kind != yaml.SequenceNode {
				return &Error{File: path, Line: val.Line, Msg: fmt.Sprintf("%q must be a list of package names, not %s", name, describe(val))}
			}
			for _, it := range val.Content {
				if it.Kind != yaml.ScalarNode || it.Tag != "!!str" {
					return &Error{File: path, Line: it.Line, Msg: fmt.Sprintf("%q must list package names, not %s", name, describe(it))}
				}
			}
		case "loopback":
			if val.Kind != yaml.ScalarNode || val.Tag != "!!bool" {
				return &Error{File: path, Line: val.Line, Msg: fmt.Sprintf("%q must be true or false, not %s", name, describe(val))}
			}
		default:
			return &Error{File: path, Line: k.Line, Msg: fmt.Sprintf("%q is not a fixture key; a fixture has secrets, options, installScripts and loopback", name)}
		}
	}
	return nil
}

// ReadFixtures reads the fixtures of a configuration file that Check accepted, keeping keys
// exactly as written. A file without fixtures gives nil.
func ReadFixtures(path string) (map[string]Fixture, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Msg: fmt.Sprintf("cannot read the configuration file: %v", err)}
	}
	var doc struct {
		Fixtures map[string]struct {
			Secrets        map[string]string `yaml:"secrets"`
			Options        map[string]any    `yaml:"options"`
			InstallScripts []string          `yaml:"installScripts"`
			Loopback       bool              `yaml:"loopback"`
		} `yaml:"fixtures"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &Error{File: path, Msg: "fixtures: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	if len(doc.Fixtures) == 0 {
		return nil, nil
	}
	out := make(map[string]Fixture, len(doc.Fixtures))
	for dir, f := range doc.Fixtures {
		out[dir] = Fixture{Secrets: f.Secrets, Options: f.Options, InstallScripts: f.InstallScripts, Loopback: f.Loopback}
	}
	return out, nil
}
