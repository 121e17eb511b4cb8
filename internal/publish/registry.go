package publish

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/npm/registry"
)

// registryStep publishes the releases in plan order.
func (r *run) registryStep() {
	total := len(r.res.Releases)
	failed := map[string]string{} // package name → its failed release's tag
	stop, stopEnv := "", false
	var published []*Outcome
	for i, o := range r.res.Releases {
		r.progress("registry", i, total, o.Tag)
		switch {
		case o.Failed():
		case r.stopped():
			r.fail(o, "registry", false, reasonStopped)
		case stop != "":
			r.fail(o, "registry", stopEnv, "not published: %s", stop)
		default:
			if dep := heldBack(o, failed); dep != "" {
				r.fail(o, "registry", false, "not published: it depends on %s, which failed", dep)
				break
			}
			r.publishOne(o)
			if o.Registry == StatusPublished {
				published = append(published, o)
			}
			if o.Failed() && o.env {
				stop, stopEnv = fmt.Sprintf("the registry step stopped at %s (%s)", o.Tag, o.Reason), true
			}
		}
		if o.Failed() {
			failed[o.Name] = o.Tag
		}
		if r.opts.AfterRegistry != nil {
			r.opts.AfterRegistry(i)
		}
	}
	r.progress("registry", total, total, "")
	r.confirm(published)
}

// heldBack returns the failed release o depends on, or "".
func heldBack(o *Outcome, failed map[string]string) string {
	for _, d := range o.deps {
		if tag, ok := failed[d]; ok {
			return tag
		}
	}
	return ""
}

// publishOne publishes one release unless the registry has it.
func (r *run) publishOne(o *Outcome) {
	pk := r.packuments[o.Name]
	if v, ok := versionOf(pk, o.Version); ok {
		r.compare(o, v, StatusSkipped)
		return
	}
	if r.opts.DryRun {
		o.Registry = StatusWouldPublish
		r.emit(Event{Event: "registry", Name: o.Name, Version: o.Version, Tag: o.Tag, Status: StatusWouldPublish})
		return
	}
	reg := r.client.RegistryFor(o.Name)
	var last npmResult
	for try := 1; try <= r.opts.Attempts; try++ {
		if try > 1 {
			if !r.wait(try, 0) {
				r.fail(o, "registry", false, reasonStopped)
				return
			}
			// The failed try may have reached the registry all the same: look before trying again.
			v, found, err := r.readVersion(o)
			if err != nil {
				r.fail(o, "registry", true, "%s", err)
				return
			}
			if found {
				r.compare(o, v, StatusPublished)
				return
			}
		}
		res := r.npmPublish(o, reg)
		switch res.kind {
		case npmOK:
			if res.integrity != "" && !sameIntegrity(res.integrity, o.sha512) {
				r.fail(o, "registry", false, "npm published a tarball whose sha512 (%s) is not the one guard tested (%s): the file changed during the run; the registry now holds %s, so check it and publish a new version", abbrev(res.integrity), abbrev(o.sha512), o.Tag)
				return
			}
			o.Registry = StatusPublished
			r.emit(Event{Event: "registry", Name: o.Name, Version: o.Version, Tag: o.Tag, Status: StatusPublished})
			return
		case npmConflict:
			v, found, err := r.pollVersion(o, 10*time.Second)
			if err != nil {
				r.fail(o, "registry", true, "%s", err)
				return
			}
			if !found {
				r.fail(o, "registry", false, "npm says %s is already published (%s) but the registry %s does not list it; wait a few minutes and run plaios publish again", o.Tag, res.reason, registry.Redact(reg))
				return
			}
			status := StatusSkipped
			if try > 1 {
				status = StatusPublished
			}
			r.compare(o, v, status)
			return
		case npmTransient:
			last = res
			r.logf("npm publish %s failed (%s); trying again", o.Tag, res.reason)
			continue
		case npmAuth:
			r.fail(o, "registry", true, "npm could not publish %s to %s: %s; check the credentials for that registry (.npmrc, NODE_AUTH_TOKEN or trusted publishing)", o.Tag, registry.Redact(reg), res.reason)
			return
		default:
			if res.reason == reasonStopped {
				r.fail(o, "registry", false, reasonStopped)
				return
			}
			r.fail(o, "registry", false, "npm publish failed: %s", res.reason)
			return
		}
	}
	r.fail(o, "registry", true, "the registry %s could not be reached to publish %s after %d attempts (%s); check that it is reachable and run plaios publish again", registry.Redact(reg), o.Tag, r.opts.Attempts, last.reason)
}

// versionOf finds a version in a packument (nil: the package is not on the registry).
func versionOf(pk *registry.Packument, version string) (registry.Version, bool) {
	if pk == nil {
		return registry.Version{}, false
	}
	v, ok := pk.Versions[version]
	return v, ok
}

// compare settles a release the registry has: the same content is status, other content is
// an error that names both hashes.
func (r *run) compare(o *Outcome, v registry.Version, status string) {
	var same bool
	var theirs, ours string
	switch {
	case v.Integrity != "" && sha512Of(v.Integrity) != "":
		same, theirs, ours = sameIntegrity(v.Integrity, o.sha512), v.Integrity, o.sha512
	case v.Shasum != "":
		same, theirs, ours = v.Shasum == o.shasum, "sha1 "+v.Shasum, "sha1 "+o.shasum
	default:
		r.fail(o, "registry", false, "the registry lists %s without an integrity or shasum, so it cannot be compared with the tarball guard tested; check the version on the registry", o.Tag)
		return
	}
	ofHead := status == StatusSkipped && (o.release.Released || (v.GitHead != "" && v.GitHead == r.res.Head))
	if !same && !ofHead {
		r.fail(o, "registry", false, "the registry already has %s with other content (its hash is %s, the tarball guard tested is %s); a published version is never replaced: write a new version and make the plan again", o.Tag, abbrev(theirs), abbrev(ours))
		return
	}
	o.Registry = status
	ev := Event{Event: "registry", Name: o.Name, Version: o.Version, Tag: o.Tag, Status: status}
	switch {
	case status == StatusSkipped && same:
		ev.Reason = "already on the registry with the same integrity"
	case status == StatusSkipped:
		ev.Reason = "already on the registry, published from this commit"
		r.warn("%s was published from this commit by an earlier run, but the tarball built now differs from it (the registry's hash is %s, this one %s): the build is not reproducible; the registry's is kept and counts as this release", o.Tag, abbrev(theirs), abbrev(ours))
	}
	r.emit(ev)
}

// readVersion reads the package's packument once (with the client's own retries).
func (r *run) readVersion(o *Outcome) (registry.Version, bool, error) {
	pk, err := r.client.Packument(r.ctx, o.Name)
	if err != nil {
		if errors.Is(err, registry.ErrNotFound) {
			return registry.Version{}, false, nil
		}
		return registry.Version{}, false, exit.EnvErr(fmt.Errorf("%s could not be checked: %w", o.Tag, err))
	}
	v, ok := versionOf(pk, o.Version)
	return v, ok, nil
}

// pollVersion reads the packument until it lists the version or limit has passed: registries
// may list a version a while after accepting it.
func (r *run) pollVersion(o *Outcome, limit time.Duration) (registry.Version, bool, error) {
	deadline := time.Now().Add(limit)
	wait := 250 * time.Millisecond
	for {
		v, found, err := r.readVersion(o)
		if err != nil || found || time.Now().Add(wait).After(deadline) {
			return v, found, err
		}
		t := time.NewTimer(wait)
		select {
		case <-r.ctx.Done():
			t.Stop()
			return v, false, nil
		case <-t.C:
		}
		wait = min(2*wait, 4*time.Second)
	}
}

// confirm reads the packuments of what this run published, in parallel, until each lists its
// version: the same integrity confirms it, another is a failure; a registry that lists it too
// late, or cannot be read, leaves a warning (npm had the registry's acceptance).
func (r *run) confirm(published []*Outcome) {
	if len(published) == 0 {
		return
	}
	type answer struct {
		v     registry.Version
		found bool
		err   error
	}
	answers := make([]answer, len(published))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, o := range published {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			v, found, err := r.pollVersion(o, r.opts.ConfirmTimeout)
			answers[i] = answer{v, found, err}
		}()
	}
	wg.Wait()
	for i, o := range published {
		a := answers[i]
		switch {
		case a.err != nil:
			r.warn("%s was published but could not be confirmed: %v", o.Tag, a.err)
		case !a.found:
			r.warn("the registry does not list %s yet; npm reported it published with the integrity guard tested", o.Tag)
		default:
			same := sameIntegrity(a.v.Integrity, o.sha512) || (sha512Of(a.v.Integrity) == "" && a.v.Shasum == o.shasum)
			if !same {
				r.fail(o, "registry", false, "the registry lists %s with other content than the tarball guard tested (its hash is %s, guard's is %s); check the version on the registry", o.Tag, abbrev(a.v.Integrity), abbrev(o.sha512))
			}
		}
	}
}
