package cmd

import (
	"github.com/spf13/cobra"

	"github.com/plaios/plaios/internal/exit"
)

// GuardOptions is replaced by the real command.
type GuardOptions struct{}

// NewCmdGuard is under construction.
func NewCmdGuard(f *Factory, runF func(*GuardOptions) error) *cobra.Command {
	return &cobra.Command{Use: "guard", Hidden: true, RunE: func(*cobra.Command, []string) error {
		return exit.Envf("guard is under construction")
	}}
}
