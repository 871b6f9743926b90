// Package parse reads what review gates consume and produce as text: the
// reviewer's answer (one JSON object somewhere in free text) and the unified
// diff the reviewer saw (which files changed and which lines were added).
//
// Nothing here starts a process or touches the file system; every function
// is pure, so the parser can be fuzzed.
package parse
