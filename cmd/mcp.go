package cmd

import (
	"github.com/spf13/cobra"

	"github.com/plaios/plaios/internal/exit"
)

// NewCmdMCP is under construction.
func NewCmdMCP(f *Factory) *cobra.Command {
	return &cobra.Command{Use: "mcp", Hidden: true, RunE: func(*cobra.Command, []string) error {
		return exit.Envf("mcp is under construction")
	}}
}
