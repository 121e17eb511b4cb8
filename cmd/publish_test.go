package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plaios/plaios/internal/exit"
	"github.com/plaios/plaios/internal/publish"
	"github.com/plaios/plaios/internal/publish/publishtest"
	"github.com/plaios/plaios/internal/testenv"
)

// asPlaios makes the test binary run plaios instead of the tests when it is started with this
// variable set: the publish tests run the real command line in a child process they can kill.
const asPlaios = "PLAIOS_CMD_TEST_AS_PLAIOS"

func init() {
	if os.Getenv(asPlaios) == "1" {
		os.Exit(Main(os.Args[1:], System()))
	}
}

func TestPublishFlags(t *testing.T) {
	cases := []struct {
		args  []string
		check func(*testing.T, *PublishOptions)
	}{
		{[]string{"--plan", "plan.json", "--packs", "packs"}, func(t *testing.T, o *PublishOptions) {
			cfg, err := o.Config()
			if err != nil {
				t.Fatal(err)
			}
			if o.Plan != "plan.json" || o.Packs != "packs" || o.Provenance != "auto" || o.Remote != "origin" || o.DryRun || o.JSON || o.Event != "" || o.EventSet || cfg.Registry != "" || cfg.GitHubRepo != "" || !cfg.GitHubReleases {
				t.Errorf("defaults: %+v, config %+v", o, cfg)
			}
		}},
		{[]string{"--plan", "p.json", "--packs", "d", "--registry", "http://127.0.0.1:4873/", "--provenance", "off", "--remote", "upstream", "--github-repo", "acme/packs", "--event", "ev.json", "--dry-run", "--github-releases=false"}, func(t *testing.T, o *PublishOptions) {
			cfg, err := o.Config()
			if err != nil {
				t.Fatal(err)
			}
			if o.Provenance != "off" || o.Remote != "upstream" || o.Event != "ev.json" || !o.EventSet || !o.DryRun || cfg.Registry != "http://127.0.0.1:4873/" || cfg.GitHubRepo != "acme/packs" || cfg.GitHubReleases {
				t.Errorf("flags: %+v, config %+v", o, cfg)
			}
		}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			f, _, _ := guardTestFactory(t)
			var got *PublishOptions
			cmd := NewCmdPublish(f, func(o *PublishOptions) error { got = o; return nil })
			cmd.SetArgs(c.args)
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			c.check(t, got)
		})
	}

	// --json is the global flag; configuration keys come from .plaios.yaml too.
	f, _, _ := guardTestFactory(t)
	dir, _ := f.Dir()
	if err := os.WriteFile(filepath.Join(dir, ".plaios.yaml"), []byte("registry: http://127.0.0.1:5000/\ngithub:\n  repo: acme/from-config\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var got *PublishOptions
	root := NewRootCmd(f)
	for _, c := range root.Commands() {
		if c.Name() == "publish" {
			root.RemoveCommand(c)
		}
	}
	root.AddCommand(NewCmdPublish(f, func(o *PublishOptions) error { got = o; return nil }))
	root.SetArgs([]string{"--json", "publish", "--plan", "p", "--packs", "d"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	cfg, err := got.Config()
	if err != nil {
		t.Fatal(err)
	}
	if !got.JSON || cfg.Registry != "http://127.0.0.1:5000/" || cfg.GitHubRepo != "acme/from-config" {
		t.Errorf("--json %v, config %+v", got.JSON, cfg)
	}
}

func TestPublishFlagMistakes(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--packs", "d"}, "--plan and --packs are required"},
		{[]string{"--plan", "p"}, "--plan and --packs are required"},
		{[]string{"--plan", "p", "--packs", "d", "--provenance", "maybe"}, `--provenance "maybe" is not valid; use one of auto, on, off`},
		{[]string{"--plan", "p", "--packs", "d", "--github-repo", "acme"}, `--github-repo "acme" is not OWNER/NAME`},
		{[]string{"--plan", "p", "--packs", "d", "--remote", ""}, "--remote needs the name of a git remote"},
		{[]string{"--plan", "p", "--packs", "d", "extra"}, "unknown command \"extra\""},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			f, _, _ := guardTestFactory(t)
			cmd := NewCmdPublish(f, func(*PublishOptions) error { t.Fatal("ran"); return nil })
			cmd.SetArgs(c.args)
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			err := cmd.Execute()
			if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v (exit %d), want exit 2 with %q", err, exit.Code(err), c.want)
			}
		})
	}
}

// child is one plaios process.
type child struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
}

func startPlaios(t *testing.T, dir string, env []string, args ...string) *child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: exec.Command(exe, args...)}
	c.cmd.Dir = dir
	c.cmd.Env = append(testenv.ChildEnv(t, env), asPlaios+"=1")
	c.cmd.Stdout, c.cmd.Stderr = &c.stdout, &c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return c
}

// wait returns the exit code.
func (c *child) wait(t *testing.T) int {
	t.Helper()
	err := c.cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatal(err)
	return -1
}

// killWhenPaused waits for the pause hook's file, then SIGKILLs the child.
func (c *child) killWhenPaused(t *testing.T, file string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, err := os.Stat(file); err == nil {
			break
		}
		if time.Now().After(deadline) {
			_ = c.cmd.Process.Kill()
			t.Fatalf("plaios never paused:\n%s\n%s", c.stdout.String(), c.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := c.cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("plaios was not killed: %v", err)
	}
	_ = os.Remove(file)
}

// TestPublishCommand runs the real command line in child processes: a run killed with SIGKILL
// in the middle of the registry step, a run killed between publishing and tagging, then plain
// re-runs that finish the job in JSON and in text with nothing duplicated; a run with a token
// GitHub refuses; and no output of any of them holds a token.
func TestPublishCommand(t *testing.T) {
	testenv.SkipShort(t, "publishes to a Verdaccio with npm")
	reg := testenv.SharedVerdaccio(t)
	gh := testenv.GitHub(t, "acme/packs")
	f := publishtest.New(t, publishtest.Options{Scope: "cli", Chain: true})
	env := append(reg.NPMEnv(), "GITHUB_TOKEN="+gh.Token, "GITHUB_API_URL="+gh.URL, "GITHUB_REPOSITORY=acme/packs")
	args := []string{"publish", "--plan", "plan.json", "--packs", f.Packs, "--registry", reg.URL}
	npmToken := "dummy-test-token" // testenv's npmrc
	var outputs []string
	keep := func(c *child) {
		outputs = append(outputs, c.stdout.String(), c.stderr.String())
	}
	pause := filepath.Join(t.TempDir(), "paused")

	// Killed after the second release reached the registry: nothing is tagged or released.
	c := startPlaios(t, f.Dir, append(env, pauseHook+"=2:"+pause), append([]string{"-v"}, args...)...)
	c.killWhenPaused(t, pause)
	keep(c)
	published := 0
	for _, p := range f.Packages {
		published += len(publishtest.Versions(t, reg.URL, p.Name))
	}
	if published != 2 || len(f.RemoteTags()) != 0 || len(f.LocalTags()) != 0 || len(gh.Releases("acme/packs")) != 0 {
		t.Fatalf("after a kill at the second release: %d published, tags %v, %d releases", published, f.RemoteTags(), len(gh.Releases("acme/packs")))
	}

	// Killed between publishing and tagging: all five are out, none tagged.
	c = startPlaios(t, f.Dir, append(env, pauseHook+"=5:"+pause), args...)
	c.killWhenPaused(t, pause)
	keep(c)
	for _, p := range f.Packages {
		if v := publishtest.Versions(t, reg.URL, p.Name); len(v) != 1 {
			t.Fatalf("%s: %v", p.Name, v)
		}
	}
	if len(f.RemoteTags()) != 0 || len(gh.Releases("acme/packs")) != 0 {
		t.Fatalf("tagged or released before the kill: %v", f.RemoteTags())
	}

	// A plain re-run finishes: JSON events, one per line, each with schemaVersion 1.
	c = startPlaios(t, f.Dir, env, append([]string{"--json"}, args...)...)
	if code := c.wait(t); code != 0 {
		t.Fatalf("re-run exit %d:\n%s\n%s", code, c.stdout.String(), c.stderr.String())
	}
	keep(c)
	var last map[string]any
	kinds := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(c.stdout.String()))
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("not a JSON line: %q", sc.Text())
		}
		if ev["schemaVersion"] != float64(1) {
			t.Errorf("no schemaVersion 1: %s", sc.Text())
		}
		kinds[fmt.Sprint(ev["event"], " ", ev["status"])]++
		last = ev
	}
	if kinds["registry skipped"] != 5 || kinds["tag pushed"] != 5 || kinds["push pushed"] != 1 || kinds["release created"] != 5 {
		t.Errorf("events %v", kinds)
	}
	if last["event"] != "summary" || last["published"] != float64(0) || last["skipped"] != float64(5) || last["failed"] != float64(0) || last["exitCode"] != float64(0) {
		t.Errorf("summary %v", last)
	}
	if c.stderr.Len() != 0 {
		t.Errorf("stderr: %s", c.stderr.String())
	}
	for _, tag := range f.Tags() {
		if f.RemoteTags()[tag] != f.Head {
			t.Errorf("%s not at the head", tag)
		}
	}
	rels := gh.Releases("acme/packs")
	if len(rels) != 5 {
		t.Errorf("%d releases, want 5", len(rels))
	}
	for _, r := range rels {
		if r.Draft || !strings.Contains(deref(r.Body), "Closes #42.") {
			t.Errorf("release %s: draft %v, body %q", r.TagName, r.Draft, deref(r.Body))
		}
	}

	// Once more, in text: everything is skipped and nothing written.
	writes := gh.Count("POST", "") + gh.Count("PATCH", "")
	c = startPlaios(t, f.Dir, env, args...)
	if code := c.wait(t); code != 0 {
		t.Fatalf("second re-run exit %d:\n%s\n%s", code, c.stdout.String(), c.stderr.String())
	}
	keep(c)
	want := ""
	for _, tag := range f.Tags() {
		want += "skipped " + tag + ": already on the registry with the same integrity\n"
	}
	want += "published 0, skipped 5, failed 0\n"
	if c.stdout.String() != want || c.stderr.Len() != 0 {
		t.Errorf("stdout:\n%s\nwant:\n%s\nstderr:\n%s", c.stdout.String(), want, c.stderr.String())
	}
	if gh.Count("POST", "")+gh.Count("PATCH", "") != writes {
		t.Error("the second re-run wrote to GitHub")
	}

	// A token GitHub refuses: exit 3, one sentence, in JSON an error event; no token anywhere.
	bad := "ghp_RecognisableBadToken0123456789abcdefXYZ"
	c = startPlaios(t, f.Dir, append(env, "GITHUB_TOKEN="+bad), append([]string{"--json"}, args...)...)
	if code := c.wait(t); code != exit.Env {
		t.Errorf("bad token: exit %d, want 3", code)
	}
	keep(c)
	if !strings.Contains(c.stderr.String(), "plaios: GitHub (") || !strings.Contains(c.stderr.String(), "refused GITHUB_TOKEN") || !strings.Contains(c.stdout.String(), `"event":"error"`) {
		t.Errorf("bad token:\nstdout %s\nstderr %s", c.stdout.String(), c.stderr.String())
	}

	// A remote URL holding a token, unreachable: the URL is shown without it.
	testenv.Git(t, f.Dir, "remote", "set-url", "origin", "https://x-access-token:"+gh.Token+"@127.0.0.1:9/acme/packs.git")
	c = startPlaios(t, f.Dir, env, append([]string{"-v"}, args...)...)
	if code := c.wait(t); code != exit.Env {
		t.Errorf("unreachable remote: exit %d, want 3\n%s", code, c.stderr.String())
	}
	keep(c)

	for _, out := range outputs {
		for _, secret := range []string{gh.Token, npmToken, bad} {
			if strings.Contains(out, secret) {
				t.Errorf("a token reached the output:\n%s", out)
			}
		}
	}
}

// TestPublishTextOutput checks the text of a run that publishes, and of one that fails.
func TestPublishTextOutput(t *testing.T) {
	testenv.SkipShort(t, "publishes to a Verdaccio with npm")
	reg := testenv.SharedVerdaccio(t)
	gh := testenv.GitHub(t, "acme/packs")
	f := publishtest.New(t, publishtest.Options{Scope: "text", Count: 2})
	env := append(reg.NPMEnv(), "GITHUB_TOKEN="+gh.Token, "GITHUB_API_URL="+gh.URL)
	event := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(event, []byte(`{"action":"closed","pull_request":{"title":"feat: new packs","body":"From the pull request.\r\n\r\n- one\r\n- two"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"publish", "--plan", "plan.json", "--packs", f.Packs, "--registry", reg.URL, "--github-repo", "acme/packs"}

	gh.Inject(testenv.Fault{Method: "POST", Status: 422})
	c := startPlaios(t, f.Dir, append(env, "GITHUB_EVENT_PATH="+event), args...)
	if code := c.wait(t); code != exit.Fail {
		t.Fatalf("exit %d, want 1:\n%s\n%s", code, c.stdout.String(), c.stderr.String())
	}
	head := f.Head[:12]
	t1, t2 := f.Tags()[0], f.Tags()[1]
	rels := gh.Releases("acme/packs")
	if len(rels) != 1 {
		t.Fatalf("%d releases", len(rels))
	}
	// The description comes from the pull_request event, not from the commit.
	if body := deref(rels[0].Body); !strings.Contains(body, "## feat: new packs\n\nFrom the pull request.\n\n- one\n- two\n\n### Changed files\n") || strings.Contains(body, "Closes #42.") {
		t.Errorf("notes: %q", body)
	}
	got := c.stdout.String()
	wantLines := []string{
		"published " + t1, "published " + t2,
		"tagged " + t1 + " at " + head, "tagged " + t2 + " at " + head, "pushed 2 tags to origin",
		"released " + t2 + ": " + rels[0].HTMLURL,
		t1 + ": the GitHub release was not written: GitHub (" + strings.TrimSuffix(gh.URL, "/") + ") would not create the release " + t1 + " (HTTP 422 Server Error)",
		"published 1, skipped 0, failed 1",
	}
	if got != strings.Join(wantLines, "\n")+"\n" {
		t.Errorf("stdout:\n%s\nwant:\n%s", got, strings.Join(wantLines, "\n"))
	}
	if !strings.HasPrefix(c.stderr.String(), "plaios: 1 of 2 releases failed; fix what each reason says and run plaios publish again") {
		t.Errorf("stderr: %s", c.stderr.String())
	}

	c = startPlaios(t, f.Dir, env, args...)
	if code := c.wait(t); code != 0 {
		t.Fatalf("re-run exit %d:\n%s\n%s", code, c.stdout.String(), c.stderr.String())
	}
	rels = gh.Releases("acme/packs")
	if len(rels) != 2 || !strings.Contains(c.stdout.String(), "released "+t1+": ") || !strings.HasSuffix(c.stdout.String(), "published 0, skipped 2, failed 0\n") {
		t.Errorf("re-run: %d releases\n%s", len(rels), c.stdout.String())
	}
}

func TestPublishRenderer(t *testing.T) {
	var out, errOut bytes.Buffer
	streams := &IOStreams{Out: &out, ErrOut: &errOut, ErrTTY: true}
	r := &publishRenderer{io: streams, bar: streams.Progress()}
	r.progress(publish.Progress{Step: "registry", Done: 1, Total: 5, Tag: "@a/b@1.0.0"})
	r.event(publish.Event{Event: "registry", Status: publish.StatusPublished, Tag: "@a/b@1.0.0"})
	r.event(publish.Event{Event: "warning", Message: "the registry does not list @a/b@1.0.0 yet"})
	r.progress(publish.Progress{Step: "release", Done: 0, Total: 5, Tag: "@a/b@1.0.0"})
	r.clear()
	if out.String() != "published @a/b@1.0.0\n" {
		t.Errorf("stdout %q", out.String())
	}
	want := "\r\033[Kpublish: publishing 1/5 @a/b@1.0.0\r\033[K" + "warning: the registry does not list @a/b@1.0.0 yet\n" +
		"\r\033[Kpublish: writing GitHub releases 0/5 @a/b@1.0.0\r\033[K"
	if errOut.String() != want {
		t.Errorf("stderr %q\nwant   %q", errOut.String(), want)
	}

	// Quiet: only failures and the summary; not a terminal: no progress.
	out.Reset()
	errOut.Reset()
	streams = &IOStreams{Out: &out, ErrOut: &errOut, Quiet: true, ErrTTY: true}
	r = &publishRenderer{io: streams, bar: streams.Progress()}
	r.progress(publish.Progress{Step: "registry", Done: 1, Total: 5})
	r.event(publish.Event{Event: "registry", Status: publish.StatusPublished, Tag: "@a/b@1.0.0"})
	r.summary(&publish.Result{})
	if out.String() != "published 0, skipped 0, failed 0\n" || errOut.Len() != 0 {
		t.Errorf("quiet: stdout %q, stderr %q", out.String(), errOut.String())
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
