package bridge

import (
	"github.com/plaios/plaios/internal/npm/exports"
	"github.com/plaios/plaios/internal/pack"
)

// LoadedFiles are the files of the pack that its runtime loads, as package paths ("./dist/index.js"):
// the file an installed openclaw loads for an OpenClaw plugin's first entry (OpenClawEntry), a Pi package's pi.extensions entries (else its
// main entry), each PLAIOS interface's entry resolved through exports, and otherwise the file
// `import "<name>"` loads.
func LoadedFiles(p *Pack) []string {
	pj := p.Pack.Pkg.JSON.Value
	switch p.Runtime() {
	case pack.OpenClaw:
		if e := OpenClawEntry(p); e != "" {
			return []string{e}
		}
		return nil
	case pack.Pi:
		if list := pj.Path("pi", "extensions").Strings(); len(list) > 0 {
			return list
		}
		if e := PiEntry(p); e != "" {
			return []string{e}
		}
		return nil
	case pack.PLAIOS:
		var out []string
		if m := p.Pack.PLAIOS; m != nil {
			for _, in := range m.Ifaces {
				if target, err := exports.Resolve(pj.Get("exports"), in.EntryPath(), exports.ImportConditions); err == nil {
					out = append(out, target)
				}
			}
		}
		return out
	}
	if target, _, err := exports.Entry(pj, func(string) bool { return true }, nil); err == nil {
		return []string{target}
	}
	return nil
}

// NotBuilt says that the pack is not built, and how to build it, when a file its runtime loads
// is missing and a build script would make it (pack.Pack.NotBuilt); "" otherwise. dir names the
// package folder for the reader.
func NotBuilt(p *Pack, dir string) string {
	for _, f := range LoadedFiles(p) {
		if msg := p.Pack.NotBuilt(f, dir); msg != "" {
			return msg
		}
	}
	return ""
}
