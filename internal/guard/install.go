package guard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/plaios/plaios/internal/jsonpos"
	npmrc_ "github.com/plaios/plaios/internal/npm/npmrc"
	"github.com/plaios/plaios/internal/pack"
	"github.com/plaios/plaios/internal/sandbox"
)

// HostPackages are the host runtimes' own packages. Guard never installs them, even when a
// pack names one as a peer: the host provides them at run time, and they are big (the
// AgentOS runtime brings ~290 dependencies, openclaw ~650 MB). When the workspace has one
// installed (a devDependency the pack builds against), guard links that copy into its
// project, as the host would provide it; OpenClaw's entry helpers are served by the
// sandbox's faithful copies in any case.
var HostPackages = []string{
	"@framers/agentos",
	"openclaw",
	pack.PiCodingAgent,
	"@earendil-works/pi-ai",
	"@earendil-works/pi-agent-core",
	"@earendil-works/pi-tui",
	"@plaios/core",
	"@plaios/microfrontend",
}

func isHost(name string) bool {
	for _, h := range HostPackages {
		if h == name {
			return true
		}
	}
	return false
}

// install installs the candidates whose tarballs passed their checks into one empty ESM
// project, and returns where each one was installed. When the joint install fails, the
// candidates are installed in halves, and the failing halves halved again (each with the other
// candidates it depends on), so that the failure is pinned on the package that causes it
// without an install per package.
func (g *run) install(ctx context.Context, results []*Result) (map[*Result]string, error) {
	var members []*Result
	for _, r := range results {
		if r.OK && r.packed != nil {
			members = append(members, r)
		}
	}
	installed := map[*Result]string{}
	if len(members) == 0 {
		return installed, nil
	}
	g.progress(Progress{Stage: "install", Done: 0, Total: 1, Note: fmt.Sprintf("%d packages", len(members))})
	project := filepath.Join(g.tmp, "project")
	err := g.installInto(ctx, project, members)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err == nil {
		for _, r := range members {
			installed[r] = project
		}
		g.progress(Progress{Stage: "install", Done: 1, Total: 1})
		return installed, nil
	}
	g.notef("the joint install failed (%v); installing the packages in halves to find which fails", err)
	byName := map[string]*Result{}
	for _, r := range members {
		byName[r.Name] = r
	}
	var mu sync.Mutex
	sem := make(chan struct{}, max(1, g.opts.Jobs))
	next := 0
	// bisect installs group into a project of its own (with the other candidates its members
	// depend on) unless it is known to fail (failed is its error); a failing group is halved,
	// down to the single package that fails, so k culprits among n candidates cost about
	// 2k·log2(n) installs instead of n.
	var bisect func(group []*Result, failed error)
	bisect = func(group []*Result, failed error) {
		if len(group) == 0 || ctx.Err() != nil {
			return
		}
		if failed == nil {
			with := append([]*Result(nil), group...)
			in := map[*Result]bool{}
			for _, r := range group {
				in[r] = true
			}
			for _, r := range group {
				for _, dep := range dependencyNames(r.packed.pkg) {
					if o := byName[dep]; o != nil && !in[o] {
						in[o] = true
						with = append(with, o)
					}
				}
			}
			mu.Lock()
			dir := filepath.Join(g.tmp, fmt.Sprintf("project-%d", next))
			next++
			mu.Unlock()
			sem <- struct{}{}
			failed = g.installInto(ctx, dir, with)
			<-sem
			if failed == nil {
				mu.Lock()
				for _, r := range group {
					installed[r] = dir
				}
				mu.Unlock()
				return
			}
			if ctx.Err() != nil {
				return
			}
		}
		if len(group) == 1 {
			group[0].fail("install failed: %v", failed)
			return
		}
		half := len(group) / 2
		var wg sync.WaitGroup
		for _, part := range [][]*Result{group[:half], group[half:]} {
			wg.Add(1)
			go func(part []*Result) {
				defer wg.Done()
				bisect(part, nil)
			}(part)
		}
		wg.Wait()
	}
	bisect(members, err)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if len(installed) == len(members) {
		// Each installs apart but not all together: say so on every one.
		for _, r := range members {
			r.fail("install failed when installed together with the other candidates (each installs apart): %v", err)
			delete(installed, r)
		}
	}
	g.progress(Progress{Stage: "install", Done: 1, Total: 1})
	return installed, nil
}

// dependencyNames lists the names a package.json depends on (dependencies, optional and peer).
func dependencyNames(pj *jsonpos.Value) []string {
	var out []string
	for _, field := range []string{"dependencies", "optionalDependencies", "peerDependencies"} {
		if deps := pj.Get(field); deps != nil && deps.Kind == jsonpos.Object {
			for _, m := range deps.Members {
				out = append(out, m.Key)
			}
		}
	}
	return out
}

// projectManifest is the package.json of the empty ESM project: the candidates as tarballs
// and the peers they need that are not host packages, as npm ≥ 7 would install them — but for
// a Pi package's: `pi install` installs no peer (Pi 1.6.0's dist/core/package-manager.js
// getNpmInstallArgs: npm --legacy-peer-deps, pnpm auto-install-peers=false, bun --omit=peer),
// so what a Pi package needs and lists only as a peer is missing in Pi too.
func projectManifest(members []*Result) ([]byte, error) {
	deps := map[string]string{}
	names := map[string]bool{}
	for _, r := range members {
		deps[r.Name] = "file:" + r.tarballPath
		names[r.Name] = true
	}
	peers := map[string][]string{}
	for _, r := range members {
		if r.Runtime == pack.Pi {
			continue
		}
		pj := r.packed.pkg
		ps := pj.Get("peerDependencies")
		if ps == nil || ps.Kind != jsonpos.Object {
			continue
		}
		meta := pj.Get("peerDependenciesMeta")
		for _, m := range ps.Members {
			if names[m.Key] || isHost(m.Key) {
				continue
			}
			if opt := meta.Get(m.Key).Get("optional"); opt != nil && opt.Kind == jsonpos.Bool && opt.Boolean {
				continue
			}
			peers[m.Key] = append(peers[m.Key], m.Value.Text())
		}
	}
	for name, ranges := range peers {
		deps[name] = joinRanges(ranges)
	}
	return json.MarshalIndent(map[string]any{
		"name":         "plaios-guard-project",
		"version":      "0.0.0",
		"private":      true,
		"type":         "module",
		"description":  "An empty ESM project plaios guard installs the candidates into.",
		"dependencies": deps,
	}, "", "  ")
}

// joinRanges intersects the ranges several packages ask of one peer, as npm would need to
// satisfy all of them: "^1.2.0 ^1.4.0" means both.
func joinRanges(ranges []string) string {
	uniq := map[string]bool{}
	var out []string
	for _, r := range ranges {
		r = strings.TrimSpace(r)
		if r == "" || r == "*" || uniq[r] {
			continue
		}
		if strings.Contains(r, "||") || strings.Contains(r, ":") {
			return r // a union or a protocol cannot be intersected by juxtaposition
		}
		uniq[r] = true
		out = append(out, r)
	}
	if len(out) == 0 {
		return "*"
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// installInto makes dir an empty ESM project holding members, installs it without install
// scripts, then rebuilds only the dependencies the role map's fixtures name.
func (g *run) installInto(ctx context.Context, dir string, members []*Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	manifest, err := projectManifest(members)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), manifest, 0o644); err != nil {
		return err
	}
	// The npm configuration the user's own npm would use here — the workspace's .npmrc, the
	// user's (npm_config_userconfig or ~/.npmrc), the global one and the npm_config_*
	// variables: registries, scopes, credentials, TLS — applies to the dependencies. npm's
	// install, which runs no script, is the one step that gets it, as one file, expanded,
	// since its environment holds no token; it is gone before any package code runs.
	npmrc := filepath.Join(dir, ".npmrc")
	cfg, err := npmrc_.Load(g.ws.Root, g.opts.Getenv)
	if err != nil {
		return err
	}
	if err := os.WriteFile(npmrc, []byte(cfg.Effective()), 0o600); err != nil {
		return err
	}
	defer os.Remove(npmrc)
	if err := os.WriteFile(filepath.Join(dir, harnessFile), sandbox.Harness(), 0o644); err != nil {
		return err
	}
	// The network only when something comes from the registry (a tarball's dependencies,
	// peers): members that depend on nothing else install offline.
	network := needsRegistry(manifest, members)
	args := installArgs(g.opts.Registry, network)
	var env []string
	if g.opts.Registry != "" {
		env = append(env, "npm_config_registry="+g.opts.Registry)
	}
	cache := filepath.Join(g.tmp, "npm-cache")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return err
	}
	mounts := []sandbox.Mount{{Path: dir, Write: true}, {Path: cache, Write: true}}
	for _, r := range members {
		mounts = append(mounts, sandbox.Mount{Path: r.tarballPath})
	}
	// With the network come the certificate authorities and proxies this machine reaches the
	// registry through.
	if network {
		netEnv, netMounts := sandbox.NetworkEnv(g.opts.Getenv)
		env = append(env, netEnv...)
		mounts = append(mounts, netMounts...)
		if ca := cfg.Get("cafile"); filepath.IsAbs(ca) {
			if _, err := os.Stat(ca); err == nil {
				mounts = append(mounts, sandbox.Mount{Path: ca})
			}
		}
	}
	installEnv := g.toolChildEnv(append(env, "npm_config_cache="+cache)...)
	install := func() error {
		_, err := g.runContained(ctx, "installing", dir, g.opts.NPM, args, sandbox.Spec{Env: installEnv, Network: network, Mounts: mounts})
		return err
	}
	if err := install(); err != nil {
		// npm's install runs no package code here, and can stall at random with nothing left
		// to wait for (npm/cli#4028; seen here about once in fifteen full test runs): one that
		// ran past --step-timeout is tried once more, which npm resumes from what it wrote.
		var st *stepTimeout
		if !errors.As(err, &st) || ctx.Err() != nil {
			return err
		}
		g.notef("npm install did not finish within %s; trying it once more", g.opts.StepTimeout)
		if err := install(); err != nil {
			if errors.As(err, &st) {
				st.tries = 2
			}
			return err
		}
	}
	os.Remove(npmrc)
	g.linkHosts(dir, members)
	var rebuild []string
	seen := map[string]bool{}
	for _, r := range members {
		for _, dep := range g.fixture(r.Dir).InstallScripts {
			if !seen[dep] {
				seen[dep] = true
				rebuild = append(rebuild, dep)
			}
		}
	}
	if len(rebuild) > 0 {
		sort.Strings(rebuild)
		args := append([]string{"rebuild", "--ignore-scripts=false", "--foreground-scripts=false", "--loglevel=error"}, rebuild...)
		// The install scripts are the dependencies' code: no network, only the project to write.
		if _, err := g.runContained(ctx, "running the install scripts of "+strings.Join(rebuild, ", "), dir, g.opts.NPM, args,
			sandbox.Spec{Env: g.toolChildEnv(env...), Mounts: []sandbox.Mount{{Path: dir, Write: true}, {Path: g.ws.Root}}}); err != nil {
			return fmt.Errorf("npm rebuild %s (the fixtures' installScripts) failed: %v", strings.Join(rebuild, " "), err)
		}
	}
	return nil
}

// installArgs is npm's install of the candidates' tarballs: no scripts, no lockfile, peers not
// enforced, from registry when one is given. Without the network npm is told --offline, so
// that it asks the registry, which the sandbox cannot reach, for nothing: a member another
// member depends on resolves from its own tarball.
func installArgs(registry string, network bool) []string {
	args := []string{"install", "--ignore-scripts", "--no-audit", "--no-fund", "--no-package-lock", "--legacy-peer-deps", "--loglevel=error"}
	if registry != "" {
		args = append(args, "--registry", registry)
	}
	if !network {
		args = append(args, "--offline")
	}
	return args
}

// needsRegistry reports whether installing the project fetches anything: a dependency of the
// project manifest that is not one of the candidates' tarballs, or a dependency of a candidate
// that is not another candidate (peers are never installed: --legacy-peer-deps).
func needsRegistry(manifest []byte, members []*Result) bool {
	var pj struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if json.Unmarshal(manifest, &pj) != nil {
		return true
	}
	for _, spec := range pj.Dependencies {
		if !strings.HasPrefix(spec, "file:") {
			return true
		}
	}
	names := map[string]bool{}
	for _, r := range members {
		names[r.Name] = true
	}
	for _, r := range members {
		for _, field := range []string{"dependencies", "optionalDependencies"} {
			if deps := r.packed.pkg.Get(field); deps != nil && deps.Kind == jsonpos.Object {
				for _, m := range deps.Members {
					if !names[m.Key] {
						return true
					}
				}
			}
		}
	}
	return false
}

// linkHosts links into the project's node_modules the host packages the members name that the
// workspace has installed, found from each member's folder up to the repository root as Node
// would find them there. A Pi package gets the workspace's Pi whatever it names: Pi loads every
// package with itself, and its loader resolves its core packages, their former
// @mariozechner/* names and @sinclair/typebox to its own copies (Pi 1.6.0's
// dist/core/extensions/loader.js), so a package that names those, or nothing, works in Pi.
func (g *run) linkHosts(project string, members []*Result) {
	for _, r := range members {
		pj := r.packed.pkg
		names := dependencyNames(pj)
		if r.Runtime == pack.Pi {
			names = append(names, pack.PiCodingAgent)
		}
		if dev := pj.Get("devDependencies"); dev != nil && dev.Kind == jsonpos.Object {
			for _, m := range dev.Members {
				names = append(names, m.Key)
			}
		}
		for _, name := range names {
			if !isHost(name) {
				continue
			}
			link := filepath.Join(project, "node_modules", filepath.FromSlash(name))
			if _, err := os.Lstat(link); err == nil {
				continue
			}
			target := g.findInstalled(r.Dir, name)
			if target == "" {
				continue
			}
			g.showHost(target)
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err == nil {
				if err := os.Symlink(target, link); err == nil {
					g.notef("%s uses the workspace's %s (%s)", r.Name, name, g.rel(target))
				}
			}
		}
	}
}

// showHost makes a host package that the workspace links from outside itself (npm link, a
// file: dependency, a shared store) visible to the import's sandbox, which shows the
// workspace and not the rest of the host: the outermost node_modules folder holding the
// link's real target, so that the package's own dependencies resolve there too.
func (g *run) showHost(target string) {
	real, err := filepath.EvalSymlinks(target)
	if err != nil {
		return
	}
	root := g.ws.Root
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	if real == root || strings.HasPrefix(real, root+string(filepath.Separator)) {
		return
	}
	show := LinkedFolder(real)
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, m := range g.hostMounts {
		if m.Path == show {
			return
		}
	}
	g.hostMounts = append(g.hostMounts, sandbox.Mount{Path: show})
}

// LinkedFolder is what a sandboxed import must see of a package linked from outside what it
// shows (npm link, a file: dependency, a shared store), given the link's real target: the
// outermost node_modules folder holding it, so that the package's own dependencies, installed
// beside it there, resolve too; the target itself when no node_modules holds it.
func LinkedFolder(real string) string {
	show := real
	for dir := real; filepath.Dir(dir) != dir; dir = filepath.Dir(dir) {
		if filepath.Base(dir) == "node_modules" {
			show = dir
		}
	}
	return show
}

// findInstalled looks for node_modules/<name> from a package folder up to the root.
func (g *run) findInstalled(dir, name string) string {
	cur := filepath.Join(g.ws.Root, filepath.FromSlash(dir))
	for {
		p := filepath.Join(cur, "node_modules", filepath.FromSlash(name))
		if _, err := os.Stat(filepath.Join(p, "package.json")); err == nil {
			return p
		}
		if cur == g.ws.Root || filepath.Dir(cur) == cur {
			return ""
		}
		cur = filepath.Dir(cur)
	}
}
