package sandbox

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestNetworkEnv: a child given the network gets this machine's certificate authorities and
// proxies (and the CA files to read), never a proxy URL that carries a credential, nor
// anything else.
func TestNetworkEnv(t *testing.T) {
	ca := filepath.Join(t.TempDir(), "corp-ca.pem")
	if err := os.WriteFile(ca, []byte("-----BEGIN CERTIFICATE-----\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{
		"NODE_EXTRA_CA_CERTS": ca,
		"HTTPS_PROXY":         "http://proxy.example:3128",
		"http_proxy":          "http://user:secret@proxy.example:3128",
		"NO_PROXY":            "localhost,127.0.0.1",
		"NPM_TOKEN":           "npm_abc",
		"SSL_CERT_DIR":        filepath.Join(t.TempDir(), "missing"),
	}
	env, mounts := NetworkEnv(func(k string) string { return vars[k] })
	want := []string{"NODE_EXTRA_CA_CERTS=" + ca, "SSL_CERT_DIR=" + vars["SSL_CERT_DIR"], "HTTPS_PROXY=http://proxy.example:3128", "NO_PROXY=localhost,127.0.0.1"}
	if !reflect.DeepEqual(env, want) {
		t.Errorf("env = %q, want %q", env, want)
	}
	if !reflect.DeepEqual(mounts, []Mount{{Path: ca}}) {
		t.Errorf("mounts = %+v, want the CA file alone (the missing folder is not shown)", mounts)
	}
}
