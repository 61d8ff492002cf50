import Foundation
import GRDB
import JustPhotoPlugin
import Testing

@testable import Lab

/// Issue 34 item 6: SQLite's BUSY and FULL are named as such (never "not a tune study"), and a
/// study that fails while it is made leaves nothing behind — no 0-byte study, no temporary.
@Suite struct TuneStudyFailureTests {
  static func message(_ body: () throws -> Void) -> String {
    do {
      try body()
      return "no error"
    } catch {
      return (error as? HarnessFailure)?.message ?? "\(error)"
    }
  }

  static func trial(_ i: Int, reason: String? = nil) -> TrialResult {
    TrialResult(index: i, values: [.number(3)], status: .ok, objectives: ["flicker_per_min": 1], reason: reason)
  }

  @Test("a full disk while trials are written says FULL; the trials before stay")
  func fullIsNamed() throws {
    let path = TuneTests.tempStudy("full.sqlite")
    let study = try TuneStudy.open(path, create: true)
    try study.record([Self.trial(0)])
    // SQLite answers FULL when a database reaches max_page_count, as when the disk is full.
    let pages = try study.queue.read { try Int.fetchOne($0, sql: "PRAGMA page_count") } ?? 1
    try study.queue.inDatabase { try $0.execute(sql: "PRAGMA max_page_count = \(pages)") }
    let big = String(repeating: "x", count: 200_000)
    let m = Self.message { try study.record((1..<4).map { Self.trial($0, reason: big) }) }
    #expect(m.contains(path) && m.contains("SQLite FULL") && m.contains("disk is full"), "\(m)")
    #expect(!m.contains("not a tune study"))
    #expect(try study.trials().map(\.index) == [0])
  }

  @Test("a study locked by another program says BUSY, not 'not a tune study'")
  func busyIsNamed() throws {
    let path = TuneTests.tempStudy("busy.sqlite")
    let study = try TuneStudy.open(path, create: true)
    try study.queue.inDatabase { try $0.execute(sql: "PRAGMA busy_timeout = 20") }
    // Another connection (another program, as far as SQLite knows) holds the write lock.
    var config = Configuration()
    config.allowsUnsafeTransactions = true
    let other = try DatabaseQueue(path: path, configuration: config)
    defer { try? other.close() }
    try other.writeWithoutTransaction { try $0.execute(sql: "BEGIN EXCLUSIVE") }
    let m = Self.message { try study.record([Self.trial(0)]) }
    #expect(m.contains(path) && m.contains("SQLite BUSY"), "\(m)")
    try other.writeWithoutTransaction { try $0.execute(sql: "ROLLBACK") }
  }

  @Test("a study that fails while it is made — a full disk, or any error — leaves no file and no temporary")
  func failedCreationLeavesNothing() throws {
    let path = TuneTests.tempStudy("new.sqlite")
    let dir = URL(fileURLWithPath: path).deletingLastPathComponent()
    let full = Self.message {
      _ = try TuneStudy.open(path, create: true) { fresh throws(HarnessFailure) in
        do { try fresh.queue.inDatabase { try $0.execute(sql: "PRAGMA max_page_count = 2") } } catch { throw .badInput("\(error)") }
        try fresh.bind([("format", TuneStudy.format), ("space_text", String(repeating: "y", count: 100_000))])
      }
    }
    #expect(full.contains("SQLite FULL"), "\(full)")
    let other = Self.message {
      _ = try TuneStudy.open(path, create: true) { _ throws(HarnessFailure) in throw .badInput("the shipped spec: refused") }
    }
    #expect(other == "the shipped spec: refused")
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == [], "nothing left behind")
  }
}
