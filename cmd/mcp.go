package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/plaios/plaios/internal/bridge"
	"github.com/plaios/plaios/internal/config"
	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/sandbox"
)

// MCPServeOptions holds the inputs of `plaios mcp serve` and what it needs from the outside.
type MCPServeOptions struct {
	IO     *IOStreams
	Config func() (*config.Config, error)
	Dir    func() (string, error)
	Getenv func(string) string
	JSON   bool

	Path        string
	Secrets     []string // id=ENV_VAR
	Offline     bool
	Timeout     time.Duration
	CallTimeout time.Duration
	Sandbox     string
	Memory      string // --memory, as typed ("2GiB")
	memory      int64  // Memory in bytes, read once by the command's validation
	List        bool
	Runtime     string // --runtime
}

// NewCmdMCP builds `plaios mcp`, the parent of `plaios mcp serve`.
func NewCmdMCP(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "mcp <command>",
		Short: "Serve a pack's tools over the Model Context Protocol",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error {
			return exit.Usagef("give a command: plaios mcp serve [PATH]")
		},
	}
	c.AddCommand(NewCmdMCPServe(f, nil))
	return c
}

// NewCmdMCPServe builds `plaios mcp serve`. runF replaces the run in tests of flag parsing.
func NewCmdMCPServe(f *Factory, runF func(*MCPServeOptions) error) *cobra.Command {
	opts := &MCPServeOptions{IO: f.IO, Config: f.Config, Dir: f.Dir, Getenv: f.Getenv}
	c := &cobra.Command{
		Use:   "serve [PATH]",
		Short: "Serve a built pack's tools over MCP on stdio",
		Long: `Serves the tools of the built pack in PATH (default .) as an MCP server on stdin and
stdout: an AgentOS pack's tool descriptors, a PLAIOS pack's capabilities, an OpenClaw
plugin's or a Pi extension's registered tools.

The pack's code runs contained, as plaios guard runs it: in user, PID and mount namespaces,
without capabilities, seeing the pack's folder and the node_modules above it (with the
node_modules a linked package lives in) and nothing else of the host, with only the variables its declared secrets and configuration name. It first
loads without any network (a pack that reaches for it while loading does not start), then in
the child that runs the calls, which gets the network once loaded, since tools such as web
search need it; --offline keeps it without. A call that has not answered after --call-timeout
ends with an error, and the pack is started again; so does one that takes the pack past
--memory (2 GiB by default, for all the child's processes together). Before a tool
runs, its arguments are checked against its input schema the way the AgentOS executor does
it: types coerced, defaults filled in, formats checked; its output is checked against its
output schema on the way back. A failing tool answers with isError and its own message; a
crashed child is started again; a cancelled call aborts the tool's signal.

Secrets never come from arguments: an AgentOS getSecret(id) reads the environment variable
--secret id=ENV_VAR names, else the manifest's envVar, else the id's conventional name
(serper.apiKey → SERPER_API_KEY); PLAIOS configuration comes from each field's env. Secret
values are redacted from every result. Tools whose required secret or configuration is
missing are left out, with a warning on stderr. Options a factory needs to load come from the
fixtures guard reads (the role map's, with .plaios.yaml's fixtures laid over them).

The pack's runtime comes from its content, as for validate; --runtime (or the configuration's
runtime) forces one.`,
		Example: `  plaios mcp serve
  plaios mcp serve registry/curated/research/web-search --secret serper.apiKey=SERPER_KEY
  plaios mcp serve packages/weather --offline
  plaios mcp serve packages/weather --list`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Path = "."
			if len(args) == 1 {
				opts.Path = args[0]
			}
			opts.JSON = f.JSON
			if _, err := bridge.ParseSecrets(opts.Secrets); err != nil {
				return err
			}
			if opts.Timeout <= 0 {
				return exit.Usagef("--timeout %s is not valid; give a positive duration such as 60s or 2m", opts.Timeout)
			}
			if opts.CallTimeout <= 0 {
				return exit.Usagef("--call-timeout %s is not valid; give a positive duration such as 60s or 2m", opts.CallTimeout)
			}
			if err := oneOf("sandbox", opts.Sandbox, string(sandbox.Auto), string(sandbox.Off)); err != nil {
				return err
			}
			memory, err := memoryFlag(opts.Memory)
			if err != nil {
				return err
			}
			opts.memory = memory
			if _, err := parseRuntimeFlag(opts.Runtime); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return mcpServeRun(c.Context(), opts)
		},
	}
	fl := c.Flags()
	fl.StringArrayVar(&opts.Secrets, "secret", nil, "read AgentOS secret `ID=ENV_VAR` from that environment variable (repeatable)")
	fl.BoolVar(&opts.Offline, "offline", false, "keep the network refused while tools run, not only while the pack loads")
	fl.DurationVar(&opts.Timeout, "timeout", 60*time.Second, "limit for loading the pack")
	fl.DurationVar(&opts.CallTimeout, "call-timeout", 60*time.Second, "limit for one tool call: a call that runs longer gets an error and the pack's child is started again")
	fl.StringVar(&opts.Sandbox, "sandbox", string(sandbox.Auto), "how the pack's code is contained: auto (namespaces) or off")
	fl.StringVar(&opts.Memory, "memory", "2GiB", "limit on the pack's node process while it loads and runs tools, its processes together (`SIZE`: 512MiB, 4GiB)")
	fl.BoolVar(&opts.List, "list", false, "print the tools it would serve and exit")
	addRuntimeFlag(c, &opts.Runtime, "load the pack")
	return c
}

// mcpServeRun serves the pack over MCP. ctx is the command's context, never nil (cobra gives every command one).
func mcpServeRun(ctx context.Context, opts *MCPServeOptions) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	// A bad --secret is refused before anything is read, naming the id only.
	if _, err := bridge.ParseSecrets(opts.Secrets); err != nil {
		return err
	}
	t, err := packTarget(opts.Dir, opts.Config, opts.Path, opts.Runtime)
	if err != nil {
		return err
	}
	serve := bridge.Serve{Target: t, Secrets: opts.Secrets, Offline: opts.Offline, Timeout: opts.Timeout, CallTimeout: opts.CallTimeout,
		Sandbox: sandbox.Mode(opts.Sandbox), Memory: opts.memory, Getenv: opts.Getenv}
	if opts.IO.Verbose {
		serve.Log = opts.IO.ErrOut
	}
	if serve.Sandbox == sandbox.Off && !opts.IO.Quiet {
		serve.Opened = func(*bridge.Pack) {
			fmt.Fprintln(opts.IO.ErrOut, "warning: --sandbox off: the pack's code runs uncontained, with this user's files; only its environment is filtered and its attempts to reach the network while loading are refused")
		}
	}
	srv, err := serve.Start(ctx)
	if err != nil {
		return err
	}
	defer srv.Close()
	if !opts.IO.Quiet {
		for _, n := range srv.Notes() {
			fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", n)
		}
	}
	if opts.List {
		return writeToolList(opts.IO, opts.JSON, srv.Tools())
	}
	if opts.IO.Verbose {
		fmt.Fprintf(opts.IO.ErrOut, "serving %d tools of %s over MCP on stdio\n", len(srv.Tools()), srv.Pack.Name())
	}
	err = srv.Run(ctx, bridge.Transport(opts.IO.In, opts.IO.Out))
	if err != nil && ctx.Err() == nil {
		return exit.Failf("the MCP session ended: %v", err)
	}
	return nil
}

func writeToolList(io *IOStreams, asJSON bool, tools []bridge.Tool) error {
	if asJSON {
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		if tools == nil {
			tools = []bridge.Tool{}
		}
		return enc.Encode(struct {
			SchemaVersion int           `json:"schemaVersion"`
			Tools         []bridge.Tool `json:"tools"`
		}{1, tools})
	}
	for _, t := range tools {
		line := t.Name
		if t.Description != "" {
			line += "  " + oneLine(t.Description)
		}
		fmt.Fprintln(io.Out, line)
	}
	return nil
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 100 {
		s = string(r[:99]) + "…"
	}
	return s
}
