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
// folder relative to where they are.
func (p *Pack) NotBuilt(file, dir string) string {
	build := p.BuildCommand()
	if build == "" || p.WS == nil || p.WS.Root == "" {
		return ""
	}
	rel := strings.TrimPrefix(path.Clean("/"+strings.TrimPrefix(file, "./")), "/")
	if rel == "" {
		return ""
	}
	if _, err := os.Stat(filepath.Join(p.WS.Root, filepath.FromSlash(p.Dir), filepath.FromSlash(rel))); err == nil {
		return ""
	}
	if dir == "" || dir == "." {
		return fmt.Sprintf("the package is not built (%s does not exist); run `%s` first", rel, build)
	}
	return fmt.Sprintf("%s is not built (%s does not exist); run `%s` in %s first", dir, rel, build, dir)
}
