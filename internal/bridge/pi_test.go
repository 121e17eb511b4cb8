package bridge

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/plaios/plaios/internal/pack"
)

// TestPiPackage: export pi changes only the bytes of the Pi fields, in the layout the file
// already has, and a second run changes nothing.
func TestPiPackage(t *testing.T) {
	cases := []struct {
		name, in, want string
		changes        int
	}{
		{
			name:    "nothing yet, four spaces",
			in:      "{\n    \"name\": \"@x/pi-a\",\n    \"main\": \"dist/index.js\",\n    \"keywords\": [\"a\"]\n}\n",
			want:    "{\n    \"name\": \"@x/pi-a\",\n    \"main\": \"dist/index.js\",\n    \"keywords\": [\"a\", \"pi-package\"],\n    \"pi\": {\n        \"extensions\": [\n            \"./dist/index.js\"\n        ]\n    },\n    \"peerDependencies\": {\n        \"@earendil-works/pi-coding-agent\": \"*\",\n        \"@earendil-works/pi-ai\": \"*\",\n        \"@earendil-works/pi-agent-core\": \"*\",\n        \"@earendil-works/pi-tui\": \"*\",\n        \"typebox\": \"*\"\n    }\n}\n",
			changes: 3,
		},
		{
			name:    "some peers, multi-line keywords, tabs, an existing pi field",
			in:      "{\n\t\"name\": \"@x/pi-b\",\n\t\"keywords\": [\n\t\t\"b\"\n\t],\n\t\"pi\": {\"extensions\": [\"./lib/main.js\"]},\n\t\"peerDependencies\": {\n\t\t\"typebox\": \"^1.0.0\",\n\t\t\"@earendil-works/pi-ai\": \"*\"\n\t}\n}\n",
			want:    "{\n\t\"name\": \"@x/pi-b\",\n\t\"keywords\": [\n\t\t\"b\",\n\t\t\"pi-package\"\n\t],\n\t\"pi\": {\"extensions\": [\"./lib/main.js\"]},\n\t\"peerDependencies\": {\n\t\t\"typebox\": \"*\",\n\t\t\"@earendil-works/pi-ai\": \"*\",\n\t\t\"@earendil-works/pi-coding-agent\": \"*\",\n\t\t\"@earendil-works/pi-agent-core\": \"*\",\n\t\t\"@earendil-works/pi-tui\": \"*\"\n\t}\n}\n",
			changes: 5,
		},
		{
			name:    "empty objects and arrays, CRLF",
			in:      "{\r\n  \"name\": \"@x/pi-c\",\r\n  \"exports\": {\".\": {\"import\": \"./out/x.js\"}},\r\n  \"keywords\": [],\r\n  \"peerDependencies\": {}\r\n}\r\n",
			want:    "{\r\n  \"name\": \"@x/pi-c\",\r\n  \"exports\": {\".\": {\"import\": \"./out/x.js\"}},\r\n  \"keywords\": [\"pi-package\"],\r\n  \"peerDependencies\": {\r\n    \"@earendil-works/pi-coding-agent\": \"*\",\r\n    \"@earendil-works/pi-ai\": \"*\",\r\n    \"@earendil-works/pi-agent-core\": \"*\",\r\n    \"@earendil-works/pi-tui\": \"*\",\r\n    \"typebox\": \"*\"\r\n  },\r\n  \"pi\": {\r\n    \"extensions\": [\r\n      \"./out/x.js\"\r\n    ]\r\n  }\r\n}\r\n",
			changes: 3,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(c.in), 0o644); err != nil {
				t.Fatal(err)
			}
			p, err := Open(dir, pack.Pi, nil)
			if err != nil {
				t.Fatal(err)
			}
			r, err := PiPackage(p, PiEntry(p))
			if err != nil {
				t.Fatal(err)
			}
			if string(r.New) != c.want || len(r.Changes) != c.changes {
				t.Errorf("got (%d changes: %q):\n%s\nwant:\n%s", len(r.Changes), r.Changes, r.New, c.want)
			}
			if err := os.WriteFile(filepath.Join(dir, "package.json"), r.New, 0o644); err != nil {
				t.Fatal(err)
			}
			p, _ = Open(dir, pack.Pi, nil)
			again, err := PiPackage(p, PiEntry(p))
			if err != nil || again.Changed() {
				t.Errorf("a second run changes %q (%v)", again.Changes, err)
			}
		})
	}
}
