// Command typecheck type-checks Go packages for other targets (GOOS/GOARCH) from source, as
// the compiler's front end does before it generates code, without compiling anything: a
// release target's whole build graph, the standard library included, is parsed and
// type-checked in seconds, where cross-compiling it on an empty build cache takes minutes of
// CPU. The root package's TestReleaseTargetsTypeCheck runs it on plaios for the release
// targets other than the machine's.
//
//	typecheck [-C dir] -targets windows/amd64,darwin/arm64 [-files importpath] pattern...
//
// For each target it prints every error as "target: file:line:col: message", then one line
// "target: N packages, E errors"; with -files, the Go files the named package compiles for the
// target. It exits 1 when a package has an error, 2 on bad usage.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// result is what one target's check found.
type result struct {
	packages int
	errors   []string
	files    []string // of -files
	err      error    // the load itself failed
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("typecheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("C", ".", "the module's `folder`")
	targets := fs.String("targets", "", "comma-separated GOOS/GOARCH `list`")
	files := fs.String("files", "", "print the Go files this `import path` compiles for each target")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var list [][2]string
	for _, t := range strings.Split(*targets, ",") {
		goos, goarch, ok := strings.Cut(strings.TrimSpace(t), "/")
		if !ok || goos == "" || goarch == "" {
			fmt.Fprintf(stderr, "typecheck: -targets takes GOOS/GOARCH pairs separated by commas, not %q\n", *targets)
			return 2
		}
		list = append(list, [2]string{goos, goarch})
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "typecheck: name the packages to check (a pattern such as . or ./...)")
		return 2
	}
	results := make([]result, len(list))
	var wg sync.WaitGroup
	for i, t := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = check(*dir, t[0], t[1], *files, fs.Args())
		}()
	}
	wg.Wait()
	code := 0
	for i, t := range list {
		name := t[0] + "/" + t[1]
		r := results[i]
		if r.err != nil {
			fmt.Fprintf(stdout, "%s: %v\n", name, r.err)
			code = 1
			continue
		}
		for _, e := range r.errors {
			fmt.Fprintf(stdout, "%s: %s\n", name, e)
		}
		if *files != "" {
			fmt.Fprintf(stdout, "%s: %s: %s\n", name, *files, strings.Join(r.files, " "))
		}
		noun := "errors"
		if len(r.errors) == 1 {
			noun = "error"
		}
		fmt.Fprintf(stdout, "%s: %d packages, %d %s\n", name, r.packages, len(r.errors), noun)
		if len(r.errors) > 0 {
			code = 1
		}
	}
	return code
}

// check loads the patterns and everything they import for one target, from source, and
// type-checks them.
func check(dir, goos, goarch, files string, patterns []string) result {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
			packages.NeedDeps | packages.NeedTypes | packages.NeedSyntax,
		Dir: dir,
		Env: append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0"),
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return result{err: err}
	}
	var r result
	seen := map[string]bool{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		r.packages++
		for _, e := range p.Errors {
			if msg := e.Error(); !seen[msg] {
				seen[msg] = true
				r.errors = append(r.errors, msg)
			}
		}
		if p.PkgPath == files {
			for _, f := range p.GoFiles {
				r.files = append(r.files, filepath.Base(f))
			}
		}
	})
	sort.Strings(r.errors)
	return r
}
