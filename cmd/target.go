package cmd

import (
	"github.com/plaios/plaios/internal/bridge"
	"github.com/plaios/plaios/internal/config"
	"github.com/plaios/plaios/internal/workspace"
)

// packTarget is the package mcp serve and export work on: PATH relative to the working
// directory, the runtime --runtime (else the configuration) forces, and the configuration's
// fixtures. cfgFn may be nil (no configuration).
func packTarget(dirFn func() (string, error), cfgFn func() (*config.Config, error), path, runtimeFlag string) (bridge.Target, error) {
	wd, err := dirFn()
	if err != nil {
		return bridge.Target{}, err
	}
	var cfg *config.Config
	if cfgFn != nil {
		if cfg, err = cfgFn(); err != nil {
			return bridge.Target{}, err
		}
	}
	force, err := forcedRuntime(runtimeFlag, func() (*config.Config, error) { return cfg, nil })
	if err != nil {
		return bridge.Target{}, err
	}
	return bridge.Target{WorkDir: wd, Path: path, Runtime: force, Fixtures: configFixtures(cfg)}, nil
}

// configFixtures are the configuration's `fixtures:` as guard, mcp serve and export take them
// (workspace.FixtureOf lays them over the role map's); nil without a configuration.
func configFixtures(cfg *config.Config) map[string]workspace.Fixture {
	if cfg == nil || len(cfg.Fixtures) == 0 {
		return nil
	}
	out := make(map[string]workspace.Fixture, len(cfg.Fixtures))
	for dir, fx := range cfg.Fixtures {
		out[dir] = workspace.Fixture{Secrets: fx.Secrets, Options: fx.Options, InstallScripts: fx.InstallScripts, Loopback: fx.Loopback}
	}
	return out
}
