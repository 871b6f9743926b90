package ciwork

// action is a GitHub Action at a pinned version.
type action struct {
	// Repo is owner/name.
	Repo string
	// SHA is the full commit of Version; "" pins the tag itself (see
	// actionSetupRuby).
	SHA string
	// Version is the release tag SHA points to.
	Version string
}

// Uses is the `uses:` value: the commit when there is one (a tag can be
// moved; a commit cannot), else the tag.
func (a action) Uses() string {
	if a.SHA != "" {
		return a.Repo + "@" + a.SHA
	}
	return a.Repo + "@" + a.Version
}

// The actions of the generated workflow, pinned to full commit SHAs with
// their release tag in a comment (the form Dependabot and Renovate keep up
// to date). One table: the workflow and its tests read it from here.
var (
	actionCheckout         = action{"actions/checkout", "de0fac2e4500dabe0009e67214ff5f5447ce83dd", "v6.0.2"}
	actionSetupGo          = action{"actions/setup-go", "44694675825211faa026b3c33043df3e48a5fa00", "v6.0.0"}
	actionUploadArtifact   = action{"actions/upload-artifact", "b7c566a772e6b6bfb58ed0dc250532a479d7789f", "v6.0.0"}
	actionDownloadArtifact = action{"actions/download-artifact", "37930b1c2abaa49bbe596cd826c3c89aef350131", "v7.0.0"}
	actionSetupNode        = action{"actions/setup-node", "6044e13b5dc448c55e2357c09f80417699197238", "v6.2.0"}
	actionSetupPython      = action{"actions/setup-python", "a309ff8b426b58ec0e2a45f0f869d46889d02405", "v6.2.0"}
	actionSetupJava        = action{"actions/setup-java", "be666c2fcd27ec809703dec50e508c2fdc7f6654", "v5.2.0"}
	actionSetupBun         = action{"oven-sh/setup-bun", "735343b667d3e6f658f44d0eca948eb6282f2b76", "v2.0.2"}
	actionUploadSARIF      = action{"github/codeql-action/upload-sarif", "95e58e9a2cdfd71adc6e0353d5c52f41a045d225", "v4.35.2"}
	// actionSetupRuby keeps its major tag: ruby/setup-ruby's maintainers
	// ask for @v1, since a pinned commit knows only the Ruby versions
	// released before it.
	actionSetupRuby = action{"ruby/setup-ruby", "", "v1"}
)

// pinnedActions lists every action of the table, for tests.
func pinnedActions() []action {
	return []action{actionCheckout, actionSetupGo, actionUploadArtifact, actionDownloadArtifact,
		actionSetupNode, actionSetupPython, actionSetupJava, actionSetupBun, actionSetupRuby, actionUploadSARIF}
}
