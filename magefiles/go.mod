module github.com/agent-gauntlet/agent-gauntlet/magefiles

go 1.25.0

require github.com/magefile/mage v1.17.2 // indirect

tool github.com/magefile/mage
