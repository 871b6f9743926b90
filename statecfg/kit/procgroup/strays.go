package procgroup

import (
	"fmt"
	"sync/atomic"
)

// TagVar is the environment variable that marks every process a Tag'd
// child starts, however it detaches: a process that leaves its session
// (setsid, a daemon's double fork) is out of reach of the group's signal,
// but it still carries the environment it was started with.
const TagVar = "AGENT_GAUNTLET_PROC"

var tagSeq atomic.Uint64

// NewTag returns a tag no other child of this process carries, as the
// KEY=value line to add to a child's environment.
func NewTag() string {
	return fmt.Sprintf("%s=%d.%d", TagVar, pid, tagSeq.Add(1))
}
