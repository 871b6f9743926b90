// Package tools pins the release tools that run as `go tool`: GoReleaser,
// which `go tool mage dist` runs from here. This module is not in go.work
// on purpose: GoReleaser's few hundred dependencies would join the
// workspace's build list and change the versions the other modules build
// and test with. Its go.mod is tidied by `go tool mage tidy` and checked by
// `go tool mage lint` like the others.
package tools
