// Package secretscan recognises files that look like credentials, for the rule
// `secret-shipped`: environment files, private keys, an .npmrc holding a token, and npm,
// GitHub and AWS token patterns inside any file. validate runs it on the files npm would
// pack, guard on the entries of the real tarball.
package secretscan

import (
	"bytes"
	"path"
	"regexp"
	"strings"
	"sync"
)

// MaxScan bounds how much of one file's content is searched for token patterns.
const MaxScan = 2 << 20

type tokenPattern struct {
	name    string
	needles []string // the pattern cannot match a file that holds none of these
	re      func() *regexp.Regexp
}

// Each pattern compiles on first use, and is only run on a file that holds one of its literal
// needles: most files hold none, so most runs compile no expression and scan each file with
// a few fast substring searches instead of five regexps.
var tokenPatterns = []tokenPattern{
	{"an npm access token", []string{"npm_"}, lazy(`\bnpm_[A-Za-z0-9]{36}\b`)},
	{"a GitHub token", []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, lazy(`\bgh[pousr]_[A-Za-z0-9]{36,}\b`)},
	{"a GitHub fine-grained token", []string{"github_pat_"}, lazy(`\bgithub_pat_[A-Za-z0-9_]{60,}\b`)},
	{"an AWS access key id", []string{"AKIA", "ASIA"}, lazy(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{"a private key", []string{"PRIVATE KEY"}, lazy(`-----BEGIN ((RSA|EC|DSA|OPENSSH|ENCRYPTED|PGP) )?PRIVATE KEY( BLOCK)?-----`)},
}

// npmrcSecret is an .npmrc auth line whose value is written out, not a ${VAR}.
var npmrcSecret = lazy(`(?m)^\s*[^#;\s]*:?(_authToken|_auth|_password)\s*=\s*([^\s$][^\s]*)\s*$`)

func lazy(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// harmlessEnv are environment files that conventionally hold placeholders.
var harmlessEnv = map[string]bool{".env.example": true, ".env.sample": true, ".env.template": true, ".env.dist": true, ".env.defaults": true, ".env.schema": true}

// Scan reports whether a file (its slash path inside the package and its content) looks like
// a credential, and why, in a phrase ("an environment file", "an npm access token on line 3").
func Scan(name string, content []byte) (reason string, found bool) {
	base := path.Base(name)
	lower := strings.ToLower(base)
	if len(content) > MaxScan {
		content = content[:MaxScan]
	}
	switch {
	case lower == ".env" || (strings.HasPrefix(lower, ".env.") && !harmlessEnv[lower]):
		return "an environment file (.env files hold secrets)", true
	case lower == ".npmrc":
		if m := npmrcSecret().FindSubmatchIndex(content); m != nil {
			return "an .npmrc with a written-out " + string(content[m[2]:m[3]]) + " on line " + itoa(lineOf(content, m[0])), true
		}
	case lower == "id_rsa" || lower == "id_dsa" || lower == "id_ecdsa" || lower == "id_ed25519":
		return "an SSH private key", true
	case strings.HasSuffix(lower, ".p12") || strings.HasSuffix(lower, ".pfx"):
		return "a PKCS#12 key store", true
	}
	if isBinary(content) {
		return "", false
	}
	for _, p := range tokenPatterns {
		if !containsAny(content, p.needles) {
			continue
		}
		if loc := p.re().FindIndex(content); loc != nil {
			return p.name + " on line " + itoa(lineOf(content, loc[0])), true
		}
	}
	return "", false
}

func containsAny(b []byte, needles []string) bool {
	for _, n := range needles {
		if bytes.Contains(b, []byte(n)) {
			return true
		}
	}
	return false
}

func isBinary(b []byte) bool {
	n := len(b)
	if n > 8000 {
		n = 8000
	}
	return bytes.IndexByte(b[:n], 0) >= 0
}

func lineOf(b []byte, off int) int { return bytes.Count(b[:off], []byte{'\n'}) + 1 }

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var buf [20]byte
	i := len(buf)
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return string(buf[i:])
}
