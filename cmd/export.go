package cmd

import (
	"github.com/spf13/cobra"

	"github.com/plaios/plaios/internal/exit"
)

// NewCmdExport is under construction.
func NewCmdExport(f *Factory) *cobra.Command {
	return &cobra.Command{Use: "export", Hidden: true, RunE: func(*cobra.Command, []string) error {
		return exit.Envf("export is under construction")
	}}
}
