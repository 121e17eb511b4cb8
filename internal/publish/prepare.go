package publish

import (
	"fmt"
	"os/exec"
	"strings"
	"sync"

	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/npm/npmrc"
	"github.com/plaios/plaios/internal/npm/registry"
)

// prepare checks the tools, the remote, GitHub and the registry, and reads what each already
// has, before anything is written. A failure here stops the run with nothing published.
func (r *run) prepare() error {
	if !r.opts.DryRun {
		npm := r.opts.NPM
		if npm == "" {
			npm = "npm"
		}
		p, err := exec.LookPath(npm)
		if err != nil {
			return exit.Envf("npm is not installed or not on PATH; install Node.js with npm and try again")
		}
		r.opts.NPM = p
	}
	rc, err := npmrc.Load(r.root, r.getenv)
	if err != nil {
		return exit.EnvErr(fmt.Errorf("%w; fix the npm configuration", err))
	}
	r.npmrc = rc
	r.client = &registry.Client{HTTP: r.opts.HTTP, NPMRC: rc, Registry: r.opts.Registry, UserAgent: r.opts.UserAgent,
		Attempts: r.opts.Attempts, Backoff: r.opts.Backoff}
	r.red.AddEnviron(r.env)
	var problems []string
	for _, o := range r.res.Releases {
		reg := r.client.RegistryFor(o.Name)
		r.red.AddHeader(rc.AuthHeader(reg + registry.EscapeName(o.Name)))
		// plaios passes --registry to npm, which then ignores publishConfig.registry: a package
		// that names another registry must not go to this one.
		if o.configRegistry != "" && npmrc.Normalize(o.configRegistry) != reg {
			problems = append(problems, fmt.Sprintf("%s sets publishConfig.registry %s but publishes to %s; set @scope:registry in .npmrc or give --registry so both agree",
				o.Tag, registry.Redact(o.configRegistry), registry.Redact(reg)))
		}
	}
	if len(problems) > 0 {
		return exit.Failf("%s — nothing was published", strings.Join(problems, "; "))
	}

	remoteURL, err := r.remoteURL()
	if err != nil {
		return err
	}
	if !r.opts.NoGitHubReleases {
		if err := r.setupGitHub(remoteURL); err != nil {
			return err
		}
	}

	// The registry and the remote are read at once.
	var wg sync.WaitGroup
	var regErr, tagErr error
	names := make([]string, 0, len(r.res.Releases))
	for _, o := range r.res.Releases {
		names = append(names, o.Name)
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		r.packuments, regErr = r.client.Packuments(r.ctx, names, 8)
	}()
	go func() {
		defer wg.Done()
		r.remote, tagErr = r.remoteTags()
	}()
	wg.Wait()
	if regErr != nil {
		return exit.EnvErr(fmt.Errorf("%w — nothing was published", regErr))
	}
	if tagErr != nil {
		return tagErr
	}
	local, err := r.repo.Tags()
	if err != nil {
		return err
	}
	r.local = local
	r.checkTags()
	return nil
}
