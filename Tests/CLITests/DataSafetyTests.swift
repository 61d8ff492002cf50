import CanonicalJSON
import Foundation
import JustPhotoPlugin
import Replay
import Testing

/// ENGINE §5.1 / §5.5 data safety through a real kill: the engine drops everything on
/// `app_lifecycle terminated` and rebuilds from the SQLite store at `app_launch`.
@Suite struct DataSafetyTests {
  /// The recording `name` cut at `t` (events after it dropped, duration t): the store the
  /// replay leaves is the state at that moment.
  static func truncated(_ name: String, at t: Int64, in dir: URL) throws -> URL {
    let text = try String(contentsOf: CLI.corpusJSONL(name, in: dir), encoding: .utf8)
    var lines = text.split(separator: "\n").map(String.init)
    var header = try JSONParser.parse(lines[0]).objectValue!
    header["duration_ms"] = .number(Double(t))
    lines[0] = JSONWriter.write(.object(header))
    let kept = [lines[0]] + lines.dropFirst().filter { (try? JSONParser.parse($0)["t"]?.int64Value ?? 0).map { $0 <= t } ?? false }
    let url = dir.appendingPathComponent("\(name)-to-\(t).jsonl")
    try (kept.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
    return url
  }

  static func replay(_ recording: URL, store: URL) throws -> [JSONValue] {
    let r = try CLI.run(["replay", recording.path, "--keep-store", store.path])
    #expect(r.code == 0, "\(r.stderr)")
    return r.stdout.split(separator: "\n").compactMap { try? JSONParser.parse(String($0)) }
  }

  @Test("§5.1 recovery: an item killed while writing is write_failed after relaunch, in SQLite and in the trace")
  func killWhileWriting() throws {
    let dir = try CLI.tempDir("kill")
    defer { try? FileManager.default.removeItem(at: dir) }
    let store = dir.appendingPathComponent("store.sqlite")
    // Up to 6000: killed at 1250 while writing, relaunched at 5000, camera ready at 5500.
    let trace = try Self.replay(try Self.truncated("kill-while-writing", at: 6000, in: dir), store: store)
    let afterLaunch = trace.filter { ($0["t"]?.int64Value ?? 0) >= 5000 }
    let item = afterLaunch.first { $0["out"] == "item" }
    #expect(item?["core"] == "write_failed")
    #expect(item?["reason"] == "photo_lib_unavailable")
    #expect(afterLaunch.last { $0["out"] == "shutter" }?["reason"] == "blocked_by_write_failed")
    // A real SQLite file with the app's tables, holding the write_failed row and its pending file.
    let head = try FileHandle(forReadingFrom: store).readData(ofLength: 16)
    #expect(String(decoding: head, as: UTF8.self) == "SQLite format 3\u{0}")
    let snapshot = try SQLiteSessionStore(path: store.path).load()
    let row = try #require(snapshot.session?.items.first)
    #expect(row.core == .write_failed)
    #expect(row.writeFailReason == "photo_lib_unavailable")
    #expect(row.pendingFile == "pending/I-1-1.heic")
  }

  @Test("§5.5: the same recording without the kill saves the photo and never blocks the shutter")
  func withoutTheKill() throws {
    let dir = try CLI.tempDir("nokill")
    defer { try? FileManager.default.removeItem(at: dir) }
    let store = dir.appendingPathComponent("store.sqlite")
    let trace = try Self.replay(CLI.repoRoot.appendingPathComponent("Recordings/kill-control.jprec"), store: store)
    #expect(!trace.contains { $0["out"] == "shutter" && $0["reason"] == "blocked_by_write_failed" })
    #expect(!trace.contains { $0["out"] == "item" && $0["core"] == "write_failed" })
    #expect(try SQLiteSessionStore(path: store.path).load().session?.items.first?.core == .write_success)
  }

  @Test("§5.1: killed before the pending file exists → the item is gone after relaunch, with the prune banner")
  func killBeforePendingFile() throws {
    let dir = try CLI.tempDir("kill-early")
    defer { try? FileManager.default.removeItem(at: dir) }
    let store = dir.appendingPathComponent("store.sqlite")
    let trace = try Self.replay(CLI.repoRoot.appendingPathComponent("Recordings/kill-before-pending.jprec"), store: store)
    #expect(trace.contains { $0["out"] == "item" && $0["core"] == "removed" && $0["t"]?.int64Value == 5000 })
    #expect(trace.contains { $0["out"] == "prompt" && $0["key"] == "session_recover_prune" && $0["op"] == "shown" })
    #expect(try SQLiteSessionStore(path: store.path).load().session?.items.isEmpty == true)
  }
}
