import Foundation
import Testing

import Recording
@testable import Verify

/// G1 (issue 12): `GoldenStore` writes `.new` files and goldens through `SafeFile`, so a symlink
/// planted in `Golden/` — at the `.new` name or at an old-style predictable temporary name — is
/// never followed out of the folder: the write is refused (issue 23's output rule) and both the
/// link and what it names stay as they were.
@Suite struct GoldenSafeWriteTests {
  @Test func aPlantedSymlinkInGoldenIsNeverFollowed() throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("golden-safe-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    let golden = root.appendingPathComponent("Golden")
    try FileManager.default.createDirectory(at: golden, withIntermediateDirectories: true)
    let victim = root.appendingPathComponent("victim.txt")
    try Data("untouched\n".utf8).write(to: victim)
    let store = GoldenStore(root: root)
    let pending = store.pendingURL("s01", .trace)
    try FileManager.default.createSymbolicLink(atPath: pending.path, withDestinationPath: victim.path)
    // The names the old writer used (pid + counter) are planted too.
    for n in 1...4 {
      let old = golden.appendingPathComponent(".jpreplay-tmp-\(getpid())-\(n)-s01.trace.jsonl.new")
      try FileManager.default.createSymbolicLink(atPath: old.path, withDestinationPath: victim.path)
    }
    #expect(throws: SafeFileError.self) { try store.writePending("s01", .trace, "{\"t\":0}\n") }
    try store.writeGolden("s02", .trace, "{\"t\":1}\n")
    #expect(try String(contentsOf: victim, encoding: .utf8) == "untouched\n")
    #expect((try FileManager.default.attributesOfItem(atPath: pending.path))[.type] as? FileAttributeType == .typeSymbolicLink)
  }
}
