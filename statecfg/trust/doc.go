// Package trust keeps a project's trusted configuration: the content of
// its .gauntlet/ as a person accepted it (agent-gauntlet trust, init), so
// that the gates the stop hook runs do not weaken when the agent they gate
// edits, weakens or deletes the work tree's .gauntlet/.
//
// The record lives outside the work tree, under the git common directory
// (<git common dir>/agent-gauntlet/trust/<project>.json, see RecordPath),
// so every worktree of the repository shares it and nothing shows in git
// status. It holds every file the configuration loader reads, whole (the
// trusted gates run even when .gauntlet/ is gone), with a checksum; it is
// written atomically. One record per project place: a project in a
// subdirectory has its own.
//
// A project without a record trusts the configuration committed at HEAD,
// never uncommitted edits, and when HEAD holds none the one at the merge
// base of HEAD with the base branch (Resolve, BaseFiles; Pin records it on
// first use). A record
// that exists but cannot be used (torn, edited, another project's, another
// format) is an error (ErrUnusable), never "no gates": HEAD's configuration
// stands in and the person is told.
//
// The stop hook finds its project through the store as well (Discover): a
// configuration with neither a record nor a commit at HEAD never hides a
// project that has a record, and a record whose directory is gone is
// reported, not forgotten (KnownProjects lists every record).
//
// This guards against casual edits, not a determined agent: whoever can
// write the git directory can rewrite the record.
package trust
