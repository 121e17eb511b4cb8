package npmrc_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/npm/npmrc"
	"github.com/plaios/plaios/internal/testenv"
)

// TestEffective: the one file Effective writes makes another npm — with another HOME, no
// npm_config_* variables and no global file — read the registries, scopes, credentials and
// TLS settings the layered configuration gives, without this machine's own paths. The pinned
// npm reads the file back as the oracle.
func TestEffective(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	proj := filepath.Join(dir, "proj")
	prefix := filepath.Join(dir, "prefix")
	writeFile(t, filepath.Join(home, ".npmrc"), "registry=https://user.example/\n//user.example/:_authToken=${USER_TOKEN}\ncache=/home/someone/.npm\n@u:registry=https://user-scope.example/\n")
	writeFile(t, filepath.Join(proj, ".npmrc"), "@p:registry = https://project.example/npm/\nstrict-ssl=false\n")
	writeFile(t, filepath.Join(prefix, "etc", "npmrc"), "cafile=/etc/ssl/certs/ca-certificates.crt\nprefix=/usr/local\n")
	env := map[string]string{"HOME": home, "PREFIX": prefix, "USER_TOKEN": "tok-123",
		"npm_config_registry": "http://127.0.0.1:4873", "npm_config_https_proxy": "http://proxy.example:3128"}
	c, err := npmrc.Load(proj, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	text := c.Effective()
	for _, host := range []string{"cache=", "prefix=", "userconfig=", "globalconfig="} {
		if strings.Contains(text, "\n"+host) || strings.HasPrefix(text, host) {
			t.Errorf("Effective carries this machine's %s:\n%s", strings.TrimSuffix(host, "="), text)
		}
	}
	file := filepath.Join(dir, "effective.npmrc")
	writeFile(t, file, text)

	back := npmrc.Parse(file, []byte(text), nil)
	for name, want := range map[string]string{"plain": "http://127.0.0.1:4873/", "@u/x": "https://user-scope.example/", "@p/x": "https://project.example/npm/"} {
		if got := back.RegistryFor(name); got != want {
			t.Errorf("read back: RegistryFor(%q) = %q, want %q", name, got, want)
		}
	}
	if got := back.AuthHeader("https://user.example/x"); got != "Bearer tok-123" {
		t.Errorf("read back: the user file's token (expanded) = %q", got)
	}

	argv, npmEnv := testenv.OracleNPM(t)
	empty := t.TempDir()
	npmEnv = append(npmEnv, "HOME="+filepath.Join(dir, "other-home"), "npm_config_userconfig="+file, "npm_config_globalconfig="+filepath.Join(dir, "none"))
	want := map[string]string{
		"registry":    "http://127.0.0.1:4873",
		"@u:registry": "https://user-scope.example/",
		"@p:registry": "https://project.example/npm/",
		"strict-ssl":  "false",
		"cafile":      "/etc/ssl/certs/ca-certificates.crt",
		"https-proxy": "http://proxy.example:3128",
		"prefix":      "", // npm's own default, not /usr/local
	}
	for key, w := range want {
		cmd := exec.Command(argv[0], append(argv[1:], "config", "get", key)...)
		cmd.Dir = empty
		cmd.Env = npmEnv
		out, err := cmd.CombinedOutput()
		got := strings.TrimSpace(string(out))
		if err != nil {
			t.Fatalf("npm config get %s: %v\n%s", key, err, out)
		}
		switch {
		case key == "prefix":
			if got == "/usr/local" {
				t.Errorf("npm reads the host's prefix from the file")
			}
		case got != w:
			t.Errorf("npm config get %s = %q, want %q", key, got, w)
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
