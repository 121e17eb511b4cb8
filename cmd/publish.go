package cmd

import (
	"github.com/spf13/cobra"

	"github.com/plaios/plaios/internal/exit"
)

// PublishOptions is replaced by the real command.
type PublishOptions struct{}

// NewCmdPublish is under construction.
func NewCmdPublish(f *Factory, runF func(*PublishOptions) error) *cobra.Command {
	return &cobra.Command{Use: "publish", Hidden: true, RunE: func(*cobra.Command, []string) error {
		return exit.Envf("publish is under construction")
	}}
}
