package testenv

// QuickStart is the README's quick start, command by command (its comments left out). The root
// package's TestFirstRun follows it in a fresh npm workspace, and this package's
// TestQuickStartIsTheREADMEs holds the README's block to it. The README is read there, not by
// TestFirstRun: the go command keys a package's cached test result on every file its tests
// open, so an edit anywhere in the README would otherwise run the first run's minutes again,
// where now it runs this package's seconds.
var QuickStart = []string{
	"plaios create action weather",
	"cd packages/weather",
	"npm run build",
	"npm test",
	"plaios validate --strict",
	"plaios guard",
}
