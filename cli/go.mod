module github.com/agent-gauntlet/agent-gauntlet/cli

go 1.25.0

require (
	github.com/alecthomas/kong v1.17.0
	github.com/rogpeppe/go-internal v1.16.0
)

require (
	go.yaml.in/yaml/v2 v2.4.2 // indirect
	sigs.k8s.io/yaml v1.6.0 // indirect
)

require (
	github.com/agent-gauntlet/agent-gauntlet/hookproto v0.0.0
	github.com/agent-gauntlet/agent-gauntlet/runner v0.0.0
	github.com/agent-gauntlet/agent-gauntlet/statecfg v0.0.0
	golang.org/x/sys v0.26.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
)

replace github.com/agent-gauntlet/agent-gauntlet/statecfg => ../statecfg

replace github.com/agent-gauntlet/agent-gauntlet/runner => ../runner

replace github.com/agent-gauntlet/agent-gauntlet/hookproto => ../hookproto
