// Package release treats the repository's Go modules as one release unit.
//
// The modules are the ones go.work lists. Each one's path is RepoPath plus
// its directory, so the tag "<dir>/vX.Y.Z" names its version X.Y.Z. They
// require one another at a single version (they are "in step"), and their
// go.mod files carry no replace directives: the go command refuses
// `go install <pkg>@<version>` for a module whose go.mod has any. In
// development, go.work joins the working trees; a module on its own
// (GOWORK=off) sees its siblings at the version it requires, that is, as
// released.
//
// What go.work cannot do, a file-based module proxy built from the working
// tree does (Prepare): it serves every module at a chosen version with the
// go.mod and go.sum that version will have, each one tidied by the go
// command in module mode against the siblings already served. That one
// mechanism tidies the go.mod files (Tidy), checks them (lint), computes a
// release's go.sum lines for the siblings, and proves `go install` before
// anything is tagged (GoInstall).
package release
