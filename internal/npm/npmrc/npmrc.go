// Package npmrc reads npm's configuration the way npm 11 does, for the parts plaios needs to
// talk to a registry: which registry serves a package (`registry=`, `@scope:registry=`) and
// which credentials go with a request (`//host[:port]/path/:_authToken=`, `:_auth=`,
// `:username=` with a base64 `:_password=`), matched by npm's "nerf dart" rule: the longest
// `//host/path/` prefix of the request URL that has credentials.
//
// Layers, highest first, as npm orders them: the environment (`npm_config_<key>`), the project
// `.npmrc` (at the workspace root), the user config (`$npm_config_userconfig`, else
// `~/.npmrc`) and the global config (`$npm_config_globalconfig`, else `$PREFIX/etc/npmrc`,
// where PREFIX is `$npm_config_prefix`, `$PREFIX`, or the folder above the `node` found on
// PATH; optional). Files are read as the `ini` package npm uses reads them (`;` and `#`
// comments, quoted values, `[section]` headers whose keys npm does not use) and `${VAR}` is
// expanded in keys and values (`${VAR?}` expands to "" when VAR is unset).
//
// Where this differs from npm, on purpose:
//   - The environment is read through a getenv function, so only the spellings
//     `npm_config_<key>`, `NPM_CONFIG_<key>` and `NPM_CONFIG_<KEY>` are found (npm accepts any
//     case), with `_` standing for `-` as npm reads them (`npm_config_always_auth`).
//   - An unset `${VAR}` expands to "" (npm leaves the text `${VAR}` in place and would send it
//     as a token; an empty credential is simply not sent).
//   - Credentials that are not scoped to a registry (a bare `_authToken=`), which npm 11
//     refuses to start with, are ignored.
//   - `always-auth` is read but changes nothing: npm 11 sends credentials with every request
//     whose URL a credential key matches, and so does this package.
//
// Tokens never appear in errors, in String, or anywhere else this package returns text.
package npmrc

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/plaios/plaios/internal/realpath"
)

// DefaultRegistry is npm's default registry.
const DefaultRegistry = "https://registry.npmjs.org/"

// Config is the layered npm configuration.
type Config struct {
	getenv func(string) string
	files  []layer // highest precedence first (after the environment)
}

type layer struct {
	name   string // the file it came from
	values map[string]string
}

// Load reads the npm configuration for a project whose root is projectDir ("" for none),
// with getenv reading the environment (nil: os.Getenv). A missing file is not an error; a
// file that exists but cannot be read is.
func Load(projectDir string, getenv func(string) string) (*Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	c := &Config{getenv: getenv}
	var paths []string
	if projectDir != "" {
		paths = append(paths, filepath.Join(projectDir, ".npmrc"))
	}
	user := c.env("userconfig")
	if user == "" {
		if home := homeDir(getenv); home != "" {
			user = filepath.Join(home, ".npmrc")
		}
	} else {
		user = expandHome(user, getenv)
	}
	if user != "" {
		paths = append(paths, user)
	}
	// The global config's location may itself be set in the project or user file.
	var loaded []layer
	for _, p := range paths {
		l, err := readFile(p, getenv)
		if err != nil {
			return nil, err
		}
		if l != nil {
			loaded = append(loaded, *l)
		}
	}
	c.files = loaded
	if global := c.globalConfigPath(); global != "" {
		l, err := readFile(global, getenv)
		if err != nil {
			return nil, err
		}
		if l != nil {
			c.files = append(c.files, *l)
		}
	}
	return c, nil
}

// Parse builds a Config from the text of one npmrc file (named name in messages) over the
// given environment, without reading any other file. Tests and callers that hold the
// configuration in memory use it.
func Parse(name string, data []byte, getenv func(string) string) *Config {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	return &Config{getenv: getenv, files: []layer{{name: name, values: parseINI(string(data), getenv)}}}
}

func homeDir(getenv func(string) string) string {
	if h := getenv("HOME"); h != "" {
		return h
	}
	return getenv("USERPROFILE")
}

func expandHome(p string, getenv func(string) string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		return filepath.Join(homeDir(getenv), p[1:])
	}
	return p
}

func (c *Config) globalConfigPath() string {
	if g := c.Get("globalconfig"); g != "" {
		return expandHome(g, c.getenv)
	}
	prefix := c.Get("prefix")
	if prefix == "" {
		prefix = c.getenv("PREFIX")
	}
	if prefix == "" {
		prefix = nodePrefix(c.getenv("PATH"))
	}
	if prefix == "" {
		return ""
	}
	return filepath.Join(expandHome(prefix, c.getenv), "etc", "npmrc")
}

// nodePrefix is npm's default global prefix: the folder above the one holding node, its
// links resolved (@npmcli/config's loadGlobalPrefix takes dirname(dirname(process.execPath)),
// which the kernel resolves). realpath.Resolve rather than filepath.EvalSymlinks: no stat of
// the folders above it, one of which may be a checkout's root (see package realpath).
func nodePrefix(pathList string) string {
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, "node")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			if real, err := realpath.Resolve(p); err == nil {
				p = real
			}
			return filepath.Dir(filepath.Dir(p))
		}
	}
	return ""
}

func readFile(path string, getenv func(string) string) (*layer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		if st, serr := os.Stat(path); serr == nil && st.IsDir() {
			return nil, nil
		}
		return nil, fmt.Errorf("cannot read the npm configuration %s: %v", path, unwrapPathError(err))
	}
	return &layer{name: path, values: parseINI(string(data), getenv)}, nil
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// env reads the environment layer for key.
func (c *Config) env(key string) string {
	for _, name := range envNames(key) {
		if v := c.getenv(name); v != "" {
			return v
		}
	}
	return ""
}

// envNames are the variable names npm would read key from, in the spellings getenv can find.
func envNames(key string) []string {
	k := key
	if !strings.HasPrefix(key, "//") {
		// npm turns every "_" but a leading one into "-": invert that.
		if len(k) > 1 {
			k = k[:1] + strings.ReplaceAll(k[1:], "-", "_")
		}
	}
	names := []string{"npm_config_" + k, "NPM_CONFIG_" + k}
	if up := "NPM_CONFIG_" + strings.ToUpper(k); up != names[1] && !strings.HasPrefix(key, "//") {
		names = append(names, up)
	}
	return names
}

// Get returns the value of key from the highest layer that sets it, "" when none does.
func (c *Config) Get(key string) string {
	if c == nil {
		return ""
	}
	if v := c.env(key); v != "" {
		return envReplace(v, c.getenv)
	}
	for _, l := range c.files {
		if v, ok := l.values[key]; ok {
			return v
		}
	}
	return ""
}

// Files lists the configuration files that were read, highest precedence first.
func (c *Config) Files() []string {
	var out []string
	for _, l := range c.files {
		out = append(out, l.name)
	}
	return out
}

// String describes the configuration without any credential.
func (c *Config) String() string {
	return fmt.Sprintf("npm configuration from %s (registry %s)", strings.Join(c.Files(), ", "), c.RegistryFor(""))
}

// Normalize returns a registry URL with exactly one trailing slash.
func Normalize(u string) string {
	u = strings.TrimSpace(u)
	if u == "" {
		return ""
	}
	return strings.TrimRight(u, "/") + "/"
}

// RegistryFor returns the registry that serves pkgName, normalised with a trailing "/": the
// scope's `@scope:registry` when the name is scoped and one is set, else `registry`, else
// npm's default registry.
func (c *Config) RegistryFor(pkgName string) string {
	if scope := Scope(pkgName); scope != "" {
		if r := c.Get(scope + ":registry"); r != "" {
			return Normalize(r)
		}
	}
	if r := c.Get("registry"); r != "" {
		return Normalize(r)
	}
	return DefaultRegistry
}

// ScopeRegistry returns the registry configured for the scope of pkgName, "" when the name is
// not scoped or the scope has no registry of its own.
func (c *Config) ScopeRegistry(pkgName string) string {
	if scope := Scope(pkgName); scope != "" {
		return Normalize(c.Get(scope + ":registry"))
	}
	return ""
}

// Scope returns "@scope" for "@scope/name", else "".
func Scope(pkgName string) string {
	if strings.HasPrefix(pkgName, "@") {
		if i := strings.IndexByte(pkgName, '/'); i > 1 {
			return strings.ToLower(pkgName[:i])
		}
	}
	return ""
}

// AlwaysAuth reports the always-auth setting for a registry (its nerf-darted key first). It is
// kept for inspection only: npm 11 ignores it, and so does AuthHeader.
func (c *Config) AlwaysAuth(registryURL string) bool {
	if key := NerfDart(registryURL); key != "" {
		if v := c.Get(key + ":always-auth"); v != "" {
			return v == "true"
		}
	}
	return c.Get("always-auth") == "true"
}

// AuthHeader returns the Authorization header value npm would send with a request to
// requestURL (a registry URL or any URL below it): "Bearer <token>" for `_authToken`,
// "Basic <base64>" for `_auth` or `username` + `_password`, "" when no credential matches.
// The credential is the one of the longest `//host[:port]/path` prefix of the URL that has
// one, as npm-registry-fetch finds it.
func (c *Config) AuthHeader(requestURL string) string {
	key := c.regKey(requestURL)
	if key == "" {
		return ""
	}
	if tok := c.Get(key + ":_authToken"); tok != "" {
		return "Bearer " + tok
	}
	if auth := c.Get(key + ":_auth"); auth != "" {
		return "Basic " + auth
	}
	user, pass := c.Get(key+":username"), c.Get(key+":_password")
	if user != "" && pass != "" {
		decoded, err := base64.StdEncoding.DecodeString(pass)
		if err != nil {
			// npm's Buffer.from(…, 'base64') is lenient; try without padding.
			decoded, _ = base64.RawStdEncoding.DecodeString(strings.TrimRight(pass, "="))
		}
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+string(decoded)))
	}
	return ""
}

// HasAuth reports whether a credential matches requestURL.
func (c *Config) HasAuth(requestURL string) bool { return c.AuthHeader(requestURL) != "" }

// regKey walks the URL up from its full path to its host, returning the first key that has
// some kind of credential (npm-registry-fetch's regKeyFromURI).
func (c *Config) regKey(requestURL string) string {
	key := NerfDartFull(requestURL)
	for len(key) > len("//") {
		if c.hasAuth(key) {
			return key
		}
		key = walkUp().ReplaceAllString(key, "")
	}
	return ""
}

// walkUp removes either the last path segment or the trailing slash (`//h/a/` → `//h/a` →
// `//h/`), as npm walks a URL up.
var walkUp = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`([^/]+|/)$`) })

func (c *Config) hasAuth(key string) bool {
	return c.Get(key+":_authToken") != "" ||
		c.Get(key+":_auth") != "" ||
		(c.Get(key+":username") != "" && c.Get(key+":_password") != "") ||
		(c.Get(key+":certfile") != "" && c.Get(key+":keyfile") != "")
}

// NerfDart returns the credential key prefix of a registry URL: "//host[:port]/path/" (the
// URL without scheme, query, fragment and file name), as npm writes it in .npmrc.
func NerfDart(registryURL string) string {
	u, err := url.Parse(registryURL)
	if err != nil || u.Host == "" {
		return ""
	}
	p := u.EscapedPath()
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		p = p[:i+1]
	} else {
		p = "/"
	}
	return "//" + hostPort(u) + p
}

// NerfDartFull is "//host[:port]" followed by the URL's whole path, the starting point of
// npm's walk up.
func NerfDartFull(requestURL string) string {
	u, err := url.Parse(requestURL)
	if err != nil || u.Host == "" {
		return ""
	}
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	return "//" + hostPort(u) + p
}

// hostPort is the URL's host as the WHATWG URL parser gives it: lower case, without the
// scheme's default port.
func hostPort(u *url.URL) string {
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	port := u.Port()
	if port == "" || (u.Scheme == "https" && port == "443") || (u.Scheme == "http" && port == "80") {
		return host
	}
	return host + ":" + port
}

// parseINI reads an npmrc file as the ini package npm uses does. Keys under a [section]
// become "section.key", which npm never reads.
func parseINI(text string, getenv func(string) string) map[string]string {
	out := map[string]string{}
	section := ""
	for _, line := range splitLines(text) {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || trimmed[0] == ';' || trimmed[0] == '#' {
			continue
		}
		if m := sectionRE().FindStringSubmatch(line); m != nil {
			section = unsafe(m[1]) + "."
			continue
		}
		key, value, hasValue := strings.Cut(line, "=")
		k := unsafe(key)
		if k == "" {
			continue
		}
		v := "true"
		if hasValue {
			v = unsafe(value)
		}
		k = strings.TrimSuffix(k, "[]")
		k = envReplace(k, getenv)
		v = envReplace(v, getenv)
		out[section+k] = v
	}
	return out
}

var sectionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[([^\]]*)\]\s*$`) })

func splitLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Split(s, "\n")
}

// unsafe decodes an ini key or value: a quoted value as JSON (single quotes stripped first),
// else the text up to the first unescaped ";" or "#", with "\;", "\#" and "\\" unescaped.
func unsafe(val string) string {
	val = strings.TrimSpace(val)
	if len(val) >= 2 && ((val[0] == '"' && val[len(val)-1] == '"') || (val[0] == '\'' && val[len(val)-1] == '\'')) {
		if val[0] == '\'' {
			val = val[1 : len(val)-1]
		}
		var s string
		if err := json.Unmarshal([]byte(val), &s); err == nil {
			return s
		}
		return val
	}
	var b strings.Builder
	esc := false
	for _, r := range val {
		switch {
		case esc:
			if r == '\\' || r == ';' || r == '#' {
				b.WriteRune(r)
			} else {
				b.WriteRune('\\')
				b.WriteRune(r)
			}
			esc = false
		case r == ';' || r == '#':
			return strings.TrimSpace(b.String())
		case r == '\\':
			esc = true
		default:
			b.WriteRune(r)
		}
	}
	if esc {
		b.WriteRune('\\')
	}
	return strings.TrimSpace(b.String())
}

// envExpr is npm's ${VAR} / ${VAR?} pattern; an odd number of backslashes escapes it.
var envExpr = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\\*)\$\{([^${}?]+)(\?)?\}`) })

func envReplace(s string, getenv func(string) string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return envExpr().ReplaceAllStringFunc(s, func(orig string) string {
		m := envExpr().FindStringSubmatch(orig)
		esc, name := m[1], m[2]
		if len(esc)%2 == 1 {
			return orig[(len(esc)+1)/2:]
		}
		return esc[len(esc)/2:] + getenv(name)
	})
}

// Keys lists the keys set in the files (not the environment), sorted; for diagnostics. Keys
// holding credentials are listed by name only.
func (c *Config) Keys() []string {
	seen := map[string]bool{}
	for _, l := range c.files {
		for k := range l.values {
			seen[k] = true
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ExpandEnv expands `${VAR}` and `${VAR?}` in text as npm does when it reads an .npmrc, with
// the values getenv gives (plaios guard writes the expanded file for an install that gets no
// environment of its own).
func ExpandEnv(text string, getenv func(string) string) string { return envReplace(text, getenv) }

// envOnlyKeys are the settings npm also takes from the environment (`npm_config_<key>`) that
// Effective carries over: where packages come from and how npm reaches it.
var envOnlyKeys = []string{"registry", "cafile", "ca", "strict-ssl", "proxy", "https-proxy", "noproxy", "always-auth"}

// hostKeys name this machine's own files and folders, which mean nothing to an npm running
// elsewhere (a sandbox with another HOME): Effective leaves them out.
var hostKeys = map[string]bool{"userconfig": true, "globalconfig": true, "prefix": true, "cache": true,
	"tmp": true, "init-module": true, "script-shell": true, "shell": true, "node-gyp": true,
	"onload-script": true, "globalignorefile": true, "logs-dir": true, "editor": true}

// Effective returns the configuration as one npm would use it — for every key a file sets,
// and for the connection settings the environment may set, the value that wins — as the text
// of one npmrc, so that an npm started with another HOME and environment (guard's contained
// install) reads the registries, scopes, credentials and TLS settings this one would. Keys
// that name this machine's files (userconfig, prefix, cache…) are left out, but cafile,
// which the caller shows to that npm, is kept. The text holds credentials: write it only
// where nothing but npm reads it.
func (c *Config) Effective() string {
	keys := map[string]bool{}
	for _, l := range c.files {
		for k := range l.values {
			keys[k] = true
		}
	}
	for _, k := range envOnlyKeys {
		if c.env(k) != "" {
			keys[k] = true
		}
	}
	var names []string
	for k := range keys {
		if !hostKeys[k] {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		v := c.Get(k)
		if strings.ContainsAny(v, ";#\n\r") || strings.TrimSpace(v) != v || strings.HasPrefix(v, `"`) {
			q, _ := json.Marshal(v)
			v = string(q)
		}
		b.WriteString(k + "=" + v + "\n")
	}
	return b.String()
}
