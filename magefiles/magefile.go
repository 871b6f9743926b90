//go:build mage

// The build targets of agent-gauntlet. Run them from the repository root as
// `go tool mage <target>`; the logic lives in the tested targets package.
package main

import (
	"context"

	"github.com/agent-gauntlet/agent-gauntlet/magefiles/targets"
)

// Install builds agent-gauntlet and installs it into GOBIN (or GOPATH/bin).
func Install(ctx context.Context) error { return targets.Install(ctx) }

// Test runs every module's unit tests (with -race) and the testscript suite.
func Test(ctx context.Context) error { return targets.Test(ctx) }

// Lint checks gofmt, go vet and go mod tidy in every module.
func Lint(ctx context.Context) error { return targets.Lint(ctx) }

// Demo builds agent-gauntlet and shows a failing then passing run and the stop hook's answers on an embedded example.
func Demo(ctx context.Context) error { return targets.Demo(ctx) }

// Bench runs the Go and whole-process benchmarks, prints each figure against its baseline and writes BENCHMARKS.md.
func Bench(ctx context.Context) error { return targets.Bench(ctx) }

// E2E runs the real Claude Code, Codex and Gemini CLIs (from npm) through the stop hook against loopback model stand-ins.
func E2E(ctx context.Context) error { return targets.E2E(ctx) }
