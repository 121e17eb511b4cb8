package pack

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// BuildCommand is the command that builds the package, as its "Next steps" say: `npm run
// build`, or `pnpm run build` in a pnpm workspace; "" when package.json has no build script.
func (p *Pack) BuildCommand() string {
	if p.Pkg == nil || p.Pkg.JSON == nil || p.Pkg.JSON.Value == nil {
		return ""
	}
	if s := p.Pkg.JSON.Value.Path("scripts", "build"); s == nil || strings.TrimSpace(s.Text()) == "" {
		return ""
	}
	tool := "npm"
	if p.WS != nil && p.WS.PackManager == "pnpm" {
		tool = "pnpm"
	}
	return tool + " run build"
}

// NotBuilt says that the package is not built when file, a path inside the package that its
// runtime loads (./dist/index.js), is missing from the package folder and a build script would
// make it: "packages/weather is not built (dist/index.js does not exist); run `npm run build`
// in packages/weather first". It returns "" when the file is there, when the package has no
// build script (a missing file is then a mistake of the package, not a step left out), or when
// the package is not on disk. dir names the folder for the reader: the path they gave, or the
// folder relative to where they are. A package installed in a node_modules was published
// without the file, and the sentence says so instead.
func (p *Pack) NotBuilt(file, dir string) string {
	build := p.BuildCommand()
	if build == "" || p.WS == nil || p.WS.Root == "" {
		return ""
	}
	rel := strings.TrimPrefix(path.Clean("/"+strings.TrimPrefix(file, "./")), "/")
	if rel == "" {
		return ""
	}
	folder := filepath.Join(p.WS.Root, filepath.FromSlash(p.Dir))
	if _, err := os.Stat(filepath.Join(folder, filepath.FromSlash(rel))); err == nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(folder); err == nil && Installed(real) {
		// npm, pnpm and yarn install a package's published files and never build it.
		name := p.Name()
		if name == "" {
			name = dir
		}
		return fmt.Sprintf("%s was published without its build: it has no %s, the file its runtime loads, and an installed package is never built; install a version that ships it", name, rel)
	}
	if dir == "" || dir == "." {
		return fmt.Sprintf("the package is not built (%s does not exist); run `%s` first", rel, build)
	}
	return fmt.Sprintf("%s is not built (%s does not exist); run `%s` in %s first", dir, rel, build, dir)
}

// Installed reports whether a folder (a real path) lies in a node_modules folder: a package
// a package manager installed, not one of a workspace's own (those it links, from elsewhere).
func Installed(folder string) bool {
	for _, part := range strings.Split(filepath.ToSlash(folder), "/") {
		if part == "node_modules" {
			return true
		}
	}
	return false
}
