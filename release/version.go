package release

import (
	"github.com/plaios/plaios/internal/semver"
)

// parseVersion reads a version as npm publishes it: strict semver (no "v", no shortened
// forms); build metadata is allowed and ignored by comparisons.
func parseVersion(s string) (*semver.Version, bool) {
	v, err := semver.Parse(s)
	if err != nil {
		return nil, false
	}
	return v, true
}

// The bumps follow `npm version` (node-semver's inc), including prereleases: a prerelease is
// finished rather than skipped.
//
//	patch: 1.2.3 → 1.2.4, 1.2.4-rc.1 → 1.2.4
//	minor: 0.3.1 → 0.4.0, 0.4.0-rc.1 → 0.4.0, 0.4.1-rc.1 → 0.5.0
//	major: 1.4.2 → 2.0.0, 2.0.0-rc.1 → 2.0.0, 2.1.0-rc.1 → 3.0.0
//
// Each result is above its input, so a plan never names a version at or below one that is
// published or tagged.
func nextPatch(v *semver.Version) *semver.Version {
	if v.Prerelease() != "" {
		return semver.New(v.Major, v.Minor, v.Patch)
	}
	return semver.New(v.Major, v.Minor, v.Patch+1)
}

func nextMinor(v *semver.Version) *semver.Version {
	if v.Prerelease() != "" && v.Patch == 0 {
		return semver.New(v.Major, v.Minor, 0)
	}
	return semver.New(v.Major, v.Minor+1, 0)
}

func nextMajor(v *semver.Version) *semver.Version {
	if v.Prerelease() != "" && v.Minor == 0 && v.Patch == 0 {
		return semver.New(v.Major, 0, 0)
	}
	return semver.New(v.Major+1, 0, 0)
}

var one = semver.New(1, 0, 0)

// breakingFloor is the lowest version a breaking change may publish after last: the next
// major from 1.0.0 on, the next minor below it.
func breakingFloor(last *semver.Version) *semver.Version {
	if last.Compare(one) >= 0 {
		return nextMajor(last)
	}
	return nextMinor(last)
}

// meetsFloor reports whether a written version satisfies a breaking change's floor: at or
// above it, or a prerelease of it or of a later version (2.0.0-beta.1 for a floor of 2.0.0:
// no ^1 range matches it).
func meetsFloor(written, floor *semver.Version) bool {
	if written.Compare(floor) >= 0 {
		return true
	}
	if written.Prerelease() == "" {
		return false
	}
	return written.Release().Compare(floor) >= 0
}
