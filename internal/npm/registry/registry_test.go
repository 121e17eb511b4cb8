package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/npm/npmrc"
)

func packumentJSON(name string, versions ...string) string {
	vs := map[string]any{}
	for _, v := range versions {
		vs[v] = map[string]any{"name": name, "version": v, "dist": map[string]any{
			"integrity": "sha512-" + v, "shasum": "sha1-" + v, "tarball": "http://x/" + name + "-" + v + ".tgz"}}
	}
	latest := ""
	if len(versions) > 0 {
		latest = versions[len(versions)-1]
	}
	b, _ := json.Marshal(map[string]any{"name": name, "dist-tags": map[string]any{"latest": latest, "odd": 3}, "versions": vs})
	return string(b)
}

func fastClient(url string) *Client {
	return &Client{HTTP: &http.Client{Timeout: 2 * time.Second}, Registry: url, Attempts: 3, Backoff: 5 * time.Millisecond}
}

func TestPackumentRequestAndDocument(t *testing.T) {
	var gotPath, gotAccept string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotPath, gotAccept = r.URL.EscapedPath(), r.Header.Get("Accept")
		fmt.Fprint(w, packumentJSON("@s/pkg", "1.0.0", "1.1.0"))
	}))
	defer srv.Close()
	c := fastClient(srv.URL)
	p, err := c.Packument(context.Background(), "@s/pkg")
	if err != nil {
		t.Fatal(err)
	}
	if gotPath != "/@s%2fpkg" {
		t.Errorf("path = %q, want /@s%%2fpkg", gotPath)
	}
	if gotAccept != "application/json" {
		t.Errorf("full documents are asked with Accept application/json, got %q", gotAccept)
	}
	if p.Name != "@s/pkg" || len(p.Versions) != 2 || p.DistTags["latest"] != "1.1.0" {
		t.Errorf("packument = %+v", p)
	}
	if _, ok := p.DistTags["odd"]; ok {
		t.Error("a non-string dist-tag must be skipped")
	}
	if v := p.Versions["1.1.0"]; v.Integrity != "sha512-1.1.0" || v.Shasum != "sha1-1.1.0" || v.Tarball == "" {
		t.Errorf("version = %+v", v)
	}
	if p.Registry != srv.URL+"/" {
		t.Errorf("Registry = %q", p.Registry)
	}
	c.Abbreviated = true
	if _, err := c.Packument(context.Background(), "plain"); err != nil {
		t.Fatal(err)
	}
	if gotPath != "/plain" || !strings.HasPrefix(gotAccept, "application/vnd.npm.install-v1+json") {
		t.Errorf("abbreviated: path %q accept %q", gotPath, gotAccept)
	}
}

// faultServer answers with fn and counts requests.
func faultServer(t *testing.T, fn func(n int, w http.ResponseWriter, r *http.Request)) (*httptest.Server, *int32) {
	var n int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fn(int(atomic.AddInt32(&n, 1)), w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestFaults(t *testing.T) {
	secret := "npm_SECRETTOKEN123"
	cases := []struct {
		name     string
		handler  func(n int, w http.ResponseWriter, r *http.Request)
		timeout  time.Duration
		attempts int32 // requests the client must make
		want     []string
	}{
		{"500", func(n int, w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) }, 0, 3,
			[]string{"HTTP 500 Internal Server Error", "after 3 attempts", "try again"}},
		{"503 then ok", func(n int, w http.ResponseWriter, r *http.Request) {
			if n < 3 {
				w.WriteHeader(503)
				return
			}
			fmt.Fprint(w, packumentJSON("pkg", "1.0.0"))
		}, 0, 3, nil},
		{"timeout", func(n int, w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(2 * time.Second):
			case <-r.Context().Done():
			}
		}, 150 * time.Millisecond, 3, []string{"timed out"}},
		{"malformed JSON", func(n int, w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"name": "pkg", "versions": {`) }, 0, 1,
			[]string{"not a packument", "malformed JSON"}},
		{"401", func(n int, w http.ResponseWriter, r *http.Request) { w.WriteHeader(401) }, 0, 1,
			[]string{"refused access", "HTTP 401", "credentials"}},
		{"403", func(n int, w http.ResponseWriter, r *http.Request) { w.WriteHeader(403) }, 0, 1,
			[]string{"HTTP 403"}},
		{"reset", func(n int, w http.ResponseWriter, r *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		}, 0, 3, []string{"reset"}},
		{"400", func(n int, w http.ResponseWriter, r *http.Request) { w.WriteHeader(400) }, 0, 1,
			[]string{"HTTP 400", "registry URL"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, n := faultServer(t, tc.handler)
			c := fastClient(srv.URL)
			if tc.timeout > 0 {
				c.HTTP.Timeout = tc.timeout
			}
			host := strings.TrimPrefix(srv.URL, "http:")
			c.NPMRC = npmrc.Parse("test", []byte(host+"/:_authToken="+secret), nil)
			p, err := c.Packument(context.Background(), "pkg")
			if got := atomic.LoadInt32(n); got != tc.attempts {
				t.Errorf("requests = %d, want %d", got, tc.attempts)
			}
			if tc.want == nil {
				if err != nil || p == nil {
					t.Fatalf("a transient failure must be retried until it succeeds: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("expected an error")
			}
			if errors.Is(err, ErrNotFound) {
				t.Fatal("a failure must never be taken for not found")
			}
			if code := exit.Code(err); code != exit.Env {
				t.Errorf("exit code = %d, want 3", code)
			}
			msg := err.Error()
			t.Log(msg)
			for _, w := range append(tc.want, "pkg", srv.URL) {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
			if strings.Contains(msg, secret) || strings.Count(msg, ";") > 1 || strings.Contains(msg, "\n") {
				t.Errorf("message is not one clean sentence: %q", msg)
			}
		})
	}
}

func TestNPMRCScopedRegistryAndToken(t *testing.T) {
	type hit struct{ path, auth string }
	var mu sync.Mutex
	hits := map[string][]hit{}
	mk := func(label string) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			hits[label] = append(hits[label], hit{r.URL.EscapedPath(), r.Header.Get("Authorization")})
			mu.Unlock()
			fmt.Fprint(w, packumentJSON("x", "1.0.0"))
		}))
	}
	def, scoped, flag := mk("default"), mk("scoped"), mk("flag")
	defer def.Close()
	defer scoped.Close()
	defer flag.Close()
	host := func(u string) string { return strings.TrimPrefix(u, "http:") }
	rc := strings.Join([]string{
		"registry=" + def.URL,
		"@team:registry=" + scoped.URL + "/npm/",
		host(scoped.URL) + "/npm/:_authToken=${TEAM_TOKEN}",
		host(def.URL) + "/:_authToken=default-token",
	}, "\n")
	cfg := npmrc.Parse(".npmrc", []byte(rc), func(k string) string {
		if k == "TEAM_TOKEN" {
			return "team-token"
		}
		return ""
	})
	c := &Client{NPMRC: cfg, Attempts: 1}
	ctx := context.Background()
	if _, err := c.Packument(ctx, "@team/pack"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Packument(ctx, "plain"); err != nil {
		t.Fatal(err)
	}
	// --registry replaces the default registry but not a scope's own, as with npm.
	c.Registry = flag.URL
	if _, err := c.Packument(ctx, "@team/other"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Packument(ctx, "plain2"); err != nil {
		t.Fatal(err)
	}
	want := map[string][]hit{
		"scoped":  {{"/npm/@team%2fpack", "Bearer team-token"}, {"/npm/@team%2fother", "Bearer team-token"}},
		"default": {{"/plain", "Bearer default-token"}},
		"flag":    {{"/plain2", ""}},
	}
	for label, w := range want {
		if fmt.Sprint(hits[label]) != fmt.Sprint(w) {
			t.Errorf("%s registry got %v, want %v", label, hits[label], w)
		}
	}
}

func TestPackumentsPool(t *testing.T) {
	var inflight, peak int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cur := atomic.AddInt32(&inflight, 1)
		for {
			p := atomic.LoadInt32(&peak)
			if cur <= p || atomic.CompareAndSwapInt32(&peak, p, cur) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		atomic.AddInt32(&inflight, -1)
		name := strings.TrimPrefix(r.URL.Path, "/")
		if strings.HasPrefix(name, "missing") {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, packumentJSON(name, "1.0.0"))
	}))
	defer srv.Close()
	var names []string
	for i := range 20 {
		names = append(names, fmt.Sprintf("pkg%d", i))
	}
	names = append(names, "missing-a", "pkg0")
	got, err := fastClient(srv.URL).Packuments(context.Background(), names, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 21 {
		t.Errorf("%d entries, want 21 (duplicates merged)", len(got))
	}
	if p, ok := got["missing-a"]; !ok || p != nil {
		t.Errorf("a never-published package must be a nil entry, got %v %v", p, ok)
	}
	if got["pkg7"] == nil || got["pkg7"].Versions["1.0.0"].Version != "1.0.0" {
		t.Errorf("pkg7 = %+v", got["pkg7"])
	}
	if peak > 4 || peak < 2 {
		t.Errorf("peak concurrency %d, want between 2 and 4", peak)
	}
}

func TestPackumentsFailureStopsTheRun(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "bad") {
			w.WriteHeader(502)
			return
		}
		time.Sleep(5 * time.Millisecond)
		fmt.Fprint(w, packumentJSON("x", "1.0.0"))
	}))
	defer srv.Close()
	names := []string{"a", "b", "bad", "c", "d", "e", "f"}
	got, err := fastClient(srv.URL).Packuments(context.Background(), names, 2)
	if err == nil || got != nil {
		t.Fatalf("want an error and no result, got %v, %v", got, err)
	}
	if !strings.Contains(err.Error(), "bad") || !strings.Contains(err.Error(), "502") || exit.Code(err) != exit.Env {
		t.Errorf("err = %v (code %d)", err, exit.Code(err))
	}
}

func TestEscapeAndRedact(t *testing.T) {
	if got := EscapeName("@scope/name"); got != "@scope%2fname" {
		t.Errorf("EscapeName = %q", got)
	}
	if got := Redact("https://user:pw@r.example/npm/?token=x"); got != "https://r.example/npm/" {
		t.Errorf("Redact = %q", got)
	}
	c := &Client{Registry: "ftp://nope"}
	_, err := c.Packument(context.Background(), "x")
	if err == nil || exit.Code(err) != exit.Env {
		t.Errorf("a non-http registry must be an environment error, got %v", err)
	}
}
