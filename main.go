// Command plaios scaffolds, checks, guards and releases agent extension packs.
package main

import (
	"os"

	"github.com/plaios/plaios/cmd"
)

func main() { os.Exit(cmd.Main(os.Args[1:], cmd.System())) }
