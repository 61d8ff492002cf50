import Foundation
import Testing

@testable import Lab

/// `BuildInfo`: the commit a checkout's HEAD names, read from `.git` without running git.
@Suite("build info")
struct BuildInfoTests {
  static let a = String(repeating: "a", count: 40)
  static let b = String(repeating: "b", count: 40)

  func scratch() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("buildinfo-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
  }

  func write(_ text: String, _ url: URL) throws {
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try text.write(to: url, atomically: true, encoding: .utf8)
  }

  @Test("a branch's loose ref, a packed ref, a detached HEAD")
  func refs() throws {
    let root = try scratch()
    defer { try? FileManager.default.removeItem(at: root) }
    let git = root.appendingPathComponent(".git")
    try write("ref: refs/heads/main\n", git.appendingPathComponent("HEAD"))
    #expect(BuildInfo.headCommit(checkout: root.path) == nil)  // unborn branch
    try write("# pack-refs with: peeled\n\(Self.b) refs/heads/main\n", git.appendingPathComponent("packed-refs"))
    #expect(BuildInfo.headCommit(checkout: root.path) == Self.b)
    try write(Self.a + "\n", git.appendingPathComponent("refs/heads/main"))
    #expect(BuildInfo.headCommit(checkout: root.path) == Self.a)  // the loose ref wins
    try write(Self.b + "\n", git.appendingPathComponent("HEAD"))
    #expect(BuildInfo.headCommit(checkout: root.path) == Self.b)
    try write("ref: refs/heads/../../etc\n", git.appendingPathComponent("HEAD"))
    #expect(BuildInfo.headCommit(checkout: root.path) == nil)
  }

  @Test("a worktree: .git is a file naming its git dir, whose refs are in the common dir")
  func worktree() throws {
    let base = try scratch()
    defer { try? FileManager.default.removeItem(at: base) }
    let common = base.appendingPathComponent("main/.git")
    let wtGit = common.appendingPathComponent("worktrees/wt")
    try write("ref: refs/heads/h/x\n", wtGit.appendingPathComponent("HEAD"))
    try write("../..\n", wtGit.appendingPathComponent("commondir"))
    try write(Self.a + "\n", common.appendingPathComponent("refs/heads/h/x"))
    let wt = base.appendingPathComponent("wt")
    try write("gitdir: \(wtGit.path)\n", wt.appendingPathComponent(".git"))
    #expect(BuildInfo.headCommit(checkout: wt.path) == Self.a)
    // The binary's checkout: the folder above `.build`, only when it has `.git`.
    let exe = wt.appendingPathComponent(".build/x86_64-unknown-linux-gnu/release/jpreplay").path
    #expect(BuildInfo.checkoutRoot(executable: exe) == wt.path)
    #expect(BuildInfo.versionLine(executable: exe) == "jpreplay \(BuildInfo.packageVersion) (git \(Self.a.prefix(12)), checkout at \(wt.path))")
    #expect(BuildInfo.checkoutRoot(executable: base.appendingPathComponent("bin/jpreplay").path) == nil)
    #expect(BuildInfo.versionLine(executable: "/usr/local/bin/jpreplay") == "jpreplay \(BuildInfo.packageVersion)")
  }
}
