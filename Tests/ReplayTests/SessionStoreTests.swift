import CanonicalJSON
import JustPhotoEngine
import EngineIO
import EngineSeam
import JustPhotoPlugin
import Foundation
import JustPhotoIO
import Replay
import Testing

/// A full snapshot: optional fields both set and unset, session and install flags.
func sampleSnapshot() -> StoreSnapshot {
  let failed = SessionItem(
    itemId: "I-1-2", shotSeq: 2, createdAtMs: 1_770_860_212_000, core: .write_failed, thumb: .failed,
    album: .none, liked: true, assetId: nil, pendingFile: "pending/I-1-2.heic",
    writeFailReason: "photo_lib_unavailable", lastErrorAtMs: 1_770_860_213_500, writeAttempts: 2,
    albumAttempts: 0, thumbAttempts: 1, albumRetryCount: 0, albumRetryNextAtMs: nil)
  let ok = SessionItem(
    itemId: "I-1-1", shotSeq: 1, createdAtMs: 1_770_860_211_600, core: .write_success, thumb: .ready,
    album: .failed, liked: false, assetId: "670A57F5-0000-4000-8000-000000000001/L0/001",
    pendingFile: nil, writeFailReason: nil, lastErrorAtMs: 1_770_860_211_900, writeAttempts: 1,
    albumAttempts: 2, thumbAttempts: 1, albumRetryCount: 2, albumRetryNextAtMs: 1_770_860_231_000)
  let session = SessionSnapshot(
    sessionId: "S-0001", createdAtMs: 1_770_860_211_000, lastActiveAtMs: 1_770_860_213_500,
    scene: "outdoor", flags: ["prompt.session_once.a", "prompt.session_once.session_count_15"],
    items: [failed, ok], nextShotSeq: 3, ordinal: 1, refCount: 4)
  return StoreSnapshot(session: session, installFlags: ["prompt.install_once.first_launch", "z.flag"])
}

/// Runs the sqlite3 CLI on `path`; nil when sqlite3 is not installed.
func sqlite3(_ path: String, _ sql: String) throws -> String? {
  let exe = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3", "/bin/sqlite3"].first {
    FileManager.default.isExecutableFile(atPath: $0)
  }
  guard let exe else { return nil }
  let p = Process()
  p.executableURL = URL(fileURLWithPath: exe)
  p.arguments = [path, sql]
  let pipe = Pipe()
  p.standardOutput = pipe
  try p.run()
  let data = pipe.fileHandleForReading.readDataToEndOfFile()
  p.waitUntilExit()
  return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

@Suite("SQLite session store (GRDB adapter of the persistence port)")
struct SessionStoreTests {
  @Test func emptyDatabaseLoadsNoSession() throws {
    let dir = try TemporaryDirectory()
    let store = try SQLiteSessionStore(path: dir.url.appendingPathComponent("s.sqlite").path)
    #expect(try store.load() == StoreSnapshot(session: nil))
  }

  @Test func roundTripThroughANewStoreObjectOnTheSameFile() throws {
    let dir = try TemporaryDirectory()
    let path = dir.url.appendingPathComponent("s.sqlite").path
    let snapshot = sampleSnapshot()
    do {
      let store = try SQLiteSessionStore(path: path)
      try store.save(snapshot)
      try store.close()
    }
    let reopened = try SQLiteSessionStore(path: path)
    let loaded = try reopened.load()
    #expect(loaded == snapshot)
    #expect(loaded.session?.items.map(\.shotSeq) == [2, 1])
    // The JSON form the engine gets at app_launch survives too.
    #expect(StoreSnapshot(json: loaded.json) == snapshot)
  }

  @Test func secondSaveRemovesItemsAndFlagsAndUpdatesTheRest() throws {
    let dir = try TemporaryDirectory()
    let path = dir.url.appendingPathComponent("s.sqlite").path
    var store: any SessionStorePort<StoreSnapshot> = try SQLiteSessionStore(path: path)
    var snapshot = sampleSnapshot()
    try store.save(snapshot)
    // clear_unliked drops I-1-1; a new shot arrives; one flag and one install flag go.
    snapshot.session!.items.removeLast()
    snapshot.session!.items[0].core = .writing
    snapshot.session!.items[0].writeFailReason = nil
    snapshot.session!.items[0].lastErrorAtMs = nil
    snapshot.session!.items.insert(
      SessionItem(itemId: "I-1-3", shotSeq: 3, createdAtMs: 1_770_860_215_000), at: 0)
    snapshot.session!.nextShotSeq = 4
    snapshot.session!.flags = ["prompt.session_once.session_count_15"]
    snapshot.session!.lastActiveAtMs += 2000
    snapshot.installFlags = ["z.flag"]
    try store.save(snapshot)
    let loaded = try SQLiteSessionStore(path: path).load()
    #expect(loaded == snapshot)
    #expect(loaded.session?.items.map(\.itemId) == ["I-1-3", "I-1-2"])
  }

  @Test func aNewSessionReplacesTheOldOneAndNoSessionClearsIt() throws {
    let dir = try TemporaryDirectory()
    let path = dir.url.appendingPathComponent("s.sqlite").path
    let store = try SQLiteSessionStore(path: path)
    try store.save(sampleSnapshot())
    // reset_session: a new id, empty workset.
    let fresh = StoreSnapshot(
      session: SessionSnapshot(
        sessionId: "S-0002", createdAtMs: 1_770_860_300_000, lastActiveAtMs: 1_770_860_300_000,
        scene: "cafe", ordinal: 2),
      installFlags: ["z.flag"])
    try store.save(fresh)
    #expect(try SQLiteSessionStore(path: path).load() == fresh)
    if let n = try sqlite3(path, "SELECT (SELECT count(*) FROM sessions) || ',' || (SELECT count(*) FROM session_items)") {
      #expect(n == "1,0")
    }
    try store.save(StoreSnapshot(session: nil, installFlags: ["z.flag"]))
    #expect(try SQLiteSessionStore(path: path).load() == StoreSnapshot(session: nil, installFlags: ["z.flag"]))
  }

  @Test func theFileIsAPlainSQLiteDatabaseWithTheAppSchema() throws {
    let dir = try TemporaryDirectory()
    let path = dir.url.appendingPathComponent("s.sqlite").path
    let store = try SQLiteSessionStore(path: path)
    try store.save(sampleSnapshot())
    try store.close()
    guard let integrity = try sqlite3(path, "PRAGMA integrity_check") else { return }  // no sqlite3 CLI
    #expect(integrity == "ok")
    #expect(
      try sqlite3(path, "SELECT flags_json FROM sessions")
        == #"{"prompt.session_once.a":true,"prompt.session_once.session_count_15":true}"#)
    #expect(try sqlite3(path, "SELECT key || '=' || value FROM app_meta ORDER BY key")
      == "current_session_id=S-0001\nnext_shot_seq=3\nordinal=1\nref_count=4")
    #expect(
      try sqlite3(path, "SELECT item_id, shot_seq, state, liked, write_fail_reason FROM session_items ORDER BY shot_seq")
        == "I-1-1|1|write_success|0|\nI-1-2|2|write_failed|1|photo_lib_unavailable")
    let tables = try sqlite3(path, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'grdb%' ORDER BY name")
    #expect(tables == "app_meta\ninstall_flags\nref_items\nsession_items\nsessions")
    let columns = try sqlite3(path, "SELECT group_concat(name, ',') FROM pragma_table_info('session_items')")
    #expect(
      columns == "item_id,session_id,shot_seq,created_at_ms,state,liked,asset_id,pending_file_rel_path,"
        + "thumb_cache_rel_path,last_error_at_ms,album_retry_count,album_retry_last_at_ms,"
        + "album_retry_next_at_ms,thumbnail_state,album_state,write_fail_reason,write_attempts,"
        + "album_attempts,thumb_attempts")
  }

  @Test func errorsNameTheFile() throws {
    let dir = try TemporaryDirectory()
    let missing = dir.url.appendingPathComponent("no/such/dir/s.sqlite").path
    #expect {
      _ = try SQLiteSessionStore(path: missing)
    } throws: { "\($0)".contains(missing) }
    let garbage = dir.url.appendingPathComponent("garbage.sqlite").path
    try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: garbage))
    #expect {
      _ = try SQLiteSessionStore(path: garbage)
    } throws: { "\($0)".contains(garbage) }
    // A dangling current_session_id is reported, not silently dropped.
    let dangling = dir.url.appendingPathComponent("dangling.sqlite").path
    let store = try SQLiteSessionStore(path: dangling)
    try store.save(sampleSnapshot())
    try store.close()
    if try sqlite3(dangling, "PRAGMA foreign_keys = OFF; DELETE FROM sessions; SELECT 1") != nil {
      #expect {
        _ = try SQLiteSessionStore(path: dangling).load()
      } throws: { "\($0)".contains(dangling) && "\($0)".contains("S-0001") }
    }
  }

  @Test func temporaryLeaseIsCreatedOnFirstUseRemovesItsDirectoryAndKeepRefusesAnExistingFile() throws {
    guard let lease = try ReplayStoreLease.open(.temporary, label: "/corpus/Recordings/kill me.jprec") else {
      Issue.record("no lease")
      return
    }
    // Nothing on disk until the replay saves or loads a session.
    #expect(lease.opened == nil)
    #expect(try lease.load() == StoreSnapshot(session: nil))
    let file = try #require(lease.opened?.path)
    #expect(file.hasSuffix("/kill_me.jprec.session.sqlite"))
    #expect(FileManager.default.fileExists(atPath: file))
    try lease.save(sampleSnapshot())
    #expect(try lease.load() == sampleSnapshot())
    lease.finish()
    #expect(!FileManager.default.fileExists(atPath: (file as NSString).deletingLastPathComponent))
    #expect(try ReplayStoreLease.open(.none, label: "x") == nil)

    let dir = try TemporaryDirectory()
    let kept = dir.url.appendingPathComponent("kept.sqlite").path
    let k = try ReplayStoreLease.open(.keep(path: kept), label: "x")
    #expect(k?.opened != nil)  // a kept store exists from the start
    try k?.save(sampleSnapshot())
    k?.finish()
    #expect(try SQLiteSessionStore(path: kept).load() == sampleSnapshot())
    #expect {
      _ = try ReplayStoreLease.open(.keep(path: kept), label: "x")
    } throws: { "\($0)".contains(kept) }
  }

  /// Replay's store names no engine (issue 36 item 1): a vocabulary with a store of its own
  /// (Just Photo's, a `SchemaStoreVocabulary`) gets it, any other its JSON form in one
  /// `engine_snapshot` row.
  @Test func engineStoreLeaseOpensTheVocabularysOwnStoreElseItsJSONForm() throws {
    let dir = try TemporaryDirectory()
    let jpFile = dir.url.appendingPathComponent("jp.sqlite").path
    let jp = try #require(try EngineStoreLease<JustPhotoVocabulary>.open(.keep(path: jpFile), label: "x"))
    try jp.save(sampleSnapshot())
    #expect(try jp.load() == sampleSnapshot())
    jp.finish()
    #expect(try SQLiteSessionStore(path: jpFile).load() == sampleSnapshot())

    let otherFile = dir.url.appendingPathComponent("counter.sqlite").path
    let other = try #require(try EngineStoreLease<CounterVocabulary>.open(.keep(path: otherFile), label: "x"))
    #expect(try other.load() == 0)
    try other.save(7)
    #expect(try other.load() == 7)
    other.finish()
    #expect(try JSONSnapshotStore(path: otherFile, engine: "counter").load() == ["n": .number(7)])
    #expect(try EngineStoreLease<CounterVocabulary>.open(.none, label: "x") == nil)
    #expect(try EngineStoreLease<JustPhotoVocabulary>.open(.none, label: "x") == nil)
  }
}

/// The smallest vocabulary with a snapshot and no store of its own: a counter.
enum CounterVocabulary: EngineVocabulary {
  typealias Output = Int
  typealias Snapshot = Int
  static let engineName = "counter"
  static let kinds: [EventKindInfo] = []
  static func traceRecord(_ output: Int) -> (out: String, fields: JSONObject) { ("n", ["n": .number(Double(output))]) }
  static func snapshotJSON(_ snapshot: Int) -> JSONObject { ["n": .number(Double(snapshot))] }
  static func snapshot(json: JSONObject) throws(SnapshotError) -> Int { Int(json["n"]?.int64Value ?? 0) }
  static let emptySnapshot = 0
}

/// A class box so a @Sendable engine closure can record what it was given.
final class Received: @unchecked Sendable {
  private let lock = NSLock()
  private var values: [JSONValue?] = []
  func append(_ v: JSONValue?) { lock.withLock { values.append(v) } }
  var all: [JSONValue?] { lock.withLock { values } }
}

@Suite("Replayer with a session store (persist → SQLite → app_launch)")
struct ReplaySessionStoreTests {
  /// An engine that persists a snapshot at start and on each shutter tap (one more item each
  /// time), and reports for every app_launch it receives the store it was handed: the recorded
  /// `store` field through `handle`, the session store's content through `relaunch`.
  static func persistingEngine(_ received: Received) -> ScriptedEngine {
    var e = ScriptedEngine()
    let base = sampleSnapshot()
    e.onStart = {
      var fx = Effects()
      fx.persist = StoreSnapshot(session: nil, installFlags: ["first"])
      return fx
    }
    e.onHandle = { ev in
      var fx = Effects()
      switch ev.kind {
      case .shutter_tap:
        var s = base
        s.session!.items.insert(SessionItem(itemId: "I-1-\(ev.t)", shotSeq: Int(ev.t), createdAtMs: ev.t), at: 0)
        s.session!.nextShotSeq = Int(ev.t) + 1
        fx.persist = s
      case .app_launch:
        if case .typed(let g) = ev.payload { received.append(g.fields["store"]) }
      default: break
      }
      return fx
    }
    e.onRelaunch = { ev, stored in
      if case .typed(let g) = ev.payload { #expect(g.fields["store"] == nil, "the recorded event is not rewritten") }
      received.append(stored.json)
      return Effects()
    }
    return e
  }

  static func expectedAfterTap(_ t: Int64) -> StoreSnapshot {
    var s = sampleSnapshot()
    s.session!.items.insert(SessionItem(itemId: "I-1-\(t)", shotSeq: Int(t), createdAtMs: t), at: 0)
    s.session!.nextShotSeq = Int(t) + 1
    return s
  }

  @Test func appLaunchGetsWhatWasPersistedUnlessItRecordedItsOwnStore() throws {
    let dir = try TemporaryDirectory()
    let path = dir.url.appendingPathComponent("replay.sqlite").path
    let store = try SQLiteSessionStore(path: path)
    let received = Received()
    let recordedStore: JSONValue = .object(["session": .null, "install_flags": .array([])])
    var source = InMemoryEventSource(
      header: JSONObject(),
      events: [
        event(50, .app_launch),
        event(100, .shutter_tap),
        event(150, .app_lifecycle, ["state": "terminated"]),
        event(200, .app_launch),
        event(300, .shutter_tap),
        event(400, .app_launch, ["store": recordedStore]),
        event(450, .app_lifecycle, ["state": "terminated"]),
        event(500, .app_launch),
      ])
    var output = CollectingOutput()
    var replayer = Replayer(engine: Self.persistingEngine(received), sessionStore: store)
    _ = try replayer.run(&source, into: &output)
    let got = received.all
    #expect(got.count == 4)
    // t=50: a first launch (no kill before it) is handed over as recorded; t=200, after a
    // kill: the first tap's snapshot, read back from SQLite.
    #expect(got[0] == nil)
    #expect(got[1] == Self.expectedAfterTap(100).json)
    #expect(got[1].map(StoreSnapshot.init(json:)) == Self.expectedAfterTap(100))
    // t=400: the recorded store wins.
    #expect(got[2] == recordedStore)
    #expect(got[3] == Self.expectedAfterTap(300).json)
    // The file holds the last snapshot for anyone opening it later.
    #expect(try SQLiteSessionStore(path: path).load() == Self.expectedAfterTap(300))
  }

  @Test func withoutAStoreAppLaunchIsHandedOverAsRecorded() throws {
    let received = Received()
    _ = try replay(Self.persistingEngine(received), [event(100, .shutter_tap), event(200, .app_launch)])
    #expect(received.all == [nil])
  }

  @Test func driverGivesEachReplayAFreshTemporaryStore() throws {
    let received = Received()
    let engine = Self.persistingEngine(received)
    let driver = ReplayDriver(
      sessionStore: .temporary,
      open: { _ in InMemoryEventSource(header: JSONObject(), events: []) },
      makeEngine: { _ in engine })
    for _ in 0..<2 {
      var source = InMemoryEventSource(
        header: JSONObject(),
        events: [
          event(10, .app_lifecycle, ["state": "terminated"]), event(20, .app_launch), event(100, .shutter_tap),
          event(150, .app_lifecycle, ["state": "terminated"]), event(200, .app_launch),
        ])
      var output = CollectingOutput()
      _ = try driver.replay(source: &source, into: &output, recording: "r")
    }
    // The second replay starts from an empty store again (not the first replay's last state).
    let initial = StoreSnapshot(session: nil, installFlags: ["first"]).json
    #expect(received.all == [initial, Self.expectedAfterTap(100).json, initial, Self.expectedAfterTap(100).json])
  }
}
