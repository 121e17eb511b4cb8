package guard

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/npm/npmrc"
	"github.com/plaios/plaios/internal/npm/registry"
	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/workspace"
)

// openWorkspace finds the repository the PATH arguments belong to and which of its packages
// they name.
func (g *run) openWorkspace() error {
	paths := g.opts.Paths
	if len(paths) == 0 {
		paths = []string{"."}
	}
	var root string
	var scope []string
	for _, p := range paths {
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(g.opts.Dir, p)
		}
		abs = filepath.Clean(abs)
		st, err := os.Stat(abs)
		if err != nil || !st.IsDir() {
			return exit.Usagef("%s is not a folder; give a package folder or a repository root", p)
		}
		r := workspace.PackageRoot(abs)
		if root == "" {
			root = r
		} else if r != root {
			return exit.Usagef("%s and %s belong to different repositories; guard one repository at a time", paths[0], p)
		}
		if rel, err := filepath.Rel(r, abs); err == nil && rel != "." {
			scope = append(scope, filepath.ToSlash(rel))
		} else {
			scope = nil
			break
		}
	}
	ws, err := workspace.Open(root)
	if err != nil {
		return exit.Usagef("%v", err)
	}
	g.ws = ws
	g.scope = scope
	return nil
}

func (g *run) inScope(dir string) bool {
	if len(g.scope) == 0 {
		return true
	}
	for _, s := range g.scope {
		if dir == s || strings.HasPrefix(dir, s+"/") {
			return true
		}
	}
	return false
}

// candidates chooses the packages to guard, and says how.
func (g *run) candidates(ctx context.Context) (cands []*pack.Pack, skipped int, selection string, err error) {
	var publishable []*pack.Pack
	for _, p := range g.ws.Packages {
		if !g.ws.Publishable(p) || !g.inScope(p.Dir) {
			continue
		}
		publishable = append(publishable, pack.Load(g.ws, p, g.opts.Runtime))
	}
	byDir := map[string]*pack.Pack{}
	for _, p := range publishable {
		byDir[p.Dir] = p
	}
	switch {
	case len(g.opts.Only) > 0:
		selection = "--only"
		seen := map[string]bool{}
		for _, d := range g.opts.Only {
			for _, one := range strings.Split(d, ",") {
				one = strings.TrimSpace(one)
				if one == "" {
					continue
				}
				dir := g.workspaceDir(one)
				p := byDir[dir]
				if p == nil {
					return nil, 0, "", exit.Usagef("--only names %s, which is not a publishable package here; publishable: %s", one, dirList(publishable))
				}
				if !seen[dir] {
					seen[dir] = true
					cands = append(cands, p)
				}
			}
		}
	case g.opts.Plan != "":
		selection = "--plan"
		cands, err = g.fromPlan(byDir)
		if err != nil {
			return nil, 0, "", err
		}
	case g.opts.All:
		selection = "--all"
		cands = publishable
	default:
		selection = "unpublished"
		cands, skipped, err = g.unpublished(ctx, publishable)
		if err != nil {
			return nil, 0, "", err
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].Dir < cands[j].Dir })
	if g.opts.Shards > 0 {
		var mine []*pack.Pack
		for i, c := range cands {
			if i%g.opts.Shards == g.opts.Shard-1 {
				mine = append(mine, c)
			}
		}
		cands = mine
	}
	for _, c := range cands {
		if c.Name() == "" || c.Version() == "" {
			return nil, 0, "", exit.Failf("%s/package.json has no name or version; guard packs only what npm could publish", c.Dir)
		}
	}
	return cands, skipped, selection, nil
}

// workspaceDir turns a folder given on the command line (relative to the working directory
// or to the repository root) into a workspace dir.
func (g *run) workspaceDir(d string) string {
	d = filepath.FromSlash(d)
	abs := d
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(g.opts.Dir, d)
	}
	if rel, err := filepath.Rel(g.ws.Root, abs); err == nil && !strings.HasPrefix(rel, "..") {
		if _, err := os.Stat(abs); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return path.Clean(filepath.ToSlash(strings.TrimPrefix(d, "./")))
}

func dirList(ps []*pack.Pack) string {
	if len(ps) == 0 {
		return "none"
	}
	var out []string
	for i, p := range ps {
		if i == 8 {
			out = append(out, fmt.Sprintf("and %d more", len(ps)-i))
			break
		}
		out = append(out, p.Dir)
	}
	return strings.Join(out, ", ")
}

// plan is the part of plan.json guard reads.
type plan struct {
	SchemaVersion int `json:"schemaVersion"`
	Releases      []struct {
		Name string `json:"name"`
		Dir  string `json:"dir"`
		Next string `json:"next"`
	} `json:"releases"`
}

func (g *run) fromPlan(byDir map[string]*pack.Pack) ([]*pack.Pack, error) {
	file := g.opts.Plan
	if !filepath.IsAbs(file) {
		file = filepath.Join(g.opts.Dir, file)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, exit.Usagef("cannot read the plan %s: %v", g.opts.Plan, err)
	}
	var pl plan
	if err := json.Unmarshal(data, &pl); err != nil {
		return nil, exit.Usagef("%s is not a release plan (plan.json from plaios release-plan): %v", g.opts.Plan, err)
	}
	if pl.SchemaVersion != 1 {
		return nil, exit.Usagef("%s has schemaVersion %d; this plaios reads plans of schemaVersion 1", g.opts.Plan, pl.SchemaVersion)
	}
	var out []*pack.Pack
	for _, r := range pl.Releases {
		dir := path.Clean(r.Dir)
		p := byDir[dir]
		if p == nil {
			return nil, exit.Usagef("the plan releases %s from %s, which is not a publishable package of this workspace", r.Name, r.Dir)
		}
		if p.Name() != r.Name {
			return nil, exit.Usagef("the plan releases %s from %s, but that folder holds %s", r.Name, r.Dir, p.Name())
		}
		if r.Next != "" && p.Version() != r.Next {
			return nil, exit.Failf("the plan releases %s@%s but %s/package.json says %s; run plaios release-plan --write first", r.Name, r.Next, r.Dir, p.Version())
		}
		out = append(out, p)
	}
	return out, nil
}

// unpublished keeps the packages whose version the registry does not have.
func (g *run) unpublished(ctx context.Context, ps []*pack.Pack) ([]*pack.Pack, int, error) {
	if len(ps) == 0 {
		return nil, 0, nil
	}
	rc, err := npmrc.Load(g.ws.Root, g.opts.Getenv)
	if err != nil {
		return nil, 0, exit.Usagef("%v; fix the .npmrc", err)
	}
	client := &registry.Client{HTTP: g.opts.HTTP, NPMRC: rc, Registry: g.opts.Registry, Abbreviated: true}
	if client.HTTP == nil {
		client.HTTP = &http.Client{Timeout: 60 * time.Second}
	}
	var names []string
	for _, p := range ps {
		if p.Name() != "" {
			names = append(names, p.Name())
		}
	}
	docs, err := client.Packuments(ctx, names, g.opts.Jobs)
	if err != nil {
		return nil, 0, exit.EnvErr(fmt.Errorf("cannot tell which versions are already published: %w; check --registry and your network, or choose the candidates with --all, --only or --plan", err))
	}
	var out []*pack.Pack
	skipped := 0
	for _, p := range ps {
		doc := docs[p.Name()]
		if doc != nil {
			if _, ok := doc.Versions[p.Version()]; ok {
				skipped++
				continue
			}
		}
		out = append(out, p)
	}
	return out, skipped, nil
}

// lookPath finds a program on the PATH the environment gives.
func lookPath(name string, getenv func(string) string) (string, error) {
	if pathEnv := getenv("PATH"); pathEnv != "" {
		for _, dir := range filepath.SplitList(pathEnv) {
			p := filepath.Join(dir, name)
			if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
				return p, nil
			}
		}
		return "", exec.ErrNotFound
	}
	return exec.LookPath(name)
}
