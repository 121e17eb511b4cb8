package guard

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/plaios/plaios/internal/testenv"
)

// TestInstallTrustsTheJobsCA: where a TLS-inspecting proxy stands between CI and the registry,
// node trusts its authority through NODE_EXTRA_CA_CERTS. guard's install runs npm in the
// sandbox with a filtered environment; it keeps that variable (and shows the file it names:
// sandbox.NetworkEnv's unit test holds the list, this test the whole way through real npm),
// so the pack's dependency installs from a registry served over TLS under a certificate of
// that authority. The registry is the test's Verdaccio behind a TLS reverse proxy whose
// certificate no public authority signed; the job's node is Node 24, whose npm reads no global
// npmrc here (this machine's /usr/etc/npmrc names a cafile, which would replace node's
// authorities), so only the variable makes it trust the proxy.
func TestInstallTrustsTheJobsCA(t *testing.T) {
	t.Parallel() // see baseOptions
	reg := testRegistry(t)
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{
		"package.json":              `{"name":"tls","private":true,"workspaces":["packages/*"]}`,
		"deps/tls-dep/package.json": `{"name":"@guard-tls/dep","version":"1.0.0","main":"index.js"}`,
		"deps/tls-dep/index.js":     "module.exports = { answer: 42 };\n",
		"packages/app/package.json": `{"name":"@guard-tls/app","version":"1.0.0","main":"index.js","license":"MIT","dependencies":{"@guard-tls/dep":"^1.0.0"}}`,
		"packages/app/index.js":     "module.exports = require('@guard-tls/dep');\n",
		"packages/app/README.md":    "# app\n\n```js\nrequire('@guard-tls/app');\n```\n",
	})
	reg.Publish(t, filepath.Join(dir, "deps", "tls-dep"))

	target, err := url.Parse(reg.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	direct := proxy.Director
	proxy.Director = func(r *http.Request) {
		direct(r)
		r.Header.Set("X-Forwarded-Proto", "https")
	}
	srv := httptest.NewTLSServer(proxy)
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "proxy-ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}

	opts := baseOptions(t, dir)
	opts.Registry = srv.URL + "/"
	opts.Only = []string{"packages/app"}
	opts.Node = filepath.Join(testenv.Node24(t), "node")
	getenv := opts.Getenv
	opts.Getenv = func(k string) string {
		switch k {
		case "NODE_EXTRA_CA_CERTS":
			return ca
		case "PATH": // a job whose node is Node 24
			return testenv.Node24(t) + string(os.PathListSeparator) + getenv(k)
		}
		return getenv(k)
	}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if r := byDir(rep)["packages/app"]; r == nil || !r.OK {
		t.Fatalf("the install over TLS failed: %+v", r)
	}
}
