package cmd

import (
	"github.com/spf13/cobra"

	"github.com/plaios/plaios/internal/exit"
)

// ReleasePlanOptions is replaced by the real command.
type ReleasePlanOptions struct{}

// NewCmdReleasePlan is under construction.
func NewCmdReleasePlan(f *Factory, runF func(*ReleasePlanOptions) error) *cobra.Command {
	return &cobra.Command{Use: "release-plan", Hidden: true, RunE: func(*cobra.Command, []string) error {
		return exit.Envf("release-plan is under construction")
	}}
}
