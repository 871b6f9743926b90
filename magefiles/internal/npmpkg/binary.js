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
// and what to do. env is the environment: npm gives an install script its
// configuration there (npm_config_*), which tells whether the user left
// optional dependencies out.
function findBinary(platform = process.platform, arch = process.arch, env = process.env) {
  const platformPackage = `${pkg.name}-${platform}-${arch}`;
  try {
    return require.resolve(`${platformPackage}/bin/${exeName(platform)}`);
  } catch {
    const supported = Object.keys(pkg.optionalDependencies || {}).map((name) => name.slice(pkg.name.length + 1));
    if (supported.includes(`${platform}-${arch}`)) {
      throw new Error(`the package ${platformPackage}, which holds the agent-gauntlet binary for this machine, is not installed: ${whyMissing(env, platformPackage)}`);
    }
    throw new Error(`no agent-gauntlet binary for ${platform}-${arch}; there is one for ${supported.join(", ")}, and \`go install\` builds one anywhere (see the README)`);
  }
}

// whyMissing says why npm left the platform package out, as far as env
// tells, and what to do: only a user who asked to omit optional
// dependencies is told that they did.
function whyMissing(env, platformPackage) {
  const omitted = (env.npm_config_omit || "").split(/[\s,]+/).includes("optional") ||
    env.npm_config_optional === "" || env.npm_config_optional === "false";
  if (omitted) {
    return `--omit=optional left it out (or --no-optional, or omit=optional in an .npmrc): install ${pkg.name} again without it`;
  }
  return `npm did not install it (npm goes on without an optional dependency it cannot fetch or install: offline, a registry or network error, a lockfile written on another platform; --omit=optional leaves it out too): ` +
    `install ${pkg.name}@${pkg.version} again where the registry is reachable, or add ${platformPackage}@${pkg.version} yourself`;
}

module.exports = { pkg, findBinary };
