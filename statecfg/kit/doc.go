// Package kit groups the small tools every module of agent-gauntlet
// shares, which are neither configuration nor state; it holds no code
// itself. Its packages:
//
//	atomicfile  write a file atomically (a temporary file renamed over it)
//	fsread      read a file, bounded, never blocking on a FIFO or a device
//	fserr       name a path once in an error message
//	jsonobj     a JSON object that keeps the order of its keys
//	glob        the patterns of entry points and check globs
//	procgroup   start a child in its own process group, kill the group
//	gitcmd      run git: context, process group, bounded output
//	gitindex    read and write git's index file without a git process
//	fname       fit a file name derived from data to what a file system takes
//	jsonc       read JSON with comments and a byte order mark, as clients do
//	filestat    a file's identity from its stat, and when a memo may trust it
//	owned       make paths below a directory the gauntlet owns, never through a link
//	filelock    an exclusive lock of an open file, held across processes
//
// They live in statecfg, the lowest module that runner and cli both
// import, so that one copy serves all three.
package kit
