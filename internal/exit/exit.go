// Package exit gives errors the process exit code CLI.md assigns them: 1 when a check or a
// plan failed, 2 for a usage mistake, 3 when the environment (node, npm, git, a registry, the
// sandbox) is missing or unreachable. Library packages wrap their errors with these helpers so
// that cmd can turn any error into the right code and one sentence, without knowing where it
// came from.
package exit

import (
	"errors"
	"fmt"
)

// The exit codes of CLI.md.
const (
	OK    = 0
	Fail  = 1
	Usage = 2
	Env   = 3
)

// Error carries an exit code with the error that caused it.
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Silent is an error whose message has already been printed (for example a finding list
// followed by its summary); only the exit code remains to be given.
type Silent struct{ Code int }

func (s *Silent) Error() string { return fmt.Sprintf("exit status %d", s.Code) }

// Failf reports a failed check or plan (exit 1).
func Failf(format string, a ...any) error { return &Error{Code: Fail, Err: fmt.Errorf(format, a...)} }

// Usagef reports a usage mistake (exit 2).
func Usagef(format string, a ...any) error { return &Error{Code: Usage, Err: fmt.Errorf(format, a...)} }

// Envf reports a missing or unreachable part of the environment (exit 3).
func Envf(format string, a ...any) error { return &Error{Code: Env, Err: fmt.Errorf(format, a...)} }

// Env wraps err as an environment failure (exit 3), keeping it for errors.Is/As.
func EnvErr(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: Env, Err: err}
}

// UsageErr wraps err as a usage mistake (exit 2).
func UsageErr(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: Usage, Err: err}
}

// FailErr wraps err as a failed check (exit 1).
func FailErr(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: Fail, Err: err}
}

// Code returns the exit code for err: the code of the outermost *Error or *Silent in its
// chain, 0 for nil, and 1 for any other error.
func Code(err error) int {
	if err == nil {
		return OK
	}
	for cur := err; cur != nil; cur = errors.Unwrap(cur) {
		switch c := cur.(type) {
		case *Error:
			return c.Code
		case *Silent:
			return c.Code
		}
	}
	var e *Error
	if errors.As(err, &e) { // joined errors
		return e.Code
	}
	return Fail
}

// IsSilent reports whether err only carries an exit code.
func IsSilent(err error) bool {
	var s *Silent
	return errors.As(err, &s)
}
