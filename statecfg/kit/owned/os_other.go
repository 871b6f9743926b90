//go:build !unix

package owned

// NoFollow is 0 where the platform has no such open flag; the lstat
// checks of this package still refuse a link.
const NoFollow = 0
