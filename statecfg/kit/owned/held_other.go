//go:build !unix

package owned

import (
	"os"
	"path/filepath"
)

// openChain opens the directory parts below base, checking each
// component as CheckDir does (no system call opens a component without
// following a link here).
func openChain(base string, parts []string) (*os.File, error) {
	dir := filepath.Join(append([]string{base}, parts...)...)
	if err := CheckDir(base, dir); err != nil {
		return nil, err
	}
	return os.Open(dir)
}

// viaOf is "": no path names an open directory here.
func viaOf(*os.File) string { return "" }

// goneVia is "": a directory replaced is told (Replaced), its paths used
// as they are.
func goneVia(*hold) string { return "" }

// openBelow is never called here (viaOf is "").
func openBelow(*os.File, []string) (*os.File, int, error) { return nil, 0, os.ErrInvalid }

// childVia is never called here (viaOf is "").
func childVia(int) string { return "" }
