package adapter

import (
	"context"
	"errors"
	"os/exec"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/proc"
)

// ProbeTimeout bounds a usage-limit probe.
const ProbeTimeout = 30 * time.Second

// ProbePrompt is the tiny prompt a usage-limit probe pipes to a CLI.
const ProbePrompt = "This is a connectivity check. Reply with the single word OK and do nothing else."

// State is the health of an adapter.
type State string

// Adapter states.
const (
	// StateHealthy: installed and, when probed, answering.
	StateHealthy State = "healthy"
	// StateMissing: the binary is not on PATH.
	StateMissing State = "missing"
	// StateUnhealthy: installed but not usable (usage limit, probe error).
	StateUnhealthy State = "unhealthy"
)

// Health messages, as the `health` command prints them.
const (
	MsgInstalled    = "Installed"
	MsgReady        = "Ready"
	MsgMissing      = "Missing"
	MsgUsageLimit   = "Usage limit exceeded"
	MsgProbeTimeout = "Health check timed out"
)

// Health is the state of one adapter with a message for humans.
type Health struct {
	State   State
	Message string
}

// OK reports whether the adapter may take a review slot.
func (h Health) OK() bool { return h.State == StateHealthy }

// Check reports whether spec's binary is on PATH and, when probe is true,
// whether it answers a tiny prompt without a usage-limit message within
// ProbeTimeout.
func Check(ctx context.Context, spec Spec, root string, probe bool) Health {
	return check(ctx, spec, root, probe, ProbeTimeout)
}

// check is Check with a probe bounded by timeout.
func check(ctx context.Context, spec Spec, root string, probe bool, timeout time.Duration) Health {
	if _, err := exec.LookPath(spec.Binary); err != nil {
		return Health{State: StateMissing, Message: MsgMissing}
	}
	if !probe {
		return Health{State: StateHealthy, Message: MsgInstalled}
	}
	return probeCLI(ctx, spec, root, timeout)
}

// probeCLI pipes ProbePrompt into spec (same read-only argv as a review)
// and judges the answer: a usage-limit phrase, a timeout or a failure make
// the adapter unhealthy.
func probeCLI(ctx context.Context, spec Spec, root string, timeout time.Duration) Health {
	ans, err := Invoke(ctx, spec, Request{Root: root, Stdin: ProbePrompt, Timeout: timeout})
	if ans.LimitPhrase() != "" {
		return Health{State: StateUnhealthy, Message: MsgUsageLimit}
	}
	switch {
	case errors.Is(err, proc.ErrTimeout):
		return Health{State: StateUnhealthy, Message: MsgProbeTimeout}
	case err != nil:
		return Health{State: StateUnhealthy, Message: "Error: " + firstLine(err.Error())}
	}
	if f := ans.Failure(); f != "" {
		return Health{State: StateUnhealthy, Message: "Error: " + firstLine(f)}
	}
	return Health{State: StateHealthy, Message: MsgReady}
}
