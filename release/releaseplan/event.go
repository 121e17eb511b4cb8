package releaseplan

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/plaios/plaios/internal/exit"
)

// Event is what a GitHub pull_request event payload says about the pull request.
type Event struct {
	Title, Body string
	Number      int
}

// EventSource names the event payload a command reads: --event when given (File, FileSet),
// else the file GITHUB_EVENT_PATH names (Getenv; nil reads none).
type EventSource struct {
	File    string
	FileSet bool
	Getenv  func(string) string
}

// Read reads the event payload relative to dir. ok is false when there is none or it is not
// about a pull request (a push event). A file that cannot be read or is not JSON is a usage
// mistake when --event named it (exit 2) and the environment's when GITHUB_EVENT_PATH did
// (exit 3).
func (s EventSource) Read(dir string) (ev Event, ok bool, err error) {
	path, fromEnv := s.File, false
	if !s.FileSet && path == "" && s.Getenv != nil {
		path, fromEnv = s.Getenv("GITHUB_EVENT_PATH"), true
	}
	if path == "" {
		return Event{}, false, nil
	}
	ev, ok, err = ReadEvent(dir, path)
	if err != nil {
		if fromEnv {
			return ev, false, exit.Envf("GITHUB_EVENT_PATH %s: %v", path, err)
		}
		return ev, false, exit.Usagef("--event %s: %v", path, err)
	}
	return ev, ok, nil
}

// ReadEvent reads a GitHub event payload (file relative to dir); ok is false when it is not
// about a pull request. Its errors say what is wrong with the file, to follow its name.
func ReadEvent(dir, file string) (ev Event, ok bool, err error) {
	if !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return Event{}, false, fmt.Errorf("cannot be read (%v)", unwrapPath(err))
	}
	var payload struct {
		PullRequest *struct {
			Title  *string `json:"title"`
			Body   *string `json:"body"`
			Number int     `json:"number"`
		} `json:"pull_request"`
	}
	if err := json.Unmarshal(data, &payload); err != nil {
		return Event{}, false, fmt.Errorf("is not a GitHub event payload (not JSON: %v)", err)
	}
	pr := payload.PullRequest
	if pr == nil || pr.Title == nil {
		return Event{}, false, nil
	}
	ev = Event{Title: *pr.Title, Number: pr.Number}
	if pr.Body != nil {
		ev.Body = *pr.Body
	}
	return ev, true, nil
}

// Description is where the pull request's title and description come from, as the command
// line gives them: --title and --body (or --body-file, - for stdin), then the pull_request
// event, then (TitleSet false in the result) the head commit's message.
type Description struct {
	Title, Body       string
	TitleSet, BodySet bool
	BodyFile          string
	Stdin             io.Reader // read for BodyFile "-"
	Event             EventSource
}

// Resolve gives Options its Title, Body, TitleSet and Number, reading files relative to dir.
func (d Description) Resolve(dir string) (Options, error) {
	if d.BodyFile != "" {
		var data []byte
		var err error
		if d.BodyFile == "-" {
			data, err = io.ReadAll(d.Stdin)
		} else {
			p := d.BodyFile
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			data, err = os.ReadFile(p)
		}
		if err != nil {
			return Options{}, exit.Usagef("--body-file %s cannot be read: %v", d.BodyFile, unwrapPath(err))
		}
		d.Body, d.BodySet = string(data), true
	}
	ev, evOK, err := d.Event.Read(dir)
	if err != nil {
		return Options{}, err
	}
	o := Options{Number: ev.Number}
	switch {
	case d.TitleSet:
		o.Title, o.TitleSet = d.Title, true
		if d.BodySet {
			o.Body = d.Body
		} else if evOK {
			o.Body = ev.Body
		}
	case evOK:
		o.Title, o.Body, o.TitleSet = ev.Title, ev.Body, true
		if d.BodySet {
			o.Body = d.Body
		}
	case d.BodySet:
		// A description without a title: the title still comes from the commit.
		o.Body = d.Body
	}
	return o, nil
}

// unwrapPath drops the operation and path of a file error: the message names the file already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
