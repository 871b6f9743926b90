package config

import "path/filepath"

// resolve returns p when absolute, else p joined to root.
func resolve(root, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(root, p)
}
