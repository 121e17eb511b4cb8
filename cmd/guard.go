package cmd

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/plaios/plaios/internal/check"
	"github.com/plaios/plaios/internal/config"
	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/guard"
	"github.com/plaios/plaios/internal/sandbox"
)

// GuardOptions holds the inputs of `plaios guard` and what it needs from the outside.
type GuardOptions struct {
	IO         *IOStreams
	Config     func() (*config.Config, error)
	HTTPClient func() (*http.Client, error)
	Getenv     func(string) string
	Dir        func() (string, error)
	JSON       bool // the global --json

	Paths       []string
	All         bool
	Only        []string
	Plan        string
	Out         string
	Registry    string
	Timeout     time.Duration
	StepTimeout time.Duration
	Memory      string // --memory, as typed ("2GiB")
	memory      int64  // Memory in bytes, read once by the command's validation
	Jobs        int
	Shard       string // "I/N"
	Sandbox     string
	Format      string
	Runtime     string // --runtime
}

// NewCmdGuard builds `plaios guard`. runF replaces the run in tests of flag parsing.
func NewCmdGuard(f *Factory, runF func(*GuardOptions) error) *cobra.Command {
	opts := &GuardOptions{IO: f.IO, Config: f.Config, HTTPClient: f.HTTPClient, Getenv: f.Getenv, Dir: f.Dir}
	c := &cobra.Command{
		Use:   "guard [PATH...]",
		Short: "Pack, install and load each candidate with the network refused",
		Long: `Proves that what would be published works: packs each candidate with the repository's pack
tool, checks the tarball, installs it into an empty ESM project without install scripts and
imports it there in a child process with the network refused, then checks the contract of its
runtime and role.

Candidates by default are the publishable packages whose version is not yet on the registry;
--all takes every publishable package, --only the folders it names, --plan the releases of a
release plan. --shard I/N keeps a stable 1/N of them, for CI matrices.

Each package's runtime (and so its contract) comes from its content, as for validate;
--runtime (or the configuration's runtime) forces one for every candidate.

Packages load with inert inputs. An AgentOS factory is called as @framers/agentos calls it,
with {options, logger, getSecret, services, manifestEntry}: options.secrets and getSecret hold
"placeholder-<id>" for every secret manifest.json requires. Give a package other values (an
option its factory needs, a secret of the right shape) as fixtures of its folder: in the role
map, scripts/package-roles.json
  "fixtures": {"<dir>": {"secrets": {"<id>": "…"}, "options": {…}, "installScripts": ["<dep>"], "loopback": true}}
or, with or without a role map, in .plaios.yaml (laid over the role map's, key by key):
  fixtures:
    packages/telegram:
      secrets: {telegram.botToken: "000000:inert"}
      options: {webhookUrl: "http://127.0.0.1/hook"}
      installScripts: [sharp]
Folders are relative to the repository root. installScripts names the dependencies whose
install scripts guard runs (npm rebuild) after installing without them. loopback: true lets
a pack whose work is finding a server on the user's machine try the loopback while it loads
(the sandbox's own: it reaches nothing of the host); any other address still fails it.`,
		Example: `  plaios guard
  plaios guard --all --out .plaios/packs
  plaios guard --plan plan.json --out .plaios/packs --format github
  plaios guard --only registry/curated/research/web-search --timeout 2m
  plaios guard --all --shard 2/4`,
		Args: usageArgs(cobra.ArbitraryArgs),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Paths = args
			opts.JSON = f.JSON
			if err := oneOf("format", opts.Format, "text", "json", "github"); err != nil {
				return err
			}
			if err := oneOf("sandbox", opts.Sandbox, sandbox.Modes...); err != nil {
				return err
			}
			if opts.Timeout <= 0 {
				return exit.Usagef("--timeout %s is not valid; give a positive duration such as 60s or 2m", opts.Timeout)
			}
			if opts.StepTimeout <= 0 {
				return exit.Usagef("--step-timeout %s is not valid; give a positive duration such as 10m or 30m", opts.StepTimeout)
			}
			memory, err := memoryFlag(opts.Memory)
			if err != nil {
				return err
			}
			opts.memory = memory
			if opts.Shard != "" {
				if _, _, err := parseShard(opts.Shard); err != nil {
					return err
				}
			}
			if _, err := parseRuntimeFlag(opts.Runtime); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return guardRun(c.Context(), opts)
		},
	}
	fl := c.Flags()
	fl.BoolVar(&opts.All, "all", false, "guard every publishable package")
	fl.StringSliceVar(&opts.Only, "only", nil, "guard only these package folders (`DIR,...`)")
	fl.StringVar(&opts.Plan, "plan", "", "guard exactly the releases of a release plan (`plan.json`)")
	fl.StringVar(&opts.Out, "out", "", "keep the tarballs and guard-report.json in `DIR`, for publish")
	fl.StringVar(&opts.Registry, "registry", "", "where dependencies install from and versions are looked up (`URL`)")
	fl.DurationVar(&opts.Timeout, "timeout", 60*time.Second, "per package import limit")
	fl.DurationVar(&opts.StepTimeout, "step-timeout", guard.DefaultStepTimeout, "limit on each pack (with its lifecycle scripts), install and install-script step")
	fl.StringVar(&opts.Memory, "memory", "2GiB", "limit on each sandboxed step (pack with its scripts, install, import), its processes together (`SIZE`: 512MiB, 4GiB)")
	fl.IntVar(&opts.Jobs, "jobs", 0, "packages packed and loaded at once (`N`; default: number of CPUs)")
	fl.StringVar(&opts.Shard, "shard", "", "check a stable 1/N of the candidates (`I/N`)")
	fl.StringVar(&opts.Sandbox, "sandbox", string(sandbox.Auto), "how the packages' code is contained: auto (namespaces), netns (the same) or off")
	fl.StringVar(&opts.Format, "format", "text", "output: text, json or github")
	addRuntimeFlag(c, &opts.Runtime, "guard every candidate")
	f.bindFlag("registry", fl.Lookup("registry"))
	f.bindFlag("jobs", fl.Lookup("jobs"))
	return c
}

// parseShard reads "I/N".
func parseShard(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, exit.Usagef("--shard %q is not valid; give I/N with 1 ≤ I ≤ N, such as 2/4", s)
	}
	return i, n, nil
}

// guardRun runs plaios guard. ctx is the command's context, never nil (cobra gives every command one).
func guardRun(ctx context.Context, opts *GuardOptions) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	dir, err := opts.Dir()
	if err != nil {
		return err
	}
	httpc, err := opts.HTTPClient()
	if err != nil {
		return err
	}
	force, err := forcedRuntime(opts.Runtime, func() (*config.Config, error) { return cfg, nil })
	if err != nil {
		return err
	}
	sev := map[string]check.Severity{}
	for id, v := range cfg.Rules {
		s, ok := check.ParseSeverity(v)
		if !ok {
			return exit.Usagef("rules.%s: %q is not a severity; use off, warning or error", id, v)
		}
		sev[id] = s
	}
	format := opts.Format
	if opts.JSON {
		format = "json"
	}
	gopts := guard.Options{
		Dir:         dir,
		Paths:       opts.Paths,
		All:         opts.All,
		Only:        opts.Only,
		Plan:        opts.Plan,
		Jobs:        cfg.Jobs,
		Out:         opts.Out,
		Timeout:     opts.Timeout,
		StepTimeout: opts.StepTimeout,
		Memory:      opts.memory,
		Registry:    cfg.Registry,
		Sandbox:     sandbox.Mode(opts.Sandbox),
		PackManager: cfg.PackManager,
		Runtime:     force,
		Severity:    sev,
		Fixtures:    configFixtures(cfg),
		Getenv:      opts.Getenv,
		HTTP:        httpc,
	}
	if opts.Shard != "" {
		gopts.Shard, gopts.Shards, _ = parseShard(opts.Shard)
	}
	if opts.Sandbox == string(sandbox.Off) {
		fmt.Fprintln(opts.IO.ErrOut, "warning: --sandbox off: the packages' code (npm pack's scripts, the import) runs without namespaces, as this user, with this user's files; only hooks inside node record and refuse their connections, so native code and child processes could still reach the network. This is a weaker check.")
	}
	var bar *progressLine
	if opts.IO.Progress() {
		bar = &progressLine{io: opts.IO}
		gopts.Progress = bar.update
	}
	if opts.IO.Verbose {
		gopts.Log = opts.IO.ErrOut
	}
	rep, err := guard.Run(ctx, gopts)
	bar.clear()
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return exit.Failf("interrupted; guard stopped its children and removed its temporary folders")
		}
		return err
	}
	if opts.IO.Verbose && rep.Sandbox != "" {
		fmt.Fprintf(opts.IO.ErrOut, "the packages loaded in %s\n", rep.Sandbox)
	}
	switch format {
	case "json":
		if err := guard.WriteJSON(opts.IO.Out, rep); err != nil {
			return err
		}
	case "github":
		guard.WriteGitHub(opts.IO.Out, rep)
		fmt.Fprintln(opts.IO.Out, guard.Summary(rep))
	default:
		guard.WriteText(opts.IO.Out, rep)
		if opts.Getenv("GITHUB_ACTIONS") == "true" {
			guard.WriteGitHub(opts.IO.Out, rep)
		}
	}
	if failed := rep.Failed(); len(failed) > 0 {
		return exit.Failf("%d of %d %s failed the guard; fix what each reason says and run plaios guard again",
			len(failed), len(rep.Packages), map[bool]string{true: "package", false: "packages"}[len(rep.Packages) == 1])
	}
	return nil
}

// progressLine draws one self-erasing progress line on a terminal's stderr.
type progressLine struct {
	io    *IOStreams
	shown bool
}

var stageWords = map[string]string{"pack": "packing", "check": "checking tarballs", "install": "installing", "load": "loading"}

func (p *progressLine) update(ev guard.Progress) {
	if p == nil {
		return
	}
	word := stageWords[ev.Stage]
	if word == "" {
		word = ev.Stage
	}
	line := fmt.Sprintf("guard: %s %d/%d", word, ev.Done, ev.Total)
	if ev.Stage == "install" {
		line = "guard: installing " + ev.Note
		if ev.Done == ev.Total {
			line = "guard: installed"
		}
	}
	fmt.Fprintf(p.io.ErrOut, "\r\033[K%s", line)
	p.shown = true
}

func (p *progressLine) clear() {
	if p != nil && p.shown {
		fmt.Fprint(p.io.ErrOut, "\r\033[K")
	}
}
