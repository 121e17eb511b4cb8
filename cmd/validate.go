package cmd

import (
	"github.com/spf13/cobra"

	"github.com/plaios/plaios/internal/exit"
)

// ValidateOptions is replaced by the real command.
type ValidateOptions struct{}

// NewCmdValidate is under construction.
func NewCmdValidate(f *Factory, runF func(*ValidateOptions) error) *cobra.Command {
	return &cobra.Command{Use: "validate", Hidden: true, RunE: func(*cobra.Command, []string) error {
		return exit.Envf("validate is under construction")
	}}
}
