#!/bin/sh
# Writes OUT/BuildStamp.swift: the commit the package at ROOT is built from (`git rev-parse
# HEAD`), "unknown" when ROOT is not the top of a git work tree (a source archive, a package
# copied into another project) or git is missing; and whether Package.swift or Sources/ differ
# from that commit. Run by the BuildStamp plugin before every build of jpreplay; the file is
# rewritten only when its text changes, so an unchanged commit recompiles nothing.
# Usage: stamp.sh ROOT OUT
root=$1
out=$2
commit=unknown
changed=false
if top=$(git -C "$root" rev-parse --show-toplevel 2>/dev/null) && [ "$top" -ef "$root" ]; then
  if head=$(git -C "$root" rev-parse --verify -q HEAD 2>/dev/null); then
    commit=$head
    # No optional locks: reading the tree never writes the index.
    GIT_OPTIONAL_LOCKS=0 git -C "$root" diff --quiet HEAD -- Package.swift Sources 2>/dev/null || changed=true
  fi
fi
case $commit in
  *[!0-9a-f]*) commit=unknown ;;
esac
mkdir -p "$out" || exit 1
tmp="$out/.BuildStamp.swift.tmp"
cat >"$tmp" <<SWIFT
// Generated at build time by Plugins/BuildStamp (stamp.sh); not in the repository.
/// The commit this binary was built from ("unknown" outside a git checkout).
let buildCommit = "$commit"
/// Whether Package.swift or Sources/ differed from that commit when it was built.
let buildTreeChanged = $changed
SWIFT
if cmp -s "$tmp" "$out/BuildStamp.swift"; then rm -f "$tmp"; else mv "$tmp" "$out/BuildStamp.swift"; fi
