//go:build !race

package findings

// raceEnabled says that the test binary is built with -race.
const raceEnabled = false
