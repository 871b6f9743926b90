module github.com/agent-gauntlet/agent-gauntlet/runner

go 1.25.0

require github.com/agent-gauntlet/agent-gauntlet/statecfg v0.0.0

require (
	go.yaml.in/yaml/v2 v2.4.2 // indirect
	golang.org/x/sys v0.47.0 // indirect
)
