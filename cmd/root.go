// Package cmd is the command line of plaios: one file per command, each turning flags into an
// Options struct, making one call into internal/, and rendering the result. No business logic
// lives here.
package cmd

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/plaios/plaios/internal/config"
	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/sandbox"
)

// Version is set at build time by goreleaser (-ldflags "-X github.com/plaios/plaios/cmd.Version=…").
var Version = ""

// version returns the build's version (CLI.md: never a bare "dev").
func version() string {
	bi, _ := debug.ReadBuildInfo()
	return versionOf(Version, bi)
}

// versionOf is the version a binary reports: goreleaser's stamp when there is one; else the
// module version Go recorded (`go install …@v1.2.0` records v1.2.0; since Go 1.24 a build in a
// checkout records a version made from the commit, such as v0.1.1-0.20261203….-4bf426a1c2d3+dirty);
// else "(devel)" with the commit Go recorded (vcs.revision, "+dirty" when vcs.modified), or
// "(devel), no commit recorded" when there is none (go run, -buildvcs=false).
func versionOf(stamp string, bi *debug.BuildInfo) string {
	if stamp != "" {
		return stamp
	}
	if bi == nil {
		return "(devel), no build information recorded"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "(devel), no commit recorded"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	return "(devel) " + rev
}

// Factory holds what every command needs, as values or as functions that build them on
// demand, so that tests can replace any of them.
type Factory struct {
	IO *IOStreams

	// Getenv reads the environment (tests give a map).
	Getenv func(string) string

	// Dir is the working directory after -C.
	Dir func() (string, error)

	// Config returns the layered configuration (flags bound by the running command win).
	Config func() (*config.Config, error)

	// Viper is the configuration store the commands bind their flags to.
	Viper *viper.Viper

	// HTTPClient builds the HTTP client for registries and GitHub.
	HTTPClient func() (*http.Client, error)

	// JSON is --json: machine output on stdout.
	JSON bool

	// Executable is the path of the running plaios binary.
	Executable func() (string, error)

	chdir      string
	configFile string
	warned     bool
	bindings   []binding
}

// NewFactory returns a Factory over the real process environment.
func NewFactory(io *IOStreams) *Factory {
	f := &Factory{IO: io, Getenv: os.Getenv, Viper: viper.New(), Executable: os.Executable}
	f.Dir = func() (string, error) {
		dir := f.chdir
		if dir == "" {
			return os.Getwd()
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", exit.Usagef("-C %s: %v", dir, err)
		}
		st, err := os.Stat(abs)
		if err != nil || !st.IsDir() {
			return "", exit.Usagef("-C %s: no such directory; give a folder that exists", dir)
		}
		return abs, nil
	}
	f.Config = f.loadConfig
	f.HTTPClient = func() (*http.Client, error) {
		return &http.Client{Timeout: 60 * time.Second}, nil
	}
	return f
}

// loadConfig layers .plaios.yaml (or --config), PLAIOS_* variables and defaults in viper and
// returns the result. Flags the running command bound to keys take precedence.
func (f *Factory) loadConfig() (*config.Config, error) {
	v := f.Viper
	dir, err := f.Dir()
	if err != nil {
		return nil, err
	}
	given := f.configFile
	if given == "" {
		given = f.Getenv("PLAIOS_CONFIG")
	}
	path, err := config.Locate(dir, given)
	if err != nil {
		return nil, exit.UsageErr(err)
	}
	f.bindChanged()
	v.SetEnvPrefix("PLAIOS")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	v.SetDefault("jobs", runtime.NumCPU())
	v.SetDefault("packManager", "")
	v.SetDefault("github.releases", true)
	for k := range config.Keys {
		if k != "github" && k != "rules" && k != "fixtures" {
			_ = v.BindEnv(k, "PLAIOS_"+strings.ToUpper(strings.ReplaceAll(k, ".", "_")))
		}
	}
	if path != "" {
		warnings, err := config.Check(path)
		if err != nil {
			return nil, exit.UsageErr(fmt.Errorf("%w; fix the configuration file", err))
		}
		if !f.warned {
			for _, w := range warnings {
				fmt.Fprintf(f.IO.ErrOut, "warning: %s\n", w)
			}
			f.warned = true
		}
		v.SetConfigFile(path)
		v.SetConfigType("yaml")
		if err := v.ReadInConfig(); err != nil {
			return nil, exit.Usagef("%s: %v; fix the configuration file", path, err)
		}
	}
	jobs := v.GetInt("jobs")
	if jobs < 1 {
		return nil, exit.Usagef("jobs must be at least 1 (it is %d)", jobs)
	}
	c := &config.Config{
		Runtime:        v.GetString("runtime"),
		Scope:          v.GetString("scope"),
		Registry:       v.GetString("registry"),
		PackManager:    v.GetString("packManager"),
		Jobs:           jobs,
		GitHubRepo:     v.GetString("github.repo"),
		GitHubAPI:      v.GetString("github.apiURL"),
		GitHubReleases: v.GetBool("github.releases"),
		Rules:          v.GetStringMapString("rules"),
		File:           path,
	}
	if path != "" {
		if c.Fixtures, err = config.ReadFixtures(path); err != nil {
			return nil, exit.UsageErr(fmt.Errorf("%w; fix the configuration file", err))
		}
	}
	return c, nil
}

// bindFlag makes a command's flag the highest layer of a configuration key. Several commands
// bind the same key (registry, jobs), so the binding is recorded here and made when the
// configuration is read, for the flags given on the command line: only the running command's
// flags are parsed, so only its flags can have changed.
func (f *Factory) bindFlag(key string, fl *pflag.Flag) {
	if fl != nil {
		f.bindings = append(f.bindings, binding{key, fl})
	}
}

type binding struct {
	key  string
	flag *pflag.Flag
}

// bindChanged binds the flags given on the command line to their configuration keys.
func (f *Factory) bindChanged() {
	for _, b := range f.bindings {
		if b.flag.Changed {
			_ = f.Viper.BindPFlag(b.key, b.flag)
		}
	}
}

// NewRootCmd builds the command tree.
func NewRootCmd(f *Factory) *cobra.Command {
	var noColor bool
	root := &cobra.Command{
		Use:   "plaios <command>",
		Short: "Scaffold, check, guard and release agent extension packs",
		Long: `plaios scaffolds, checks, guards and releases agent extension packs: npm packages that
give an agent runtime (PLAIOS, AgentOS, OpenClaw, Pi) new tools, channels, memories, models
or pages.`,
		Example: `  plaios create action weather
  plaios validate
  plaios guard --out .plaios/packs
  plaios release-plan --out plan.json && plaios publish --plan plan.json --packs .plaios/packs`,
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(c *cobra.Command, args []string) error {
			if noColor || f.Getenv("NO_COLOR") != "" {
				f.IO.NoColor = true
			}
			return nil
		},
	}
	root.SetVersionTemplate("plaios version {{.Version}}\n")
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return exit.Usagef("%v; %s", err, seeHelp(c))
	})

	pf := root.PersistentFlags()
	pf.StringVarP(&f.chdir, "chdir", "C", "", "run as if plaios was started in `DIR`")
	pf.StringVar(&f.configFile, "config", "", "read configuration from `FILE` instead of the nearest .plaios.yaml")
	pf.BoolVar(&f.JSON, "json", false, "write machine-readable JSON to stdout")
	pf.BoolVar(&noColor, "no-color", false, "never colour the output (also NO_COLOR)")
	pf.BoolVarP(&f.IO.Quiet, "quiet", "q", false, "print only results and errors")
	pf.BoolVarP(&f.IO.Verbose, "verbose", "v", false, "explain each step on stderr")

	root.AddCommand(
		NewCmdCreate(f, nil),
		NewCmdInit(f, nil),
		NewCmdValidate(f, nil),
		NewCmdGuard(f, nil),
		NewCmdReleasePlan(f, nil),
		NewCmdPublish(f, nil),
		NewCmdExport(f),
		NewCmdMCP(f),
	)
	return root
}

// Main runs plaios with args and returns the process exit code. It never panics: an
// unexpected failure becomes one sentence on stderr.
func Main(args []string, io *IOStreams) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(io.ErrOut, "plaios: internal error: %v; this is a bug in plaios, please report it with the command you ran\n", r)
			code = exit.Fail
		}
	}()
	f := NewFactory(io)
	root := NewRootCmd(f)
	root.SetArgs(args)
	c, err := root.ExecuteC()
	if err == nil {
		return exit.OK
	}
	if exit.IsSilent(err) {
		return exit.Code(err)
	}
	code = exit.Code(err)
	var ee *exit.Error
	if !errors.As(err, &ee) && isUsageError(err) {
		code = exit.Usage
		err = fmt.Errorf("%v; %s", err, seeHelp(c))
	}
	fmt.Fprintf(io.ErrOut, "plaios: %s\n", sentence(err.Error()))
	return code
}

// isUsageError recognises the errors cobra itself returns for a bad command line.
func isUsageError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "requires at most", "invalid argument", "flag needs an argument", "required flag"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// sentence makes a message end like one.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "failed"
	}
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") && !strings.HasSuffix(s, "!") {
		s += "."
	}
	return s
}

// seeHelp points at the help of the command c: "see 'plaios guard --help'", or
// "see 'plaios --help'" for the root command itself (whose path is just its name).
func seeHelp(c *cobra.Command) string {
	path := "plaios"
	if c != nil && c.HasParent() {
		path += " " + strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
	}
	return "see '" + path + " --help'"
}

// usageArgs wraps a cobra positional-argument check so that its error exits 2.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if err := check(c, args); err != nil {
			return exit.Usagef("%v; %s", err, seeHelp(c))
		}
		return nil
	}
}

// memoryFlag reads a --memory flag (sandbox.ParseMemory): a bad size is a usage error.
func memoryFlag(value string) (int64, error) {
	n, err := sandbox.ParseMemory(value)
	if err != nil {
		return 0, exit.Usagef("--memory %v", err)
	}
	return n, nil
}

// oneOf checks that a flag's value is one of the choices.
func oneOf(flag, value string, choices ...string) error {
	for _, c := range choices {
		if value == c {
			return nil
		}
	}
	return exit.Usagef("--%s %q is not valid; use one of %s", flag, value, strings.Join(choices, ", "))
}
