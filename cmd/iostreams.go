package cmd

import (
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams are the standard streams of one run, with what is known about them. Commands
// write through them so that tests can capture output and pretend to be a terminal.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	OutTTY bool // stdout is a terminal
	ErrTTY bool // stderr is a terminal

	// Set by the root command from --no-color, NO_COLOR, --quiet and --verbose.
	NoColor bool
	Quiet   bool
	Verbose bool
}

// System returns the process's own streams.
func System() *IOStreams {
	return &IOStreams{
		In:     os.Stdin,
		Out:    os.Stdout,
		ErrOut: os.Stderr,
		OutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		ErrTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
}

// ColorOut reports whether stdout may be coloured.
func (s *IOStreams) ColorOut() bool { return s.OutTTY && !s.NoColor }

// ColorErr reports whether stderr may be coloured.
func (s *IOStreams) ColorErr() bool { return s.ErrTTY && !s.NoColor }

// Progress reports whether progress and notes belong on stderr: only on a terminal, and not
// with --quiet.
func (s *IOStreams) Progress() bool { return s.ErrTTY && !s.Quiet }
