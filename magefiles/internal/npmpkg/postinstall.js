// The install script ("postinstall") of the agent-gauntlet npm package. npm
// links the package's commands (in node_modules/.bin, or in a global
// prefix's bin) to bin/agent-gauntlet, a Node launcher that starts the
// binary: every command, so every stop hook, would first start Node, which
// takes many times what the hook itself takes. Where it is safe, this
// script puts the binary itself in the launcher's place, so that the
// commands run it with no Node in between.
//
// It never fails the install and never downloads anything: whatever goes
// wrong leaves the launcher, which keeps working, and prints one line on
// stderr. It replaces the launcher only
//   - on Linux and macOS: on Windows npm's .cmd shims run `node <file>`;
//   - under npm (npx included), which links a command as a symlink to the
//     file, so that it finds the binary there: pnpm writes shell shims that
//     run `node <file>` (decided from the file's first line when it linked
//     it, which may be before this script runs), and Yarn 2 and later run
//     every command with node;
//   - when the platform package's binary is there and `<binary> --version`
//     prints this package's version.
// The binary is hard-linked (else copied) to a temporary file beside the
// launcher, which is then renamed over it: at every moment the command is
// the whole launcher or the whole binary. npm links commands before it runs
// this script and replaces a package's directory on an upgrade, so the next
// version starts again from its own launcher.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const { execFileSync } = require("node:child_process");

// versionTimeoutMs bounds `<binary> --version`, which takes milliseconds.
const versionTimeoutMs = 5000;

// optimize puts the binary in place of each command file of the package
// (the "bin" of its package.json). It returns "binary" when the commands are
// the binary, "launcher: <why>" when it left the launcher on purpose, and
// throws an Error when it tried and could not. The options are for tests:
// platform and arch (Node's names), the environment (npm names itself in
// npm_config_user_agent), the timeout of --version, and the hard-link call.
function optimize({
  platform = process.platform,
  arch = process.arch,
  env = process.env,
  timeoutMs = versionTimeoutMs,
  link = fs.linkSync,
} = {}) {
  if (platform !== "linux" && platform !== "darwin") {
    return `launcher: on ${platform}, not Linux or macOS`;
  }
  const agent = env.npm_config_user_agent || "";
  if (!agent.startsWith("npm/")) {
    return `launcher: installed by ${agent.split(" ")[0] || "an unknown package manager"}, not npm`;
  }
  const { pkg, findBinary } = require("./binary.js");
  const binary = findBinary(platform, arch);
  checkVersion(binary, `v${pkg.version}`, timeoutMs);
  const root = path.resolve(__dirname, "..");
  for (const file of new Set(Object.values(pkg.bin || {}))) {
    const target = path.resolve(root, file);
    const rel = path.relative(root, target);
    if (rel.startsWith("..") || path.isAbsolute(rel)) {
      throw new Error(`the command file ${file} is outside the package`);
    }
    replace(target, binary, link);
  }
  return "binary";
}

// checkVersion runs `<binary> --version` and throws unless it prints want.
function checkVersion(binary, want, timeoutMs) {
  let out;
  try {
    out = execFileSync(binary, ["--version"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: timeoutMs,
      killSignal: "SIGKILL",
      maxBuffer: 64 * 1024,
    });
  } catch (err) {
    if (err.code === "ETIMEDOUT") {
      throw new Error(`${binary} --version did not end within ${timeoutMs} ms`);
    }
    const how = typeof err.status === "number" ? `exit ${err.status}` : String(err.signal || err.code || err.message);
    const said = String(err.stderr || "").trim().split("\n")[0];
    throw new Error(`${binary} --version failed (${how}${said ? `: ${said}` : ""})`);
  }
  const got = out.trim();
  if (got !== want) {
    throw new Error(`${binary} --version printed ${JSON.stringify(got.slice(0, 80))}, not ${JSON.stringify(want)}`);
  }
}

// replace puts the binary at file, atomically: a hard link to it (a copy
// when the file system refuses the link) under a temporary name in file's
// directory, renamed over file. The launcher's file is replaced, never
// written: a file rewritten in place could be read half-written, and macOS
// kills a signed binary whose file changed under it. Nothing to do when
// file is the binary already (the script ran before: a rename onto the same
// file would do nothing and leave the temporary name behind).
function replace(file, binary, link) {
  const from = fs.statSync(binary);
  const to = fs.statSync(file);
  if (from.dev === to.dev && from.ino === to.ino) {
    return;
  }
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  removeQuietly(tmp);
  try {
    try {
      link(binary, tmp);
    } catch {
      fs.copyFileSync(binary, tmp, fs.constants.COPYFILE_FICLONE);
      fs.chmodSync(tmp, 0o755);
    }
    fs.renameSync(tmp, file);
  } finally {
    removeQuietly(tmp);
  }
}

// removeQuietly removes file if it is there.
function removeQuietly(file) {
  try {
    fs.unlinkSync(file);
  } catch {
    // not there, or not ours to remove
  }
}

// main runs optimize and reports a failure in one line: the install goes
// on, with the launcher.
function main() {
  let name = "agent-gauntlet";
  try {
    name = require("../package.json").name;
    optimize();
  } catch (err) {
    const reason = String((err && err.message) || err).replace(/\s+/g, " ").slice(0, 400);
    process.stderr.write(`${name}: the command stays the Node launcher: ${reason}\n`);
  }
  process.exitCode = 0;
}

module.exports = { optimize };

if (require.main === module) {
  main();
}
