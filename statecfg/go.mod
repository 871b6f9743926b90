module github.com/agent-gauntlet/agent-gauntlet/statecfg

go 1.25.0

require (
	go.yaml.in/yaml/v2 v2.4.2
	golang.org/x/sys v0.47.0
	pgregory.net/rapid v1.3.0
	sigs.k8s.io/yaml v1.6.0
)
