#!/usr/bin/env bash
# capture.sh [case...]: runs each corpus case's command with the real tool on
# its base and work trees and records what the tool printed, so that the
# findings tests read real outputs without the tools installed.
#
# For each case directory (case.txt, base/, work/), in a scratch repository:
# base/ is committed, a worktree of that commit is the base side (as a
# baseline run makes one), work/ is laid over the work tree; node_modules
# installed in the work tree are linked into the base, as the gauntlet does.
# Written to <case>/out/: base.txt, work.txt (stdout and stderr together, as
# a check's log has them), base.exit, work.exit, diff.txt (git diff -U0 of
# the base commit and the work tree, untracked files included), the JUnit
# files a case names (base.junit.xml, work.junit.xml) and, for a case with
# a rerun: line, base.rerun.txt and work.rerun.txt from that command.
#
# Tools needed on PATH: go, golangci-lint, node and npm (the npm registry),
# Debian's python3-pytest, python3-mypy, flake8 and pylint, cargo, make.
set -u
here=$(cd "$(dirname "$0")" && pwd)
scratch=${CORPUS_SCRATCH:-/tmp/agent-gauntlet-corpus}
shims="$scratch/.shims"
mkdir -p "$shims"
if ! command -v mypy >/dev/null && /usr/bin/python3 -m mypy --version >/dev/null 2>&1; then
	printf '#!/bin/sh\nexec /usr/bin/python3 -m mypy "$@"\n' > "$shims/mypy"
	chmod +x "$shims/mypy"
fi
export PATH="$shims:$PATH"

field() { sed -n "s/^$1: //p" "$2/case.txt" | head -1; }

run() { # run <dir> <command> <out file> <exit file>
	(cd "$1" && sh -c "$2" > "$3" 2>&1; echo $? > "$4")
}

cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
	for d in "$here"/*/; do cases+=("$(basename "$d")"); done
fi
for c in "${cases[@]}"; do
	src="$here/$c"
	[ -f "$src/case.txt" ] || continue
	echo "== $c"
	root="$scratch/$c"
	rm -rf "$root"
	mkdir -p "$root/work" "$src/out"
	cp -r "$src/base/." "$root/work/"
	(cd "$root/work" && git init -q && git add -A && git -c user.name=corpus -c user.email=corpus@example.com commit -qm base &&
		printf 'node_modules/\npackage-lock.json\njunit.xml\nreport.xml\ntarget/\n__pycache__/\n.mypy_cache/\nCargo.lock\n' > .git/info/exclude &&
		git worktree add -q --detach ../base HEAD)
	(cd "$root/work" && git rm -qr --cached . >/dev/null && find . -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +)
	cp -r "$src/work/." "$root/work/"
	if [ -f "$root/work/package.json" ]; then
		(cd "$root/work" && npm install --no-audit --no-fund --silent >/dev/null 2>&1)
		ln -s "$root/work/node_modules" "$root/base/node_modules"
	fi
	cmd=$(field command "$src")
	junit=$(field junit "$src")
	for side in base work; do
		run "$root/$side" "$cmd" "$src/out/$side.txt" "$src/out/$side.exit"
		if [ -n "$junit" ] && [ -f "$root/$side/$junit" ]; then
			cp "$root/$side/$junit" "$src/out/$side.junit.xml"
		fi
	done
	rerun=$(field rerun "$src")
	if [ -n "$rerun" ]; then
		for side in base work; do
			run "$root/$side" "$rerun" "$src/out/$side.rerun.txt" "$src/out/$side.rerun.exit"
		done
	fi
	(cd "$root/work" && git add -A && git diff --cached -U0 -M --no-color --no-ext-diff --src-prefix=a/ --dst-prefix=b/ HEAD) > "$src/out/diff.txt"
	printf '%s\n%s\n' "$root/base" "$root/work" > "$src/out/roots.txt"
done
