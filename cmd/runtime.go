package cmd

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/plaios/plaios/internal/config"
	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/pack"
)

// runtimeNames are the values --runtime and the configuration's runtime take.
func runtimeNames() []string {
	var out []string
	for _, r := range pack.Runtimes {
		out = append(out, string(r))
	}
	return out
}

// addRuntimeFlag adds --runtime to a command that checks, guards or serves packs (CLI.md: it
// forces the runtime of the packages named; config `runtime` does the same).
func addRuntimeFlag(c *cobra.Command, value *string, what string) {
	c.Flags().StringVar(value, "runtime", "", what+" as this `runtime` (plaios, agentos, openclaw, pi; default: config runtime, else each package's content)")
	_ = c.RegisterFlagCompletionFunc("runtime", cobra.FixedCompletions(runtimeNames(), cobra.ShellCompDirectiveNoFileComp))
}

// parseRuntimeFlag reads a --runtime value ("" is none given).
func parseRuntimeFlag(flag string) (pack.Runtime, error) {
	if flag == "" {
		return pack.None, nil
	}
	r, ok := pack.ParseRuntime(flag)
	if !ok {
		return pack.None, exit.Usagef("--runtime %q is not valid; use one of %s", flag, strings.Join(runtimeNames(), ", "))
	}
	return r, nil
}

// forcedRuntime is the runtime every package named is checked as: --runtime, else the
// configuration's runtime (file or PLAIOS_RUNTIME), else None (each package's content
// decides).
func forcedRuntime(flag string, cfgFn func() (*config.Config, error)) (pack.Runtime, error) {
	if flag != "" {
		return parseRuntimeFlag(flag)
	}
	if cfgFn == nil {
		return pack.None, nil
	}
	cfg, err := cfgFn()
	if err != nil {
		return pack.None, err
	}
	return configRuntime(cfg)
}

// configRuntime reads the configuration's runtime.
func configRuntime(cfg *config.Config) (pack.Runtime, error) {
	if cfg == nil || cfg.Runtime == "" {
		return pack.None, nil
	}
	r, ok := pack.ParseRuntime(cfg.Runtime)
	if !ok {
		from := "PLAIOS_RUNTIME"
		if cfg.File != "" {
			from = cfg.File
		}
		return pack.None, exit.Usagef("the configuration (%s) sets runtime %q, which is not a runtime; use one of %s", from, cfg.Runtime, strings.Join(runtimeNames(), ", "))
	}
	return r, nil
}
