import EngineIO
import Foundation
import GRDB
import JustPhotoIO
import Mutants
@testable import Recording
import Testing


/// Robustness of the `.jprec` reader (issue 12 "Fuzzing"): mutated databases — bytes of the
/// file, and edits through SQLite that keep the file valid (chunk columns, rows, meta values,
/// and chunk payloads recompressed with a matching CRC) — each end in events or a thrown
/// `RecordingError` naming the file, read through the same path as `jpreplay replay`.
@Suite struct JprecMutationTests {
  let dir: URL

  init() throws {
    dir = FileManager.default.temporaryDirectory.appendingPathComponent("jprec-mutants-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
  }

  /// Opens `path` and reads every event and the statistics, as `replay` and `info` do.
  static func read(_ path: String) throws -> Int {
    let reader = try RecordingReader(path: path, definitions: JustPhotoEvents.self)
    var n = 0
    while try reader.next() != nil { n += 1 }
    _ = try reader.stats()
    return n
  }

  static func remove(_ path: String) {
    for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
  }

  @Test func fileByteMutantsReadOrThrowNamingTheFile() throws {
    defer { try? FileManager.default.removeItem(at: dir) }
    let seed = [UInt8](try Data(contentsOf: URL(fileURLWithPath: RecordingMutationTests.seedRecording)))
    let path = dir.appendingPathComponent("mutant.jprec").path
    let report = MutationRun.run(seed, count: 300, seed: 0x4A50_5243, file: path) { bytes in
      Self.remove(path)
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      _ = try Self.read(path)
    }
    print(".jprec byte mutants: \(report.summary)")
    #expect(report.accepted > 0)
    #expect(report.refused > 100)
    #expect(report.unnamed == [])
  }

  /// One random edit through SQLite; the file stays a valid database.
  static func sqlEdit(_ db: Database, _ m: inout ByteMutator) throws {
    let ids = try Int64.fetchAll(db, sql: "SELECT id FROM chunks ORDER BY id")
    let id = ids.isEmpty ? 0 : ids[m.below(ids.count)]
    let numbers = ["start_ms", "end_ms", "count", "first_seq", "raw_size", "channel_id"]
    switch m.below(6) {
    case 0:
      let column = numbers[m.below(numbers.count)]
      let text = ByteMutator.oddNumbers[m.below(ByteMutator.oddNumbers.count)]
      // Stored as SQLite makes it: an integer, a real, or text when it is neither.
      try db.execute(sql: "UPDATE chunks SET \(column) = ? WHERE id = ?", arguments: [text, id])
    case 1:
      let column = numbers[m.below(numbers.count)]
      let delta = Int64(m.below(7)) - 3
      try db.execute(sql: "UPDATE chunks SET \(column) = \(column) + ? WHERE id = ?", arguments: [delta, id])
    case 2: try db.execute(sql: "DELETE FROM chunks WHERE id = ?", arguments: [id])
    case 3:
      let rows = try Row.fetchAll(db, sql: "SELECT key, value FROM meta ORDER BY rowid")
      let row = rows[m.below(rows.count)]
      let key: String = row[0]
      if m.below(4) == 0 {
        try db.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [key])
      } else {
        let value = String(decoding: m.mutate(Array((row[1] as String).utf8)), as: UTF8.self)
        try db.execute(sql: "UPDATE meta SET value = ? WHERE key = ?", arguments: [value, key])
      }
    default:
      // A mutated payload that passes the CRC and size checks: reaches the event decoder.
      guard let data = try Data.fetchOne(db, sql: "SELECT data FROM chunks WHERE id = ?", arguments: [id]),
        let size = try Int.fetchOne(db, sql: "SELECT raw_size FROM chunks WHERE id = ?", arguments: [id]),
        let payload = try? Zstd.decompress([UInt8](data), expectedSize: size)  // not after a raw_size edit
      else { return }
      let raw = m.mutate(payload)
      let packed = Zstd.compress(raw)
      try db.execute(
        sql: "UPDATE chunks SET data = ?, raw_size = ?, crc32 = ? WHERE id = ?",
        arguments: [Data(packed), raw.count, Int64(CRC32.checksum(packed)), id])
    }
  }

  @Test func sqlMutantsReadOrThrowNamingTheFile() throws {
    defer { try? FileManager.default.removeItem(at: dir) }
    let seedPath = RecordingMutationTests.seedRecording
    let path = dir.appendingPathComponent("mutant.jprec").path
    var m = ByteMutator(seed: 0x5351_4C21)
    var mutants: [[UInt8]] = []
    for _ in 0..<250 {
      Self.remove(path)
      try FileManager.default.copyItem(atPath: seedPath, toPath: path)
      var config = Configuration()
      config.foreignKeysEnabled = false  // a damaged file may point anywhere
      let q = try DatabaseQueue(path: path, configuration: config)
      try q.inDatabase { db in
        for _ in 0...m.below(2) { try Self.sqlEdit(db, &m) }
      }
      try q.close()
      mutants.append([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    }
    let report = MutationRun.run(mutants, file: path) { bytes in
      Self.remove(path)
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      _ = try Self.read(path)
    }
    print(".jprec SQL mutants: \(report.summary)")
    #expect(report.accepted > 0)
    #expect(report.refused > 100)
    #expect(report.unnamed == [])
  }
}
