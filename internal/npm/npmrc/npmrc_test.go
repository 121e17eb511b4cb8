package npmrc

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/testenv"
)

func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestLayersAndPrecedence(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	proj := filepath.Join(dir, "proj")
	prefix := filepath.Join(dir, "prefix")
	write(t, filepath.Join(home, ".npmrc"), "registry=https://user.example/\n@u:registry=https://user-scope.example\n@p:registry=https://user-p.example/\n")
	write(t, filepath.Join(proj, ".npmrc"), "; project\n@p:registry = https://project.example/npm/\n# comment\n")
	write(t, filepath.Join(prefix, "etc", "npmrc"), "registry=https://global.example/\n@g:registry=https://global-scope.example/\n")
	env := map[string]string{"HOME": home, "PREFIX": prefix}
	c, err := Load(proj, envMap(env))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"plain":   "https://user.example/",
		"@u/x":    "https://user-scope.example/",
		"@p/x":    "https://project.example/npm/",
		"@g/x":    "https://global-scope.example/",
		"@none/x": "https://user.example/",
	}
	for name, want := range cases {
		if got := c.RegistryFor(name); got != want {
			t.Errorf("RegistryFor(%q) = %q, want %q", name, got, want)
		}
	}
	if got := c.Files(); len(got) != 3 {
		t.Errorf("files read = %v, want project, user and global", got)
	}

	// The environment beats every file, in each spelling getenv can find.
	for _, k := range []string{"npm_config_registry", "NPM_CONFIG_registry", "NPM_CONFIG_REGISTRY"} {
		env2 := map[string]string{"HOME": home, "PREFIX": prefix, k: "https://env.example"}
		c, err := Load(proj, envMap(env2))
		if err != nil {
			t.Fatal(err)
		}
		if got := c.RegistryFor("plain"); got != "https://env.example/" {
			t.Errorf("%s: RegistryFor = %q, want the environment's registry", k, got)
		}
	}
	// npm_config_userconfig moves the user file.
	other := filepath.Join(dir, "other.npmrc")
	write(t, other, "registry=https://other.example/")
	c, err = Load("", envMap(map[string]string{"HOME": home, "npm_config_userconfig": other, "PATH": ""}))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.RegistryFor("x"); got != "https://other.example/" {
		t.Errorf("userconfig: RegistryFor = %q", got)
	}
	// Nothing configured: npm's default.
	c, err = Load(filepath.Join(dir, "empty"), envMap(map[string]string{"HOME": filepath.Join(dir, "nohome"), "PATH": ""}))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.RegistryFor("@s/x"); got != DefaultRegistry {
		t.Errorf("default registry = %q", got)
	}
}

func TestINIValues(t *testing.T) {
	text := strings.Join([]string{
		`a = "quoted ; not a comment"`,
		`b = 'single'`,
		`c = value ; trailing comment`,
		`d = esc\;aped \# too`,
		`flag`,
		`[section]`,
		`registry = https://ignored.example/`,
	}, "\r\n")
	c := Parse("test", []byte(text), nil)
	want := map[string]string{
		"a":                "quoted ; not a comment",
		"b":                "single",
		"c":                "value",
		"d":                `esc;aped # too`,
		"flag":             "true",
		"section.registry": "https://ignored.example/",
	}
	for k, v := range want {
		if got := c.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if got := c.RegistryFor("x"); got != DefaultRegistry {
		t.Errorf("a registry inside a section must not count; got %q", got)
	}
}

func TestEnvExpansion(t *testing.T) {
	env := envMap(map[string]string{"TOKEN": "s3cret", "HOST": "reg.example"})
	c := Parse("test", []byte("//${HOST}/:_authToken=${TOKEN}\nlit=\\${TOKEN}\nopt=${MISSING?}x\n"), env)
	if got := c.AuthHeader("https://reg.example/pkg"); got != "Bearer s3cret" {
		t.Errorf("AuthHeader = %q", got)
	}
	if got := c.Get("lit"); got != "${TOKEN}" {
		t.Errorf("escaped expansion = %q", got)
	}
	if got := c.Get("opt"); got != "x" {
		t.Errorf("${VAR?} = %q", got)
	}
}

func TestAuthHeaderNerfDart(t *testing.T) {
	pass := base64.StdEncoding.EncodeToString([]byte("pa:ss"))
	text := strings.Join([]string{
		"//reg.example/:_authToken=host-token",
		"//reg.example/deep/path/:_authToken=deep-token",
		"//basic.example:8443/:_auth=dXNlcjpwdw==",
		"//userpass.example/npm/:username=alice",
		"//userpass.example/npm/:_password=" + pass,
		"_authToken=bare-is-ignored",
		"//nocred.example/:always-auth=true",
	}, "\n")
	c := Parse("test", []byte(text), nil)
	cases := []struct{ url, want string }{
		{"https://reg.example/", "Bearer host-token"},
		{"https://reg.example/@s%2fpkg", "Bearer host-token"},
		{"https://reg.example/deep/path/@s%2fpkg", "Bearer deep-token"},
		{"https://reg.example/deep/path", "Bearer host-token"}, // "//reg.example/deep/path" has none; walks up
		{"https://REG.example:443/deep/path/x", "Bearer deep-token"},
		{"https://basic.example:8443/x", "Basic dXNlcjpwdw=="},
		{"https://basic.example/x", ""}, // another port is another registry
		{"https://userpass.example/npm/x", "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:pa:ss"))},
		{"https://userpass.example/other", ""},
		{"https://nocred.example/x", ""},
		{"https://elsewhere.example/", ""},
	}
	for _, tc := range cases {
		if got := c.AuthHeader(tc.url); got != tc.want {
			t.Errorf("AuthHeader(%s) = %q, want %q", tc.url, got, tc.want)
		}
	}
	if !c.AlwaysAuth("https://nocred.example/") {
		t.Error("always-auth of a nerf-darted key is not read")
	}
	if s := c.String(); strings.Contains(s, "token") || strings.Contains(s, "dXNlcjpwdw") {
		t.Errorf("String() leaks a credential: %s", s)
	}
}

func TestNerfDart(t *testing.T) {
	cases := map[string]string{
		"https://registry.npmjs.org/":          "//registry.npmjs.org/",
		"http://127.0.0.1:4873":                "//127.0.0.1:4873/",
		"https://r.example/npm/api/index.json": "//r.example/npm/api/",
		"https://r.example:443/npm/":           "//r.example/npm/",
		"https://user:pw@r.example/npm/?q=1#x": "//r.example/npm/",
		"not a url":                            "",
		"http://[::1]:8080/":                   "//[::1]:8080/",
	}
	for in, want := range cases {
		if got := NerfDart(in); got != want {
			t.Errorf("NerfDart(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEnvironmentCredentials(t *testing.T) {
	env := envMap(map[string]string{
		"npm_config_//env.example/:_authToken": "from-env",
		"npm_config_@scope:registry":           "https://env.example",
		"npm_config_always_auth":               "true",
	})
	c := Parse("empty", nil, env)
	if got := c.RegistryFor("@scope/pkg"); got != "https://env.example/" {
		t.Errorf("scoped registry from the environment = %q", got)
	}
	if got := c.AuthHeader("https://env.example/@scope%2fpkg"); got != "Bearer from-env" {
		t.Errorf("token from the environment = %q", got)
	}
	if !c.AlwaysAuth("https://other.example/") {
		t.Error("npm_config_always_auth is not read as always-auth")
	}
}

func TestUnreadableFileIsAnErrorWithoutContent(t *testing.T) {
	if os.Geteuid() == 0 {
		// root reads any file; make the path a file inside a file instead.
		dir := t.TempDir()
		write(t, filepath.Join(dir, "f"), "x")
		_, err := Load("", envMap(map[string]string{"npm_config_userconfig": filepath.Join(dir, "f", "npmrc"), "PATH": ""}))
		if err == nil {
			t.Fatal("a user config below a file must fail to read")
		}
		return
	}
	dir := t.TempDir()
	p := filepath.Join(dir, ".npmrc")
	write(t, p, "//x/:_authToken=secret-value")
	if err := os.Chmod(p, 0); err != nil {
		t.Fatal(err)
	}
	_, err := Load(dir, envMap(map[string]string{"HOME": dir, "PATH": ""}))
	if err == nil {
		t.Fatal("an unreadable .npmrc must be an error")
	}
	if strings.Contains(err.Error(), "secret-value") {
		t.Fatalf("the error leaks the file's content: %v", err)
	}
}

// TestGlobalFileBesideNode: with no prefix set, the global file is etc/npmrc above the
// folder holding the first node on PATH, that node's links resolved, as npm takes it
// (dirname(dirname(process.execPath))). PLAIOS_TEST_NPMRC_DIR, when set, is a folder
// nodeBesideLayout filled (TestGlobalFileBesideNodeLeavesTheFoldersAboveUnread).
func TestGlobalFileBesideNode(t *testing.T) {
	dir := os.Getenv("PLAIOS_TEST_NPMRC_DIR")
	if dir == "" {
		dir = t.TempDir()
		nodeBesideLayout(t, dir)
	}
	path := strings.Join([]string{filepath.Join(dir, "nothing-here"), filepath.Join(dir, "usr", "bin")}, string(os.PathListSeparator))
	c, err := Load("", envMap(map[string]string{"HOME": filepath.Join(dir, "home"), "PATH": path}))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.RegistryFor("x"); got != "https://beside-the-real-node.example/" {
		t.Errorf("RegistryFor = %q, want the registry of the global file beside the node the link reaches", got)
	}
}

// nodeBesideLayout writes a node under opt/ with a global file beside it, and a link to it
// in usr/bin, beside which lies another global file.
func nodeBesideLayout(t *testing.T, dir string) {
	t.Helper()
	write(t, filepath.Join(dir, "opt", "node-v24", "bin", "node"), "#!/bin/sh\n")
	write(t, filepath.Join(dir, "opt", "node-v24", "etc", "npmrc"), "registry=https://beside-the-real-node.example/\n")
	write(t, filepath.Join(dir, "usr", "etc", "npmrc"), "registry=https://beside-the-link.example/\n")
	if err := os.MkdirAll(filepath.Join(dir, "usr", "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../opt/node-v24/bin/node", filepath.Join(dir, "usr", "bin", "node")); err != nil {
		t.Fatal(err)
	}
}

// TestGlobalFileBesideNodeLeavesTheFoldersAboveUnread runs TestGlobalFileBesideNode in a
// second start of this test binary with the go command's test log: finding the global file
// must not stat the folders above the node (filepath.EvalSymlinks would stat each), since one
// of them is the checkout's root when guard's tests put testdata's Node 24 first on PATH, and
// the go command would key their cached result on its time.
func TestGlobalFileBesideNodeLeavesTheFoldersAboveUnread(t *testing.T) {
	testenv.SkipShort(t, "starts this test binary again")
	dir := t.TempDir()
	nodeBesideLayout(t, dir)
	_, reads := testenv.ReadsOf(t, append(os.Environ(), "PLAIOS_TEST_NPMRC_DIR="+dir), "^TestGlobalFileBesideNode$")
	sawFile := false
	for _, r := range reads {
		if r.Path == dir || r.Path == filepath.Join(dir, "usr") || r.Path == filepath.Join(dir, "opt") {
			t.Errorf("finding the global file read %s (%s)", r.Path, r.Op)
		}
		sawFile = sawFile || r.Path == filepath.Join(dir, "opt", "node-v24", "etc", "npmrc")
	}
	if !sawFile {
		t.Errorf("the test log shows no read of the global file: %v", reads)
	}
}
