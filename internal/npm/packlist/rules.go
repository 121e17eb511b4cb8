package packlist

import (
	"fmt"
	"strings"
	"sync"

	"github.com/plaios/plaios/internal/npm/packlist/internal/minimatch"
)

// Rule sets are keyed by the name ignore-walk keys them by: the ignore file's name, or one of the
// two synthetic sets npm-packlist injects.
const (
	setDefaults = "\x00defaultRules"
	setStrict   = "\x00strictRules"
)

// rule is one ignore line: a minimatch pattern (negated patterns re-include) and, for hints, the
// phrase saying where it comes from when it leaves a file out.
type rule struct {
	mm  *minimatch.Minimatch
	why string
}

// ruleLine is a line of text to parse as a rule and what to say about it.
type ruleLine struct {
	text string
	why  string
}

// ignore-walk's options for every ignore rule.
var ruleOptions = minimatch.Options{Dot: true, NoCase: true, MatchBase: true}

// ruleCache keeps compiled rules by text: a Minimatch is immutable once built, and the same
// default rules are compiled for every folder of every package otherwise.
var ruleCache struct {
	sync.Mutex
	m map[string]*minimatch.Minimatch
}

const ruleCacheMax = 20000

func compileRule(text string) (*minimatch.Minimatch, error) {
	ruleCache.Lock()
	mm, ok := ruleCache.m[text]
	ruleCache.Unlock()
	if ok {
		return mm, nil
	}
	mm, err := minimatch.New(text, ruleOptions)
	if err != nil {
		return nil, err
	}
	ruleCache.Lock()
	if ruleCache.m == nil || len(ruleCache.m) >= ruleCacheMax {
		ruleCache.m = map[string]*minimatch.Minimatch{}
	}
	ruleCache.m[text] = mm
	ruleCache.Unlock()
	return mm, nil
}

// splitLines is JavaScript's text.split(/\r?\n/).
func splitLines(text string) []string {
	lines := strings.Split(text, "\n")
	for i, l := range lines[:len(lines)-1] {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// parseRules turns lines into rules as ignore-walk's onReadIgnoreFile does: each line is
// trimmed, blank lines and lines starting with "#" are dropped. A line holding newlines (a
// `files` entry can) becomes several rules, as it does when npm joins and splits the text.
func parseRules(lines []ruleLine) ([]*rule, error) {
	out := []*rule{}
	for _, l := range lines {
		for _, text := range splitLines(l.text) {
			text = minimatch.JSTrim(text)
			if text == "" || strings.HasPrefix(text, "#") {
				continue
			}
			mm, err := compileRule(text)
			if err != nil {
				return nil, &RuleError{Rule: text, Source: l.why, Err: err}
			}
			out = append(out, &rule{mm: mm, why: l.why})
		}
	}
	return out, nil
}

// RuleError is an ignore rule npm cannot compile: npm pack itself fails on it.
type RuleError struct {
	Rule   string // the trimmed line
	Source string // where it comes from
	Err    error
}

func (e *RuleError) Error() string {
	return fmt.Sprintf("npm cannot use the ignore rule %q (%s): %v", e.Rule, strings.TrimPrefix(e.Source, "excluded by "), e.Err)
}

func (e *RuleError) Unwrap() error { return e.Err }

// fileLines are the lines of an ignore file, each knowing its line number.
func fileLines(content, label string) []ruleLine {
	var out []ruleLine
	for i, l := range splitLines(content) {
		t := minimatch.JSTrim(l)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		out = append(out, ruleLine{text: l, why: fmt.Sprintf("excluded by %s line %d (%q)", label, i+1, t)})
	}
	return out
}

// defaults are npm-packlist's default rules, applied in every folder.
var defaults = []ruleLine{
	{".npmignore", "npm never packs .npmignore files"},
	{".gitignore", "npm never packs .gitignore files"},
	{"**/.git", "npm never packs .git"},
	{"**/.svn", "npm never packs .svn"},
	{"**/.hg", "npm never packs .hg"},
	{"**/CVS", "npm never packs CVS folders"},
	{"**/.git/**", "npm never packs .git"},
	{"**/.svn/**", "npm never packs .svn"},
	{"**/.hg/**", "npm never packs .hg"},
	{"**/CVS/**", "npm never packs CVS folders"},
	{"/.lock-wscript", "npm never packs .lock-wscript"},
	{"/.wafpickle-*", "npm never packs .wafpickle-* files"},
	{"/build/config.gypi", "npm never packs build/config.gypi"},
	{"npm-debug.log", "npm never packs npm-debug.log"},
	{"**/.npmrc", "npm never packs .npmrc"},
	{".*.swp", "npm never packs editor swap files (.*.swp)"},
	{".DS_Store", "npm never packs .DS_Store"},
	{"**/.DS_Store/**", "npm never packs .DS_Store"},
	{"._*", "npm never packs ._* files"},
	{"**/._*/**", "npm never packs ._* files"},
	{"*.orig", "npm never packs *.orig files"},
	{"/archived-packages/**", "npm never packs archived-packages/"},
}

// strictDefaults are forced on every folder that is not a package root.
var strictDefaults = []ruleLine{{"/.git", "npm never packs .git"}}

// packageStrict are the strict rules of a package root, before `files` file entries (which go
// first) and main/browser/bin (which go last).
var packageStrict = []ruleLine{
	{"/.git", "npm never packs .git"},
	{"!/package.json", ""},
	{"!/readme{,.*[^~$]}", ""},
	{"!/copying{,.*[^~$]}", ""},
	{"!/license{,.*[^~$]}", ""},
	{"!/licence{,.*[^~$]}", ""},
	{"/.git", "npm never packs .git"},
	{"/node_modules", "npm never packs node_modules (only bundled dependencies)"},
	{".npmrc", "npm never packs .npmrc"},
	{"/package-lock.json", "npm never packs package-lock.json"},
	{"/yarn.lock", "npm never packs yarn.lock"},
	{"/pnpm-lock.yaml", "npm never packs pnpm-lock.yaml"},
	{"/bun.lockb", "npm never packs bun.lockb"},
}

const notInFiles = `not listed in "files"`
