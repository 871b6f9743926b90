package lint

import "os"

// Save writes data to p.
func Save(p string, data []byte) {
	os.WriteFile(p, data, 0o644)
}
