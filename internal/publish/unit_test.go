package publish

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestClassifyNPM(t *testing.T) {
	cases := []struct {
		name   string
		stdout string
		stderr string
		kind   npmKind
		code   string
		reason string
	}{
		{"npm 11's own check", `{"error":{"summary":"You cannot publish over the previously published versions: 1.0.0.","detail":""}}`, "", npmConflict, "", "You cannot publish over the previously published versions: 1.0.0."},
		{"verdaccio's 409", `{"error":{"code":"E409","summary":"409 Conflict - PUT http://127.0.0.1:4873/@a%2fb - this package is already present","detail":""}}`, "", npmConflict, "E409", "409 Conflict"},
		{"npmjs's 403", `{"error":{"code":"E403","summary":"403 Forbidden - PUT https://registry.npmjs.org/x - You cannot publish over the previously published versions: 1.0.0.","detail":""}}`, "", npmConflict, "E403", "403 Forbidden"},
		{"a refused connection", `{"error":{"code":"ECONNREFUSED","summary":"FetchError: request to http://127.0.0.1:9/x failed, reason: connect ECONNREFUSED 127.0.0.1:9","detail":"proxy"}}`, "", npmTransient, "ECONNREFUSED", "FetchError"},
		{"a 502", `{"error":{"code":"E502","summary":"502 Bad Gateway - PUT https://r/x","detail":""}}`, "", npmTransient, "E502", "502 Bad Gateway"},
		{"a 429", `{"error":{"code":"E429","summary":"429 Too Many Requests","detail":""}}`, "", npmTransient, "E429", "429"},
		{"no credentials", `{"error":{"code":"ENEEDAUTH","summary":"This command requires you to be logged in to http://r/","detail":"You need to authorize this machine using npm adduser"}}`, "", npmAuth, "ENEEDAUTH", "requires you to be logged in"},
		{"a bad token", `{"error":{"code":"E401","summary":"401 Unauthorized","detail":""}}`, "", npmAuth, "E401", "401"},
		{"no access to the scope", `{"error":{"code":"E404","summary":"404 Not Found - PUT https://registry.npmjs.org/@acme%2fx - Not found","detail":""}}`, "", npmFailed, "E404", "404 Not Found"},
		{"no JSON: stderr lines", "", "npm error code ECONNRESET\nnpm error network aborted\nnpm error A complete log of this run can be found in: /x.log\n", npmTransient, "ECONNRESET", "network aborted"},
		{"nothing said", "", "", npmFailed, "", "npm publish failed without saying why"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := classifyNPM([]byte(c.stdout), c.stderr)
			if got.kind != c.kind || got.code != c.code || !strings.Contains(got.reason, c.reason) {
				t.Errorf("got %+v, want kind %d code %q reason containing %q", got, c.kind, c.code, c.reason)
			}
			if strings.Contains(got.reason, "complete log") {
				t.Errorf("the log line reached the reason: %q", got.reason)
			}
		})
	}
}

func TestNPMIntegrity(t *testing.T) {
	npm11 := `{"@a/b": {"id": "@a/b@1.0.0", "integrity": "sha512-xyz=="}}`
	npm10 := `{"id": "@a/b@1.0.0", "integrity": "sha512-abc=="}`
	if got := npmIntegrity([]byte(npm11), "@a/b"); got != "sha512-xyz==" {
		t.Errorf("npm 11: %q", got)
	}
	if got := npmIntegrity([]byte(npm10), "@a/b"); got != "sha512-abc==" {
		t.Errorf("npm 10: %q", got)
	}
	if got := npmIntegrity([]byte("+ @a/b@1.0.0"), "@a/b"); got != "" {
		t.Errorf("text: %q", got)
	}
}

func TestDistTag(t *testing.T) {
	for v, want := range map[string]string{
		"1.0.0": "", "2.0.0-beta.1": "beta", "2.0.0-rc.3": "rc", "1.0.0-0": "next", "1.0.0-x.1": "next",
		"1.0.0-latest": "next", "1.0.0-Alpha": "alpha", "3.0.0-canary-2024": "canary-2024", "not a version": "",
	} {
		if got := distTag(v); got != want {
			t.Errorf("distTag(%q) = %q, want %q", v, got, want)
		}
	}
}

func TestNPMArgs(t *testing.T) {
	env := map[string]string{}
	r := &run{opts: Options{Provenance: ProvenanceAuto}, getenv: func(k string) string { return env[k] }}
	o := &Outcome{Name: "@a/b", Version: "2.0.0-beta.1", tarball: "/p/a-b-2.0.0-beta.1.tgz"}
	args := r.npmArgs(o, "https://registry.npmjs.org/")
	want := []string{"publish", "/p/a-b-2.0.0-beta.1.tgz", "--access", "public", "--registry", "https://registry.npmjs.org/", "--json", "--fetch-retries=0", "--ignore-scripts", "--foreground-scripts=false", "--dry-run=false", "--tag", "beta"}
	if !slices.Equal(args, want) {
		t.Errorf("args %q\nwant %q", args, want)
	}
	// A package naming its dist-tag keeps it.
	tagged := &Outcome{Name: "@a/b", Version: "2.0.0-beta.1", tarball: "/p/t.tgz", configTag: "canary"}
	if args := r.npmArgs(tagged, "r"); slices.Contains(args, "--tag") {
		t.Errorf("publishConfig.tag overridden: %q", args)
	}
	// auto: only in GitHub Actions with an OIDC token.
	env["GITHUB_ACTIONS"] = "true"
	if r.provenance() {
		t.Error("provenance without an OIDC token")
	}
	env["ACTIONS_ID_TOKEN_REQUEST_URL"], env["ACTIONS_ID_TOKEN_REQUEST_TOKEN"] = "https://token.actions/x", "oidc-request-token"
	if !r.provenance() || !slices.Contains(r.npmArgs(o, "r"), "--provenance") {
		t.Error("no provenance in GitHub Actions with an OIDC token")
	}
	r.opts.Provenance = ProvenanceOff
	if r.provenance() {
		t.Error("--provenance off")
	}
	r.opts.Provenance = ProvenanceOn
	env = map[string]string{}
	if !r.provenance() {
		t.Error("--provenance on")
	}
}

func TestSameIntegrity(t *testing.T) {
	a := "sha512-AAAA=="
	if !sameIntegrity(a, "sha1-xx sha512-AAAA==") || !sameIntegrity(a, "sha512-AAAA==?opt") || sameIntegrity(a, "sha512-BBBB==") || sameIntegrity("", "") || sameIntegrity("sha1-x", "sha1-x") {
		t.Error("sameIntegrity")
	}
}

func TestRepoFromRemote(t *testing.T) {
	for remote, want := range map[string]string{
		"https://github.com/acme/packs.git":                     "acme/packs",
		"https://github.com/acme/packs":                         "acme/packs",
		"https://x-access-token:ghs_abc@github.com/acme/packs/": "acme/packs",
		"git@github.com:acme/packs.git":                         "acme/packs",
		"ssh://git@github.example.com:2222/acme/my.packs.git":   "acme/my.packs",
		"/home/me/remote.git":                                   "",
		"../remote.git":                                         "",
		"file:///srv/git/acme/packs.git":                        "",
		"C:/repos/acme/packs":                                   "",
		"https://gitlab.com/group/sub/packs.git":                "",
		"https://github.com/acme":                               "",
	} {
		got, ok := RepoFromRemote(remote)
		if got != want || ok != (want != "") {
			t.Errorf("RepoFromRemote(%q) = %q, %v; want %q", remote, got, ok, want)
		}
	}
}

func TestRedactor(t *testing.T) {
	env := map[string]string{"GITHUB_TOKEN": "ghs_0123456789abcdefghijklmnopqrstuvwxyzAB", "NODE_AUTH_TOKEN": "plain-secret-value"}
	r := NewRedactor(func(k string) string { return env[k] })
	r.AddEnviron([]string{"MY_DEPLOY_TOKEN=deploy-secret-42", "PATH=/usr/bin", "SHORT_TOKEN=abc"})
	r.AddHeader("Basic " + "dXNlcjpodW50ZXIyLXBhc3N3b3Jk") // user:hunter2-password
	in := strings.Join([]string{
		"token ghs_0123456789abcdefghijklmnopqrstuvwxyzAB in an error",
		"npm said plain-secret-value and deploy-secret-42",
		"//registry.example.com/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789",
		"a fresh npm_ZYXWVUTSRQPONMLKJIHGFEDCBA9876543210 token",
		"a classic ghp_abcdefghijklmnopqrstuvwxyz0123456789 token and github_pat_11AAAAAAA0aaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbb",
		"To https://x-access-token:s3cr3t@github.com/acme/packs.git",
		"Authorization: Bearer abc.def.ghi",
		"hunter2-password and dXNlcjpodW50ZXIyLXBhc3N3b3Jk",
		"GET https://api.example.com/x?access_token=querysecret&page=2",
	}, "\n")
	out := r.Redact(in)
	for _, secret := range []string{"ghs_0123456789", "plain-secret-value", "deploy-secret-42", "npm_abcdef", "npm_ZYXW", "ghp_abc", "github_pat_11", "s3cr3t", "abc.def.ghi", "hunter2-password", "dXNlcjpodW50", "querysecret"} {
		if strings.Contains(out, secret) {
			t.Errorf("%q survived:\n%s", secret, out)
		}
	}
	for _, kept := range []string{"in an error", "https://***@github.com/acme/packs.git", "page=2", "//registry.example.com/:_authToken=***"} {
		if !strings.Contains(out, kept) {
			t.Errorf("%q was lost:\n%s", kept, out)
		}
	}
	if r.Redact("set GITHUB_TOKEN: a word") != "set GITHUB_TOKEN: a word" {
		t.Error("ordinary text changed")
	}
}

func TestParseLsRemote(t *testing.T) {
	out := "aaa\trefs/tags/@a/b@1.0.0\nbbb\trefs/tags/c@2.0.0\nccc\trefs/tags/c@2.0.0^{}\nddd\trefs/heads/main\n"
	got := parseLsRemote(out)
	if len(got) != 2 || got["@a/b@1.0.0"] != "aaa" || got["c@2.0.0"] != "ccc" {
		t.Errorf("%v", got)
	}
}

func TestGitReasonAndTransience(t *testing.T) {
	rejected := "remote: tags are frozen\nTo /tmp/remote.git\n ! [remote rejected] a@1.0.0 -> a@1.0.0 (pre-receive hook declined)\nerror: failed to push some refs to '/tmp/remote.git'\n"
	if got := gitReason(rejected); !strings.Contains(got, "tags are frozen") || !strings.Contains(got, "pre-receive hook declined") || strings.Contains(got, "To /tmp") {
		t.Errorf("gitReason: %q", got)
	}
	if isTransientGit(&gitFailure{stderr: rejected}) {
		t.Error("a rejection is not transient")
	}
	for _, s := range []string{
		"fatal: unable to access 'https://github.com/a/b/': The requested URL returned error: 502",
		"error: RPC failed; curl 56 GnuTLS recv error (-54): Error in the pull function.",
		"fatal: unable to access 'https://github.com/a/b/': Failed to connect to github.com port 443: Connection timed out",
		"ssh: connect to host github.com port 22: Connection reset by peer",
	} {
		if !isTransientGit(&gitFailure{stderr: s}) {
			t.Errorf("not transient: %q", s)
		}
	}
	if isTransientGit(errors.New("connection reset")) {
		t.Error("only git failures are judged")
	}
}

func TestReleaseNotes(t *testing.T) {
	got := ReleaseNotes("feat: weather", "Adds a forecast.\r\n\r\nCloses #7.\n", []string{"packages/w/b.js", "packages/w/a`x.js"})
	want := "## feat: weather\n\nAdds a forecast.\n\nCloses #7.\n\n### Changed files\n\n- `packages/w/a'x.js`\n- `packages/w/b.js`\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	var many []string
	for i := range maxNoteFiles + 5 {
		many = append(many, strings.Repeat("f", 3)+string(rune('a'+i%26))+strings.Repeat("x", i/26))
	}
	if got := ReleaseNotes("", "", many); !strings.HasSuffix(got, "- … and 5 more\n") || !strings.HasPrefix(got, "### Changed files\n") {
		t.Errorf("long list: ...%s", got[len(got)-40:])
	}
}
