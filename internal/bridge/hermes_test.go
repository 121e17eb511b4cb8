package bridge

import (
	"strings"
	"testing"
)

var testServer = HermesServer{
	Name:    "weather",
	Command: "/usr/local/bin/plaios",
	Args:    []string{"mcp", "serve", "/home/me/packs/weather"},
	Env:     []string{"WEATHER_API_KEY"},
	Timeout: 120,
	Include: []string{"weather_now", "weather.soon"},
}

const wantEntry = `  weather:
    command: /usr/local/bin/plaios
    args:
      - mcp
      - serve
      - /home/me/packs/weather
    env:
      WEATHER_API_KEY: "${WEATHER_API_KEY}"
    timeout: 120
    tools:
      include:
        - weather_now
        - weather.soon
      resources: false
      prompts: false
`

func TestHermesFragment(t *testing.T) {
	got, err := testServer.Fragment()
	if err != nil {
		t.Fatal(err)
	}
	if want := "mcp_servers:\n" + wantEntry; string(got) != want {
		t.Errorf("fragment:\n%s\nwant:\n%s", got, want)
	}
	if n := HermesToolName("my-pack", "weather.now"); n != "mcp__my_pack__weather_now" {
		t.Errorf("Hermes tool name %q", n)
	}
	if err := CheckHermesNames("s", []string{"a.b", "a-c", "a_b"}); err == nil || !strings.Contains(err.Error(), `"a.b" and "a_b" would both register in Hermes as mcp__s__a_b`) {
		t.Errorf("colliding names: %v", err)
	}
	if n := DefaultServerName("@framers/agentos-ext-web.search"); n != "agentos-ext-web_search" {
		t.Errorf("default server name %q", n)
	}
}

// TestHermesMerge: the server is added or replaced; everything else in the file, comments
// and layout included, stays byte for byte.
func TestHermesMerge(t *testing.T) {
	const head = `# Hermes configuration
model:
    default: claude   # keep this comment
    providers: [anthropic, "openai"]

mcp_servers:
  # the filesystem server
  filesystem:
    command: npx
    args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]
`
	const oldWeather = `  weather:
    command: node   # an old entry
    args: [old.js]

`
	const tail = `  # github comes last
  github:
    command: gh-mcp
    enabled: false

# after the servers
terminal:
  backend: local
`
	cases := []struct {
		name     string
		in, want string
		replaced bool
	}{
		{"replace in the middle", head + oldWeather + tail, head + wantEntry + "\n" + tail, true},
		{"add at the end of the servers", head + tail, head + strings.Replace(tail, "\n# after", wantEntry+"\n# after", 1), false},
		{"no mcp_servers yet", "model:\n  default: x\n# end\n", "model:\n  default: x\nmcp_servers:\n" + wantEntry + "# end\n", false},
		{"an empty file", "", "mcp_servers:\n" + wantEntry, false},
		{"only comments", "# nothing\n", "# nothing\nmcp_servers:\n" + wantEntry, false},
		{"mcp_servers: {}", "a: 1\nmcp_servers: {}\nb: 2\n", "a: 1\nmcp_servers:\n" + wantEntry + "b: 2\n", false},
		{"mcp_servers with no value", "mcp_servers:\n# nothing yet\n", "mcp_servers:\n" + wantEntry + "# nothing yet\n", false},
		{"four-space indentation", "mcp_servers:\n    weather:\n        command: x\n    other:\n        command: y\n", "mcp_servers:\n" + indentBy(wantEntry, 2) + "    other:\n        command: y\n", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, replaced, err := testServer.Merge([]byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want || replaced != c.replaced {
				t.Errorf("merged (replaced %v):\n%s\nwant (replaced %v):\n%s", replaced, got, c.replaced, c.want)
			}
			// Merging again changes nothing.
			again, replaced, err := testServer.Merge(got)
			if err != nil || string(again) != string(got) || !replaced {
				t.Errorf("a second merge changed the file or failed (%v):\n%s", err, again)
			}
		})
	}
	for _, bad := range []string{"[1, 2]\n", "mcp_servers: {a: {command: x}}\n", "mcp_servers: [x]\n", "a: [\n"} {
		if _, _, err := testServer.Merge([]byte(bad)); err == nil {
			t.Errorf("merged into %q", bad)
		}
	}
}

func indentBy(s string, n int) string {
	pad := strings.Repeat(" ", n)
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		out = append(out, pad+l)
	}
	return strings.Join(out, "\n") + "\n"
}
