// Package secretscan recognises files that look like credentials, for the rule
// `secret-shipped`: environment files, private keys, an .npmrc holding a token, and npm,
// GitHub and AWS token patterns inside any file. validate runs it on the files npm would
// pack (streaming each file, so that memory stays bounded whatever their size), guard on the
// entries of the real tarball.
package secretscan

import (
	"bytes"
	"io"
	"path"
	"regexp"
	"strings"
	"sync"
)

// MaxScan bounds how much of one file's content Scan searches for token patterns, and how
// much of a binary file (one with a NUL byte near its start) ScanReader looks at.
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
	if len(content) > MaxScan {
		content = content[:MaxScan]
	}
	if reason, found := scanName(name, content); found {
		return reason, true
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

// The window ScanReader searches at a time, and how much of the previous window it keeps so
// that a token across the boundary is still found (every pattern is shorter).
const (
	window  = 1 << 20
	overlap = 512
)

// ScanReader is Scan for a file read as a stream: a text file is searched whole, a window at
// a time, and a binary one only within its first MaxScan bytes, so that memory stays bounded
// whatever the file's size. To scan many files, use one Scanner for all of them.
func ScanReader(name string, r io.Reader) (reason string, found bool, err error) {
	return new(Scanner).ScanReader(name, r)
}

// Scanner scans files one after another with one window, allocated once: a pack that ships
// thousands of files (a bundled node_modules) otherwise allocates a megabyte for each, and
// spends most of its time collecting them. It is not for use by two goroutines at once.
type Scanner struct {
	buf []byte
}

// ScanReader is the package's ScanReader, with the Scanner's window.
func (s *Scanner) ScanReader(name string, r io.Reader) (reason string, found bool, err error) {
	if s.buf == nil {
		s.buf = make([]byte, window+overlap)
	}
	buf := s.buf
	n, err := io.ReadFull(r, buf[:min(window, MaxScan)])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return "", false, err
	}
	first := buf[:n]
	if reason, found := scanName(name, first); found {
		return reason, true, nil
	}
	if isBinary(first) {
		return "", false, nil
	}
	line := 0 // newlines before the current window
	kept := 0 // bytes of the previous window at the start of buf
	for {
		chunk := buf[:kept+n]
		for _, p := range tokenPatterns {
			if !containsAny(chunk, p.needles) {
				continue
			}
			if loc := p.re().FindIndex(chunk); loc != nil {
				return p.name + " on line " + itoa(line+lineOf(chunk, loc[0])), true, nil
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF || n == 0 {
			return "", false, nil
		}
		keep := min(overlap, len(chunk))
		line += bytes.Count(chunk[:len(chunk)-keep], []byte{'\n'})
		copy(buf, chunk[len(chunk)-keep:])
		kept = keep
		n, err = io.ReadFull(r, buf[kept:kept+window])
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return "", false, err
		}
	}
}

// scanName is what a file's name says (with the start of its content for an .npmrc): a
// reason and true, or "" to look at the content for tokens.
func scanName(name string, content []byte) (string, bool) {
	lower := strings.ToLower(path.Base(name))
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
