package exit

import (
	"errors"
	"fmt"
	"testing"
)

func TestCode(t *testing.T) {
	cases := []struct {
		err  error
		want int
	}{
		{nil, OK},
		{errors.New("plain"), Fail},
		{Usagef("bad flag"), Usage},
		{Envf("npm missing"), Env},
		{Failf("findings"), Fail},
		{fmt.Errorf("wrapped: %w", EnvErr(errors.New("registry down"))), Env},
		{UsageErr(EnvErr(errors.New("inner env"))), Usage}, // the outermost code wins
		{&Silent{Code: Fail}, Fail},
		{fmt.Errorf("ctx: %w", &Silent{Code: Usage}), Usage},
		{errors.Join(errors.New("a"), Envf("b")), Env},
	}
	for _, c := range cases {
		if got := Code(c.err); got != c.want {
			t.Errorf("Code(%v) = %d, want %d", c.err, got, c.want)
		}
	}
	if EnvErr(nil) != nil || UsageErr(nil) != nil || FailErr(nil) != nil {
		t.Error("wrapping nil must give nil")
	}
	if !IsSilent(fmt.Errorf("x: %w", &Silent{Code: 1})) || IsSilent(Failf("x")) {
		t.Error("IsSilent")
	}
	if got := Usagef("--x %q is bad", "y").Error(); got != `--x "y" is bad` {
		t.Errorf("message = %q", got)
	}
}
