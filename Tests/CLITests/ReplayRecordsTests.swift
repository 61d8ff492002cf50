import Foundation
import JustPhotoPlugin
import Lab
import Replay
import Testing

/// Issue 36 item 3: a replay's records in memory are exactly what its trace text reads back
/// as, so every check fed the records (rules, budgets, the differ's replay side, reports) sees
/// what it saw reading the text.
@Suite("A replay's records are its trace read back")
struct ReplayRecordsTests {
  /// Every 14th Just Photo recording of the corpus (by name): a spread of scenarios and
  /// numeric fields, a few replays in all.
  static func sample() -> [String] {
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: CLI.repoRoot.appendingPathComponent("Recordings").path)) ?? [])
      .filter { $0.hasSuffix(".jprec") }.map { String($0.dropLast(".jprec".count)) }.sorted()
    return stride(from: 0, to: names.count, by: 14).map { names[$0] }
  }

  @Test("canonicalProducts' records equal the one reader's records of its text, which is the golden", arguments: sample())
  func recordsAreTheTextReadBack(name: String) throws {
    let root = CLI.repoRoot
    let driver = try Harness.driver(specPath: root.appendingPathComponent("PoseSpec.json").path)
    let products = try driver.canonicalProducts(root.appendingPathComponent("Recordings/\(name).jprec"))
    #expect(!products.records.isEmpty)
    #expect(try GoldenTrace.records(products.trace) == products.records)
    let golden = try String(contentsOf: root.appendingPathComponent("Golden/\(name).trace.jsonl"), encoding: .utf8)
    #expect(products.trace == golden)
  }

  @Test("the sample is the corpus's spread, not empty")
  func sampleIsReal() {
    #expect(Self.sample().count >= 5)
  }
}
