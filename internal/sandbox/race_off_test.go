//go:build !race

package sandbox

// raceEnabled reports whether the tests were built with -race.
const raceEnabled = false
