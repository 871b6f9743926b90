//go:build unix

package owned

import "syscall"

// NoFollow is the open flag that makes opening a symbolic link fail
// (ELOOP) rather than open what it points to.
const NoFollow = syscall.O_NOFOLLOW
