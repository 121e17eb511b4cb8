// Package templates holds the files `plaios create` renders into a new package, embedded in
// the binary: plaios/ (package/ for what every PLAIOS package has, one folder per kind),
// agentos/ (common/ and one folder per template: tool, multi-tool, guardrail), openclaw/tool
// and pi/tool. Every file is a Go text/template over scaffold.Data; `__Field__` in a path is
// replaced by that field (src/tools/__Camel__.ts); files whose name starts with `_` are
// fragments that other templates include, never written themselves.
package templates

import "embed"

// FS is the embedded template tree.
//
//go:embed all:plaios all:agentos all:openclaw all:pi
var FS embed.FS
