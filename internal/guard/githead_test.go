package guard

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/testenv"
)

// TestStampGitHeadWithNPM packs a package from a git checkout with the real npm (which leaves
// gitHead out of the tarball), stamps the tarball, publishes it with `npm publish <tarball>` to
// a real Verdaccio, and reads the packument: the version's gitHead is the checkout's head, as
// when npm publishes from the checkout itself; every other file is unchanged.
func TestStampGitHeadWithNPM(t *testing.T) {
	testenv.SkipShort(t, "packs and publishes with npm to Verdaccio")
	reg := testenv.Verdaccio(t)
	dir := t.TempDir()
	testenv.GitInit(t, dir)
	pj := "{\n  \"name\": \"@stamp/pack\",\n  \"version\": \"0.1.0\",\n  \"main\": \"index.js\"\n}\n"
	testenv.WriteFiles(t, dir, map[string]string{"package.json": pj, "index.js": "export const x = 1;\n"})
	testenv.Git(t, dir, "add", "-A")
	testenv.Git(t, dir, "commit", "-q", "-m", "init")
	head := testenv.Git(t, dir, "rev-parse", "HEAD")

	env := append(reg.NPMEnv(), "TMPDIR="+t.TempDir())
	testenv.Run(t, dir, env, "npm", "pack", "--foreground-scripts=false")
	file := filepath.Join(dir, "stamp-pack-0.1.0.tgz")
	before := testenv.TarballFiles(t, file)
	if strings.Contains(before["package/package.json"], "gitHead") {
		t.Fatalf("npm pack put gitHead into the tarball itself: %s", before["package/package.json"])
	}
	if err := StampGitHead(file, head); err != nil {
		t.Fatal(err)
	}
	after := testenv.TarballFiles(t, file)
	want := "{\n  \"name\": \"@stamp/pack\",\n  \"version\": \"0.1.0\",\n  \"main\": \"index.js\",\n  \"gitHead\": \"" + head + "\"\n}\n"
	if after["package/package.json"] != want {
		t.Errorf("stamped package.json:\n%s\nwant\n%s", after["package/package.json"], want)
	}
	if len(after) != len(before) || after["package/index.js"] != before["package/index.js"] {
		t.Errorf("entries changed: %v → %v", before, after)
	}
	// Stamping again replaces the value instead of adding a second member.
	if err := StampGitHead(file, head); err != nil || testenv.TarballFiles(t, file)["package/package.json"] != want {
		t.Errorf("a second stamp changed the file (%v)", err)
	}

	testenv.Run(t, dir, env, "npm", "publish", file, "--registry", reg.URL, "--ignore-scripts")
	resp, err := http.Get(reg.URL + "@stamp%2fpack")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		Versions map[string]struct {
			GitHead string `json:"gitHead"`
		} `json:"versions"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if got := doc.Versions["0.1.0"].GitHead; got != head {
		t.Errorf("the packument's gitHead = %q, want the head %s", got, head)
	}
}

func TestWithGitHead(t *testing.T) {
	const h = "0123456789abcdef0123456789abcdef01234567"
	for _, c := range []struct{ in, want string }{
		{`{"name":"a"}`, `{"name":"a","gitHead":"` + h + `"}`},
		{`{}`, `{"gitHead":"` + h + `"}`},
		{"{\r\n\t\"name\": \"a\"\r\n}\r\n", "{\r\n\t\"name\": \"a\",\r\n\t\"gitHead\": \"" + h + "\"\r\n}\r\n"},
		{`{"gitHead": "old", "name": "a"}`, `{"gitHead": "` + h + `", "name": "a"}`},
	} {
		got, err := withGitHead([]byte(c.in), h)
		if err != nil || string(got) != c.want {
			t.Errorf("withGitHead(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if _, err := withGitHead([]byte(`[1]`), h); err == nil {
		t.Error("an array package.json must be an error")
	}
	for name, want := range map[string]bool{"package/package.json": true, "package/lib/package.json": false, "package.json": false, "other/package.json": true} {
		if isRootPackageJSON(name) != want {
			t.Errorf("isRootPackageJSON(%q) != %v", name, want)
		}
	}
}
