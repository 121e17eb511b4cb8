package releaseplan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plaios/plaios/internal/exit"
)

// TestDescriptionSources checks where the title and description come from: flags, then the
// pull_request event (--event, else GITHUB_EVENT_PATH), then the head commit; and the exit
// code of a file that cannot be read (2 for a flag's, 3 for GITHUB_EVENT_PATH's).
func TestDescriptionSources(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	event := write("event.json", `{"action":"closed","pull_request":{"title":"feat!: from the event","body":"event body","number":42}}`)
	push := write("push.json", `{"ref":"refs/heads/main","head_commit":{"message":"x"}}`)
	notJSON := write("broken.json", `{"pull_request":`)
	write("body.md", "BREAKING CHANGE: from a file")
	cases := []struct {
		name        string
		d           Description
		env         map[string]string
		title, body string
		titleSet    bool
		number      int
		code        int
	}{
		{"nothing: the commit", Description{}, nil, "", "", false, 0, 0},
		{"flags", Description{Title: "fix: t", TitleSet: true, Body: "b", BodySet: true}, nil, "fix: t", "b", true, 0, 0},
		{"event from GITHUB_EVENT_PATH", Description{}, map[string]string{"GITHUB_EVENT_PATH": event}, "feat!: from the event", "event body", true, 42, 0},
		{"title flag over the event, event body kept", Description{Title: "fix: flag", TitleSet: true}, map[string]string{"GITHUB_EVENT_PATH": event}, "fix: flag", "event body", true, 42, 0},
		{"body flag over the event", Description{Body: "mine", BodySet: true}, map[string]string{"GITHUB_EVENT_PATH": event}, "feat!: from the event", "mine", true, 42, 0},
		{"a body without a title: the title from the commit", Description{Body: "mine", BodySet: true}, nil, "", "mine", false, 0, 0},
		{"explicit --event", Description{Event: EventSource{File: event, FileSet: true}}, nil, "feat!: from the event", "event body", true, 42, 0},
		{"--event, relative to the folder", Description{Event: EventSource{File: "event.json", FileSet: true}}, nil, "feat!: from the event", "event body", true, 42, 0},
		{"--event given empty skips GITHUB_EVENT_PATH", Description{Event: EventSource{FileSet: true}}, map[string]string{"GITHUB_EVENT_PATH": event}, "", "", false, 0, 0},
		{"a push event falls back to the commit", Description{Event: EventSource{File: push, FileSet: true}}, nil, "", "", false, 0, 0},
		{"body file", Description{Title: "feat: x", TitleSet: true, BodyFile: "body.md"}, nil, "feat: x", "BREAKING CHANGE: from a file", true, 0, 0},
		{"body from stdin", Description{Title: "feat: x", TitleSet: true, BodyFile: "-", Stdin: strings.NewReader("from stdin")}, nil, "feat: x", "from stdin", true, 0, 0},
		{"missing --event file", Description{Event: EventSource{File: filepath.Join(dir, "nope.json"), FileSet: true}}, nil, "", "", false, 0, exit.Usage},
		{"--event not JSON", Description{Event: EventSource{File: notJSON, FileSet: true}}, nil, "", "", false, 0, exit.Usage},
		{"missing GITHUB_EVENT_PATH file", Description{}, map[string]string{"GITHUB_EVENT_PATH": filepath.Join(dir, "nope.json")}, "", "", false, 0, exit.Env},
		{"missing --body-file", Description{BodyFile: "nope.md"}, nil, "", "", false, 0, exit.Usage},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.d.Event.Getenv = func(k string) string { return tc.env[k] }
			o, err := tc.d.Resolve(dir)
			if exit.Code(err) != tc.code {
				t.Fatalf("code %d (%v), want %d", exit.Code(err), err, tc.code)
			}
			if err != nil {
				return
			}
			if o.Title != tc.title || o.Body != tc.body || o.TitleSet != tc.titleSet || o.Number != tc.number {
				t.Errorf("got %q / %q / %v / #%d, want %q / %q / %v / #%d", o.Title, o.Body, o.TitleSet, o.Number, tc.title, tc.body, tc.titleSet, tc.number)
			}
		})
	}
}

// TestEventErrorsNameTheSource: an unreadable event names the flag or the variable that gave
// it, and what is wrong with the file, in one sentence.
func TestEventErrorsNameTheSource(t *testing.T) {
	dir := t.TempDir()
	_, _, err := EventSource{File: "gone.json", FileSet: true}.Read(dir)
	if err == nil || err.Error() != "--event gone.json: cannot be read (no such file or directory)" {
		t.Errorf("--event: %v", err)
	}
	_, _, err = EventSource{Getenv: func(string) string { return "/nowhere/e.json" }}.Read(dir)
	if err == nil || err.Error() != "GITHUB_EVENT_PATH /nowhere/e.json: cannot be read (no such file or directory)" {
		t.Errorf("GITHUB_EVENT_PATH: %v", err)
	}
}
