package publish

import (
	"encoding/base64"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Redactor removes secrets from text before plaios prints it: the values it was told about
// (the tokens in the environment, the .npmrc credentials of the registries a run talks to)
// and anything shaped like a token, so that a token npm or git echoes back, or one nobody
// told plaios about, does not reach the output either.
type Redactor struct {
	mu      sync.Mutex
	secrets []string
}

// secretEnv are the variables whose values are credentials whatever their shape.
var secretEnv = []string{
	"GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN",
	"NODE_AUTH_TOKEN", "NPM_TOKEN", "NPM_AUTH_TOKEN", "NPM_CONFIG__AUTH", "NPM_CONFIG__AUTHTOKEN",
	"ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ACTIONS_RUNTIME_TOKEN",
}

type tokenShape struct {
	re   *regexp.Regexp
	with string
}

// tokenShapes are patterns of credentials and what replaces them, compiled on first use (at
// init they would slow every start of plaios).
var tokenShapes = sync.OnceValue(func() []tokenShape {
	return []tokenShape{
		{regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}\b`), "***"},
		{regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9_]{30,}\b`), "***"},
		{regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{22,}\b`), "***"},
		{regexp.MustCompile(`(?i)((?:_authToken|_auth|_password)\s*=\s*)"?[^\s"']+"?`), "${1}***"},
		{regexp.MustCompile(`(?i)([?&](?:access_)?token=)[^\s&#]+`), "${1}***"},
		{regexp.MustCompile(`(?i)(authorization:\s*(?:bearer|basic|token)\s+)\S+`), "${1}***"},
		{regexp.MustCompile(`(?i)(\b(?:bearer|basic)\s+)[A-Za-z0-9._~+/=-]{16,}`), "${1}***"},
		{regexp.MustCompile(`(://)[^/\s:@]+(?::[^/\s@]*)?@`), "${1}***@"},
	}
})

// NewRedactor knows the values of the well-known token variables in the environment getenv
// reads (GITHUB_TOKEN, NODE_AUTH_TOKEN, NPM_TOKEN, the Actions OIDC request token…).
func NewRedactor(getenv func(string) string) *Redactor {
	r := &Redactor{}
	for _, k := range secretEnv {
		r.Add(getenv(k))
	}
	return r
}

// AddEnviron adds the values of variables in a KEY=VALUE list whose names say they hold a
// credential.
func (r *Redactor) AddEnviron(env []string) {
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		up := strings.ToUpper(k)
		if strings.Contains(up, "TOKEN") || strings.Contains(up, "SECRET") || strings.Contains(up, "PASSWORD") || strings.HasSuffix(up, "_AUTH") || strings.Contains(up, "AUTHTOKEN") {
			r.Add(v)
		}
	}
}

// AddHeader adds the credential of an Authorization header value ("Bearer x", "Basic y"),
// and for Basic the password inside it.
func (r *Redactor) AddHeader(h string) {
	scheme, cred, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok {
		return
	}
	r.Add(cred)
	if strings.EqualFold(scheme, "basic") {
		if dec, err := base64.StdEncoding.DecodeString(cred); err == nil {
			if _, pass, ok := strings.Cut(string(dec), ":"); ok {
				r.Add(pass)
			}
		}
	}
}

// Add makes a value secret. Values shorter than 6 characters are ignored: replacing them would
// mangle ordinary words, and no real token is that short.
func (r *Redactor) Add(secret string) {
	secret = strings.TrimSpace(secret)
	if len(secret) < 6 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.secrets {
		if s == secret {
			return
		}
	}
	r.secrets = append(r.secrets, secret)
	// Longest first, so that a secret containing another is removed whole.
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
}

// Redact returns s without secrets.
func (r *Redactor) Redact(s string) string {
	if s == "" || r == nil {
		return s
	}
	r.mu.Lock()
	secrets := r.secrets
	r.mu.Unlock()
	for _, sec := range secrets {
		s = strings.ReplaceAll(s, sec, "***")
	}
	for _, shape := range tokenShapes() {
		s = shape.re.ReplaceAllString(s, shape.with)
	}
	return s
}
