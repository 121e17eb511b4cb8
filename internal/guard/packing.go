package guard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/sandbox"
)

// packAll packs every candidate with the repository's pack tool, in parallel. npm packs several
// folders in one process (`npm pack A B C`), so the candidates are split into one batch per
// job, which spares a node start per package; a batch that fails is packed again one package
// at a time, so that the failure is pinned on the package that caused it. pnpm packs one
// folder per process.
func (g *run) packAll(ctx context.Context, results []*Result) error {
	if g.out == "" {
		g.out = filepath.Join(g.tmp, "packs")
		if err := os.MkdirAll(g.out, 0o755); err != nil {
			return exit.EnvErr(err)
		}
	}
	total := len(results)
	done := 0
	report := func(n int) {
		g.mu.Lock()
		done += n
		d := done
		g.mu.Unlock()
		g.progress(Progress{Stage: "pack", Done: d, Total: total})
	}
	g.progress(Progress{Stage: "pack", Done: 0, Total: total})
	if g.packManager() == "pnpm" {
		g.parallel(total, func(i int) {
			g.packOne(ctx, results[i])
			report(1)
		})
		return ctx.Err()
	}
	batches := min(g.opts.Jobs, total)
	groups := make([][]*Result, batches)
	for i, r := range results {
		groups[i%batches] = append(groups[i%batches], r)
	}
	g.parallel(batches, func(b int) {
		group := groups[b]
		if err := g.npmPack(ctx, group); err != nil {
			if ctx.Err() != nil {
				return
			}
			if len(group) == 1 {
				g.packFailed(group[0], err) // already pinned: packing it again would only cost the time again
			} else {
				g.notef("npm pack of %d packages failed (%v); packing them one at a time to find which", len(group), err)
				for _, r := range group {
					g.packOne(ctx, r)
				}
			}
		}
		report(len(group))
	})
	return ctx.Err()
}

// packOne packs one package, recording a failure on it.
func (g *run) packOne(ctx context.Context, r *Result) {
	var err error
	if g.packManager() == "pnpm" {
		err = g.pnpmPack(ctx, r)
	} else {
		err = g.npmPack(ctx, []*Result{r})
	}
	if err != nil && ctx.Err() == nil {
		g.packFailed(r, err)
	}
}

// packFailed records on r that packing it failed; a pack stopped at --step-timeout names the
// lifecycle scripts packing runs, the likeliest to hang.
func (g *run) packFailed(r *Result, err error) {
	var st *stepTimeout
	if errors.As(err, &st) {
		st.scripts = packScripts(r)
	}
	hint := ""
	if commandNotFound.MatchString(err.Error()) {
		// The shell's own code: in CI, nearly always a checkout whose dependencies were not
		// installed before guard.
		hint = "; exit code 127 means a command the script runs was not found: are the package's dependencies installed (npm ci) before guard runs?"
	}
	r.fail("%s pack failed: %v%s", g.packManager(), err, hint)
}

// commandNotFound matches npm's and pnpm's words for a lifecycle script that ended with the
// shell's "command not found".
var commandNotFound = regexp.MustCompile(`\bcode 127\b`)

// packScripts names the lifecycle scripts of r that npm and pnpm run when packing, with their
// commands ("" when it has none).
func packScripts(r *Result) string {
	if r.pk == nil {
		return ""
	}
	scripts := r.pk.JSON().Get("scripts")
	var out []string
	for _, name := range []string{"prepack", "prepare", "postpack"} {
		if v := scripts.Get(name); v.IsString() {
			out = append(out, fmt.Sprintf("its %s script (%s)", name, clip(v.Text(), 120)))
		}
	}
	return strings.Join(out, " and ")
}

// npmPackEntry is one element of `npm pack --json`.
type npmPackEntry struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Filename string `json:"filename"`
}

func (g *run) npmPack(ctx context.Context, group []*Result) error {
	var dirs []string
	for _, r := range group {
		dirs = append(dirs, filepath.Join(g.ws.Root, filepath.FromSlash(r.Dir)))
	}
	mounts, dest, cleanup, err := g.packMounts(dirs)
	defer cleanup()
	if err != nil {
		return err
	}
	args := append([]string{"pack", "--json", "--pack-destination", dest}, dirs...)
	stdout, err := g.runContained(ctx, "packing", g.ws.Root, g.opts.NPM, args, sandbox.Spec{Env: g.toolChildEnv(), Mounts: mounts})
	if err != nil {
		return err
	}
	entries, perr := parsePackJSON(stdout)
	byName := map[string]npmPackEntry{}
	for _, e := range entries {
		byName[e.Name] = e
	}
	for _, r := range group {
		file := tarballName(r.Name, r.Version)
		if e, ok := byName[r.Name]; ok && e.Filename != "" {
			file = filepath.Base(strings.ReplaceAll(e.Filename, "\\", "/"))
		}
		r.tarballPath = filepath.Join(g.out, file)
		r.Tarball = file
		if err := moveTarball(filepath.Join(dest, file), r.tarballPath); err != nil {
			if perr != nil {
				return fmt.Errorf("npm pack wrote no %s (%v)", file, perr)
			}
			return fmt.Errorf("npm pack wrote no %s", file)
		}
	}
	return nil
}

func (g *run) pnpmPack(ctx context.Context, r *Result) error {
	dir := filepath.Join(g.ws.Root, filepath.FromSlash(r.Dir))
	mounts, dest, cleanup, err := g.packMounts([]string{dir})
	defer cleanup()
	if err != nil {
		return err
	}
	if _, err := g.runContained(ctx, "packing", dir, g.opts.PNPM, []string{"pack", "--pack-destination", dest}, sandbox.Spec{Env: g.toolChildEnv(), Mounts: mounts}); err != nil {
		return err
	}
	file := tarballName(r.Name, r.Version)
	r.tarballPath = filepath.Join(g.out, file)
	r.Tarball = file
	if err := moveTarball(filepath.Join(dest, file), r.tarballPath); err != nil {
		return fmt.Errorf("pnpm pack wrote no %s", file)
	}
	return nil
}

// tarballName is the file name npm and pnpm give a package's tarball.
func tarballName(name, version string) string {
	n := strings.TrimPrefix(name, "@")
	n = strings.Replace(n, "/", "-", 1)
	return n + "-" + version + ".tgz"
}

// parsePackJSON reads `npm pack --json`, skipping any script output printed before it.
func parsePackJSON(out []byte) ([]npmPackEntry, error) {
	var entries []npmPackEntry
	if err := json.Unmarshal(out, &entries); err == nil {
		return entries, nil
	}
	for i := 0; i < len(out); i++ {
		if out[i] != '[' || (i > 0 && out[i-1] != '\n') {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(out[i:]))
		if err := dec.Decode(&entries); err == nil {
			return entries, nil
		}
	}
	return nil, fmt.Errorf("npm pack --json printed no JSON list")
}

func shortArgs(args []string) []string {
	if len(args) <= 8 {
		return args
	}
	out := append([]string(nil), args[:7]...)
	return append(out, fmt.Sprintf("… (%d more)", len(args)-7))
}

// toolError keeps the lines of npm's (or pnpm's) output that say what went wrong.
func toolError(stderr, stdout string, err error) string {
	var keep, output []string
	for _, line := range strings.Split(stderr+"\n"+stdout, "\n") {
		line = strings.TrimSpace(line)
		l := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(line, "npm error"), "npm ERR!"))
		if l == "" || strings.Contains(l, "A complete log of this run") || strings.HasPrefix(l, "/") && strings.HasSuffix(l, ".log") ||
			strings.HasPrefix(line, "npm warn") || strings.HasPrefix(line, "npm notice") || strings.HasPrefix(l, "at ") {
			continue
		}
		if strings.HasPrefix(line, "npm error") || strings.HasPrefix(line, "npm ERR!") || strings.HasPrefix(line, "ERR_PNPM") || strings.HasPrefix(line, " ERR_PNPM") {
			keep = append(keep, l)
		}
	}
	// A lifecycle script run in the foreground writes to npm's own stderr: its last lines
	// (npm's banner "> name@1.0.0 prepack" aside) are the cause, where npm says only "code 1".
	for _, line := range strings.Split(stderr, "\n") {
		l := strings.TrimSpace(line)
		if l == "" || strings.HasPrefix(l, "npm ") || strings.HasPrefix(l, ">") || strings.HasPrefix(l, "at ") || strings.HasPrefix(l, "ERR_PNPM") {
			continue
		}
		output = append(output, l)
	}
	if len(output) > 3 {
		output = output[len(output)-3:]
	}
	if len(keep) == 0 {
		keep, output = output, nil
	}
	msg := clip(strings.Join(keep, "; "), 400)
	if len(output) > 0 {
		msg += "; its output: " + clip(strings.Join(output, " / "), 400)
	}
	if msg == "" {
		return err.Error()
	}
	return msg
}

// clip shortens s to at most n bytes, cutting between characters and ending in "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
