// Where this machine's agent-gauntlet binary is. npm installed, of this
// package's optionalDependencies, the one platform package whose "os" and
// "cpu" match the machine; it holds the binary. Used by the launcher
// (bin/agent-gauntlet) and by the install script (lib/postinstall.js).
"use strict";

const pkg = require("../package.json");

// exeName is the binary's file name on platform (a process.platform).
function exeName(platform) {
  return platform === "win32" ? "agent-gauntlet.exe" : "agent-gauntlet";
}

// findBinary returns the path of the binary for platform and arch (Node's
// names), or throws an Error whose message tells a user why there is none
// and what to do.
function findBinary(platform = process.platform, arch = process.arch) {
  const platformPackage = `${pkg.name}-${platform}-${arch}`;
  try {
    return require.resolve(`${platformPackage}/bin/${exeName(platform)}`);
  } catch {
    const supported = Object.keys(pkg.optionalDependencies || {}).map((name) => name.slice(pkg.name.length + 1));
    if (supported.includes(`${platform}-${arch}`)) {
      throw new Error(`the package ${platformPackage}, which holds the agent-gauntlet binary for this machine, is not installed: install ${pkg.name} again without --omit=optional (or --no-optional)`);
    }
    throw new Error(`no agent-gauntlet binary for ${platform}-${arch}; there is one for ${supported.join(", ")}, and \`go install\` builds one anywhere (see the README)`);
  }
}

module.exports = { pkg, findBinary };
