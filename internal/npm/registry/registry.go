// Package registry reads packuments (package documents) from npm registries over HTTP, with
// the registry and credentials npm itself would use (package npmrc), so that release-plan,
// guard and publish see exactly what `npm view` sees.
//
// A package the registry does not know (404) is ErrNotFound. Any other failure — a 5xx, a
// 401/403, a timeout, a reset connection, a body that is not JSON — is an error saying which
// registry, which package and what happened, marked as an environment failure (exit 3): a
// registry that does not answer is never taken for "not published". 5xx, 429 and transport
// failures are retried a bounded number of times with exponential backoff.
//
// Which document is fetched, decided on purpose: by default the full packument
// (`Accept: application/json`), because it is the only form every registry must serve with
// `dist.integrity` (the abbreviated "corgi" form may leave fields out, and guard and publish
// compare integrities). Callers that need only the version list — release-plan — set
// Abbreviated to ask for `application/vnd.npm.install-v1+json`, which is several times smaller
// on npmjs.org; Version.Integrity is then filled only when the registry includes it.
//
// Registry choice follows npm: a scope's `@scope:registry` wins, then Client.Registry (the
// --registry flag, as npm's own --registry), then the npmrc `registry`, then npmjs.org.
package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/npm/npmrc"
)

// ErrNotFound is returned (wrapped) when the registry does not know the package.
var ErrNotFound = errors.New("package not found on the registry")

// Media types of the two packument forms.
const (
	acceptFull        = "application/json"
	acceptAbbreviated = "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*"
)

// Client fetches packuments.
type Client struct {
	HTTP     *http.Client  // nil: a client with a 60 s timeout
	NPMRC    *npmrc.Config // nil: no .npmrc (npmjs.org, no credentials)
	Registry string        // the --registry override ("" none)

	// Abbreviated asks for the abbreviated ("corgi") document; see the package doc.
	Abbreviated bool

	// Attempts bounds the tries of one request (default 4); Backoff is the first wait
	// between two tries (default 250 ms), doubled each time and capped at 4 s.
	Attempts int
	Backoff  time.Duration

	UserAgent string // default "plaios"
}

// Packument is what the registry knows about one package.
type Packument struct {
	Name     string
	Versions map[string]Version
	DistTags map[string]string
	Registry string // the registry it was read from
}

// Version is one published version.
type Version struct {
	Version   string
	Integrity string // "sha512-…", "" when the registry gave none
	Shasum    string
	Tarball   string
	GitHead   string // the commit it was published from (npm's gitHead; full documents only)
}

// VersionList returns the published versions, in no particular order.
func (p *Packument) VersionList() []string {
	if p == nil {
		return nil
	}
	out := make([]string, 0, len(p.Versions))
	for v := range p.Versions {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// Error is a registry failure other than "not found".
type Error struct {
	Registry string // redacted: no user info
	Package  string
	Status   int    // HTTP status, 0 for a transport failure
	Attempts int    // how many tries were made
	What     string // what happened, worded for a person
	Err      error  // the underlying error, if any
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("could not read %s from the registry %s: %s", e.Package, e.Registry, e.What)
	if e.Attempts > 1 {
		msg += fmt.Sprintf(" (after %d attempts)", e.Attempts)
	}
	switch {
	case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden:
		msg += "; check the credentials for this registry in .npmrc (an npm token with read access)"
	case e.Status >= 500 || e.Status == http.StatusTooManyRequests || e.Status == 0:
		msg += "; check that the registry is reachable and try again"
	default:
		msg += "; check the registry URL (--registry or .npmrc)"
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// RegistryFor returns the registry that serves name for this client.
func (c *Client) RegistryFor(name string) string {
	if c.NPMRC != nil {
		if r := c.NPMRC.ScopeRegistry(name); r != "" {
			return r
		}
	}
	if c.Registry != "" {
		return npmrc.Normalize(c.Registry)
	}
	if c.NPMRC != nil {
		return c.NPMRC.RegistryFor(name)
	}
	return npmrc.DefaultRegistry
}

// EscapeName is the package name as it appears in a registry URL: "@scope%2fname" for a
// scoped name, as npm writes it.
func EscapeName(name string) string {
	if strings.HasPrefix(name, "@") {
		if i := strings.IndexByte(name, '/'); i > 0 {
			return url.PathEscape(name[:i]) + "%2f" + url.PathEscape(name[i+1:])
		}
	}
	return url.PathEscape(name)
}

// Redact removes user info, query and fragment from a URL for messages.
func Redact(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(an unparsable registry URL)"
	}
	p.User = nil
	p.RawQuery = ""
	p.Fragment = ""
	return p.String()
}

// Packument fetches the document of one package. A package the registry does not know gives
// an error wrapping ErrNotFound; every other failure is an *Error wrapped as an environment
// failure (exit 3).
func (c *Client) Packument(ctx context.Context, name string) (*Packument, error) {
	reg := c.RegistryFor(name)
	if name == "" || strings.ContainsAny(name, " \t\r\n") {
		return nil, exit.Usagef("%q is not a package name", name)
	}
	u := reg + EscapeName(name)
	fail := func(status, attempts int, what string, err error) error {
		return exit.EnvErr(&Error{Registry: Redact(reg), Package: name, Status: status, Attempts: attempts, What: what, Err: err})
	}
	if _, err := url.Parse(u); err != nil || !(strings.HasPrefix(reg, "http://") || strings.HasPrefix(reg, "https://")) {
		return nil, exit.EnvErr(fmt.Errorf("the registry %s for %s is not an http(s) URL; fix --registry or .npmrc", Redact(reg), name))
	}
	attempts := c.Attempts
	if attempts < 1 {
		attempts = 4
	}
	backoff := c.Backoff
	if backoff <= 0 {
		backoff = 250 * time.Millisecond
	}
	httpc := c.HTTP
	if httpc == nil {
		httpc = &http.Client{Timeout: 60 * time.Second}
	}
	var lastStatus int
	var lastWhat string
	var lastErr error
	for try := 1; try <= attempts; try++ {
		if try > 1 {
			wait := backoff << (try - 2)
			if wait > 4*time.Second {
				wait = 4 * time.Second
			}
			if ra := retryAfter(lastStatus, lastErr); ra > wait && ra <= 10*time.Second {
				wait = ra
			}
			select {
			case <-ctx.Done():
				return nil, fail(lastStatus, try-1, lastWhat+" and the run was stopped", ctx.Err())
			case <-time.After(wait):
			}
		}
		p, status, what, retry, err := c.once(ctx, httpc, reg, u, name)
		if err == nil {
			return p, nil
		}
		if errors.Is(err, ErrNotFound) {
			return nil, err
		}
		lastStatus, lastWhat, lastErr = status, what, err
		if !retry || ctx.Err() != nil {
			return nil, fail(status, try, what, err)
		}
	}
	return nil, fail(lastStatus, attempts, lastWhat, lastErr)
}

// retryStatus carries a Retry-After hint through the retry loop.
type retryStatus struct {
	after time.Duration
	msg   string
}

func (r *retryStatus) Error() string { return r.msg }

func retryAfter(status int, err error) time.Duration {
	var rs *retryStatus
	if errors.As(err, &rs) {
		return rs.after
	}
	return 0
}

// once makes one request. retry says whether the failure is worth another try.
func (c *Client) once(ctx context.Context, httpc *http.Client, reg, u, name string) (p *Packument, status int, what string, retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, "the request could not be built", false, err
	}
	if c.Abbreviated {
		req.Header.Set("Accept", acceptAbbreviated)
	} else {
		req.Header.Set("Accept", acceptFull)
	}
	ua := c.UserAgent
	if ua == "" {
		ua = "plaios"
	}
	req.Header.Set("User-Agent", ua)
	if c.NPMRC != nil {
		if auth := c.NPMRC.AuthHeader(u); auth != "" {
			req.Header.Set("Authorization", auth)
		}
	}
	resp, err := httpc.Do(req)
	if err != nil {
		return nil, 0, describeTransport(err), true, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return nil, 404, "", false, fmt.Errorf("%s is not on the registry %s: %w", name, Redact(reg), ErrNotFound)
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		var after time.Duration
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			after = time.Duration(s) * time.Second
		}
		what := "the registry answered " + statusText(resp)
		return nil, resp.StatusCode, what, true, &retryStatus{after: after, msg: what}
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		what := "the registry refused access (" + statusText(resp) + ")"
		return nil, resp.StatusCode, what, false, errors.New(what)
	case resp.StatusCode != http.StatusOK:
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		what := "the registry answered " + statusText(resp)
		return nil, resp.StatusCode, what, false, errors.New(what)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<30))
	if err != nil {
		return nil, 200, "the answer broke off (" + describeTransport(err) + ")", true, err
	}
	p, err = parsePackument(data)
	if err != nil {
		return nil, 200, "the answer is not a packument (" + err.Error() + ")", false, err
	}
	if p.Name == "" {
		p.Name = name
	}
	p.Registry = reg
	return p, 200, "", false, nil
}

func statusText(resp *http.Response) string {
	t := http.StatusText(resp.StatusCode)
	if t == "" {
		return "HTTP " + strconv.Itoa(resp.StatusCode)
	}
	return "HTTP " + strconv.Itoa(resp.StatusCode) + " " + t
}

// describeTransport words a transport error without its URL (which could carry user info).
func describeTransport(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return "the request timed out"
	case errors.Is(err, context.Canceled):
		return "the request was cancelled"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "the connection was refused"
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return "the connection was reset"
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return "the host name " + dns.Name + " could not be resolved"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return "the request failed: " + ue.Err.Error()
	}
	return "the request failed: " + err.Error()
}

type rawPackument struct {
	Name     string                     `json:"name"`
	DistTags map[string]json.RawMessage `json:"dist-tags"`
	Versions map[string]struct {
		Version string          `json:"version"`
		GitHead json.RawMessage `json:"gitHead"` // read leniently: any other type is ignored
		Dist    struct {
			Integrity string `json:"integrity"`
			Shasum    string `json:"shasum"`
			Tarball   string `json:"tarball"`
		} `json:"dist"`
	} `json:"versions"`
}

func parsePackument(data []byte) (*Packument, error) {
	var raw rawPackument
	if err := json.Unmarshal(data, &raw); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("malformed JSON at byte %d", se.Offset)
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("%s holds a %s", te.Field, te.Value)
		}
		return nil, errors.New("malformed JSON")
	}
	p := &Packument{Name: raw.Name, Versions: map[string]Version{}, DistTags: map[string]string{}}
	for tag, v := range raw.DistTags {
		var s string
		if json.Unmarshal(v, &s) == nil {
			p.DistTags[tag] = s
		}
	}
	for key, v := range raw.Versions {
		ver := v.Version
		if ver == "" {
			ver = key
		}
		var gitHead string
		_ = json.Unmarshal(v.GitHead, &gitHead)
		p.Versions[key] = Version{Version: ver, Integrity: v.Dist.Integrity, Shasum: v.Dist.Shasum, Tarball: v.Dist.Tarball, GitHead: gitHead}
	}
	return p, nil
}

// Packuments fetches the documents of names with at most jobs requests at a time. The map
// holds an entry for every name: nil for a package the registry does not know. The first
// failure (in the order of names) stops the others and is returned.
func (c *Client) Packuments(ctx context.Context, names []string, jobs int) (map[string]*Packument, error) {
	if jobs < 1 {
		jobs = 1
	}
	uniq := make([]string, 0, len(names))
	seen := map[string]bool{}
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			uniq = append(uniq, n)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]*Packument, len(uniq))
	errs := make([]error, len(uniq))
	done := make([]bool, len(uniq))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(jobs, len(uniq)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				p, err := c.Packument(ctx, uniq[i])
				if err != nil && !errors.Is(err, ErrNotFound) {
					errs[i] = err
					cancel()
					continue
				}
				results[i] = p
				done[i] = true
			}
		}()
	}
feed:
	for i := range uniq {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	// Prefer the cause over the cancellations it provoked.
	var first error
	for _, err := range errs {
		if err == nil {
			continue
		}
		if first == nil {
			first = err
		}
		if !errors.Is(err, context.Canceled) {
			return nil, err
		}
	}
	if first != nil {
		return nil, first
	}
	for i, ok := range done {
		if !ok {
			return nil, exit.EnvErr(fmt.Errorf("reading the registry stopped before %s was read; run again", uniq[i]))
		}
	}
	out := make(map[string]*Packument, len(uniq))
	for i, n := range uniq {
		out[n] = results[i]
	}
	return out, nil
}
