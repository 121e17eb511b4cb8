package publish

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/plaios/plaios/internal/semver"
)

// npmKind sorts the ways `npm publish` ends.
type npmKind int

const (
	npmOK        npmKind = iota
	npmConflict          // the version is already there ("cannot publish over…", 409)
	npmTransient         // worth another try: a reset, a timeout, a 5xx, a 429
	npmAuth              // no or refused credentials: every release would fail the same way
	npmFailed            // anything else: this release fails
)

// npmResult is what one `npm publish` said.
type npmResult struct {
	kind      npmKind
	code      string // npm's error code (E409, ECONNREFUSED…)
	reason    string // npm's summary, for a person
	integrity string // on success: the integrity of the tarball npm sent
}

// provenance decides whether to ask npm for provenance.
func (r *run) provenance() bool {
	switch r.opts.Provenance {
	case ProvenanceOn:
		return true
	case ProvenanceOff:
		return false
	}
	return r.getenv("GITHUB_ACTIONS") == "true" && r.getenv("ACTIONS_ID_TOKEN_REQUEST_URL") != "" && r.getenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN") != ""
}

// npmArgs are the arguments of the publish of one release.
func (r *run) npmArgs(o *Outcome, registryURL string) []string {
	args := NPMArgs(o.tarball, registryURL, o.Version, r.provenance())
	if o.configTag != "" {
		// The package names its dist-tag (publishConfig.tag): npm uses it, prerelease or not.
		if i := slices.Index(args, "--tag"); i >= 0 {
			args = slices.Delete(args, i, i+2)
		}
	}
	return args
}

// NPMArgs are the arguments of the `npm publish` plaios runs for a tarball of a version: JSON
// output to read, npm's own retries off (plaios retries after reading the registry again),
// no scripts (a tarball runs none anyway), provenance when asked, and the dist-tag of a
// prerelease.
func NPMArgs(tarball, registryURL, version string, provenance bool) []string {
	args := []string{"publish", tarball, "--access", "public", "--registry", registryURL,
		"--json", "--fetch-retries=0", "--ignore-scripts", "--foreground-scripts=false", "--dry-run=false"}
	if provenance {
		args = append(args, "--provenance")
	}
	if tag := distTag(version); tag != "" {
		args = append(args, "--tag", tag)
	}
	return args
}

// npmCodeRE matches an npm error code line such as EPUBLISHCONFLICT.
var npmCodeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^E[A-Z0-9_]+$`) })

var distTagRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9-]*$`) })

// distTag is the npm dist-tag of a prerelease version (its first prerelease identifier,
// "next" when that cannot be a tag); "" for a release version, which goes to latest.
func distTag(version string) string {
	v, err := semver.Parse(version)
	if err != nil || v.Prerelease() == "" {
		return ""
	}
	id, _, _ := strings.Cut(v.Prerelease(), ".")
	id = strings.ToLower(id)
	if !distTagRE().MatchString(id) || id == "x" || id == "latest" {
		return "next"
	}
	return id
}

// isPrerelease reports whether a version has a prerelease part.
func isPrerelease(version string) bool {
	v, err := semver.Parse(version)
	return err == nil && v.Prerelease() != ""
}

// npmPublish runs npm once for a release.
func (r *run) npmPublish(o *Outcome, registryURL string) npmResult {
	args := r.npmArgs(o, registryURL)
	c := exec.CommandContext(r.ctx, r.opts.NPM, args...)
	c.Dir = r.root
	c.Env = append(append([]string{}, r.env...),
		"npm_config_update_notifier=false", "npm_config_audit=false", "npm_config_fund=false", "npm_config_progress=false")
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	r.logf("npm %s", strings.Join(args, " "))
	start := time.Now()
	err := c.Run()
	r.res.NPM += time.Since(start)
	if s := strings.TrimSpace(stderr.String()); s != "" {
		r.logf("%s", s)
	}
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			if r.stopped() {
				return npmResult{kind: npmFailed, reason: reasonStopped}
			}
			return npmResult{kind: npmAuth, reason: "npm could not be started (" + err.Error() + ")"}
		}
		if r.stopped() {
			return npmResult{kind: npmFailed, reason: reasonStopped}
		}
		return classifyNPM(stdout.Bytes(), stderr.String())
	}
	res := npmResult{kind: npmOK}
	res.integrity = npmIntegrity(stdout.Bytes(), o.Name)
	return res
}

// npmIntegrity reads the integrity npm reports after a publish with --json: npm 11 keys the
// report by package name, older npm prints it at the top level.
func npmIntegrity(out []byte, name string) string {
	var keyed map[string]json.RawMessage
	if json.Unmarshal(out, &keyed) != nil {
		return ""
	}
	var rep struct {
		Integrity string `json:"integrity"`
	}
	if raw, ok := keyed[name]; ok && json.Unmarshal(raw, &rep) == nil && rep.Integrity != "" {
		return rep.Integrity
	}
	if json.Unmarshal(out, &rep) == nil {
		return rep.Integrity
	}
	return ""
}

var (
	conflictRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)cannot publish over|previously published|already present|already exists|EPUBLISHCONFLICT`)
	})
	npmErrLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^npm (?:error|ERR!)(?: code)? ?(.*)$`) })
)

// transientCodes are npm error codes worth another try.
var transientCodes = map[string]bool{
	"ECONNREFUSED": true, "ECONNRESET": true, "ETIMEDOUT": true, "ESOCKETTIMEDOUT": true,
	"EPIPE": true, "EAI_AGAIN": true, "ENETUNREACH": true, "EHOSTUNREACH": true, "ENETDOWN": true,
	"ECONNABORTED": true, "ERR_SOCKET_TIMEOUT": true, "E408": true, "E429": true,
}

// classifyNPM reads a failed publish's --json error report (stdout), falling back on its
// stderr lines.
func classifyNPM(stdout []byte, stderr string) npmResult {
	var rep struct {
		Error struct {
			Code    string `json:"code"`
			Summary string `json:"summary"`
			Detail  string `json:"detail"`
		} `json:"error"`
	}
	var code, summary string
	if json.Unmarshal(bytes.TrimSpace(stdout), &rep) == nil && (rep.Error.Summary != "" || rep.Error.Code != "") {
		code, summary = rep.Error.Code, rep.Error.Summary
	} else {
		var lines []string
		for _, m := range npmErrLine().FindAllStringSubmatch(stderr, -1) {
			line := strings.TrimSpace(m[1])
			if line == "" || strings.HasPrefix(line, "A complete log") || strings.HasPrefix(line, "at ") {
				continue
			}
			if code == "" && npmCodeRE().MatchString(line) {
				code = line
				continue
			}
			lines = append(lines, line)
		}
		summary = strings.Join(lines, " ")
	}
	summary = strings.TrimSpace(summary)
	if i := strings.IndexByte(summary, '\n'); i >= 0 {
		summary = summary[:i]
	}
	if summary == "" {
		summary = "npm publish failed without saying why"
		if code != "" {
			summary = "npm publish failed with " + code
		}
	}
	res := npmResult{code: code, reason: summary}
	switch {
	case code == "E409" || code == "EPUBLISHCONFLICT" || conflictRE().MatchString(summary):
		res.kind = npmConflict
	case code == "ENEEDAUTH" || code == "E401":
		res.kind = npmAuth
	case transientCodes[code] || (len(code) == 4 && strings.HasPrefix(code, "E5")):
		res.kind = npmTransient
	default:
		res.kind = npmFailed
	}
	return res
}
