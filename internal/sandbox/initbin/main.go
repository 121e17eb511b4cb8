// Command initbin is the sandbox's init alone, without the rest of plaios. make test builds
// it without the race detector and links its path into the race-built test binaries
// (internal/sandbox's initProgram), which then start every contained child under it instead
// of under themselves: see initProgram for why. plaios itself never uses it.
//
// The init runs from internal/sandbox's init function, before main, when the sandbox starts
// this program as its init; started any other way it only says what it is.
package main

import (
	"fmt"
	"os"

	_ "github.com/plaios/plaios/internal/sandbox" // its init function is the sandbox's init
)

func main() {
	fmt.Fprintln(os.Stderr, "initbin: this is plaios's sandbox init, for make test; it runs only when the sandbox starts it")
	os.Exit(2)
}
