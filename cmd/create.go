package cmd

import (
	"github.com/spf13/cobra"

	"github.com/plaios/plaios/internal/exit"
)

// CreateOptions is replaced by the real command.
type CreateOptions struct{}

// NewCmdCreate is under construction.
func NewCmdCreate(f *Factory, runF func(*CreateOptions) error) *cobra.Command {
	return &cobra.Command{Use: "create", Hidden: true, RunE: func(*cobra.Command, []string) error {
		return exit.Envf("create is under construction")
	}}
}
