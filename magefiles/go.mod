module github.com/agent-gauntlet/agent-gauntlet/magefiles

go 1.25.0

require (
	github.com/magefile/mage v1.17.2 // indirect
	go.yaml.in/yaml/v2 v2.4.2 // indirect
	sigs.k8s.io/yaml v1.6.0 // indirect
)

tool github.com/magefile/mage

require github.com/agent-gauntlet/agent-gauntlet/statecfg v0.0.0

replace github.com/agent-gauntlet/agent-gauntlet/statecfg => ../statecfg
