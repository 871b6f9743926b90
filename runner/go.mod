module github.com/agent-gauntlet/agent-gauntlet/runner

go 1.26.0

require (
	github.com/agent-gauntlet/agent-gauntlet/statecfg v0.0.0
	github.com/reviewdog/errorformat v0.0.0-20260721110140-13bff69235f3
	golang.org/x/text v0.41.0
)

require (
	github.com/creack/pty v1.1.24
	go.yaml.in/yaml/v2 v2.4.2 // indirect
	golang.org/x/sys v0.47.0
	mvdan.cc/sh/v3 v3.14.1
	pgregory.net/rapid v1.3.0
)
