import CanonicalJSON
import EngineIO
import Foundation
import GRDB
import JustPhotoIO
@testable import Recording
import XCTest


/// The `.jprec` container (DESIGN §3, docs/FORMAT-jprec.md): round trips, merge order,
/// chunking, seek, damaged files, unfinished recordings, doctor and recover.
final class ContainerTests: XCTestCase {
  var dir: URL!

  override func setUpWithError() throws {
    dir = FileManager.default.temporaryDirectory.appendingPathComponent("jprec-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
  }
  override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

  func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

  static let header: JSONObject = [
    "format": "jp-replay/1", "wall_start_ms": 1_770_860_000_000, "posespec_sha256": "ab12",
    "duration_ms": 5000, "options": .object(["strictEffects": false, "tiers": ["t0", "t1"]]),
    "initial": .object(["scene": "cafe", "photo_auth": .object(["status": "limited", "scope": "addOnly"]), "session_restore": nil]),
    "name": "unit",
  ]

  static func body(_ seed: Double, missing: Set<Int> = []) -> BodyPose {
    var b = BodyPose()
    for j in 0..<19 where !missing.contains(j) {
      b.points[j] = JointPoint(x: 0.3 + Double(j) * 0.017 + seed * 0.0013, y: 0.9 - Double(j) * 0.031 - seed * 0.0007, conf: 0.5 + Double(j % 7) * 0.061)
    }
    return b
  }

  static func face(_ seed: Double, full: Bool) -> FaceObservation {
    if !full { return FaceObservation(bbox: Rect(x: 0.41 + seed * 0.001, y: 0.2, w: 0.123456789, h: 0.15)) }
    return FaceObservation(
      bbox: Rect(x: 0.4, y: 0.6 + seed * 0.002, w: 0.2, h: 0.15), conf: 0.93,
      leftEye: EyePoint(x: 0.53, y: 0.7, conf: 0.8, precMax: 0.0123, ear: 0.3),
      rightEye: EyePoint(x: 0.47, y: 0.7), nose: Point2(x: 0.5, y: 0.66), noseTip: Point2(x: 0.501, y: 0.651),
      chin: Point2(x: 0.5, y: 0.6), mouth: Point2(x: 0.49, y: 0.62), eyeAR: 0.31, landmarkConfAvg: 0.77)
  }

  /// One event of every kind (landmarks in several shapes), in time order.
  static func everyKind() -> [InputEvent] {
    var out: [InputEvent] = []
    var t: Millis = 0
    for kind in EventKind.allCases {
      t += 7
      switch kind {
      case .landmarks:
        out.append(InputEvent(t: t, payload: .landmarks(LandmarkFrame(
          frame: 7, srcT: t - 3, imageW: 1080, imageH: 1920, coords: .vision, body: body(1, missing: [3, 17]),
          faces: [face(1, full: true), face(2, full: false)], people: 2, visionMs: 12.345678))))
        out.append(InputEvent(t: t, payload: .landmarks(LandmarkFrame(frame: 8))))  // empty: no body, no faces
        out.append(InputEvent(t: t + 1, payload: .landmarks(LandmarkFrame(
          frame: 6, srcT: t + 100, coords: .canonical, body: body(-3), faces: [face(3, full: true)], people: 1))))
        t += 1
      case .luma:
        out.append(InputEvent(t: t, payload: .luma(LumaFrame(frame: 7, w: 3, h: 2, data: [0, 1, 2, 253, 254, 255]))))
        out.append(InputEvent(t: t, payload: .luma(LumaFrame(frame: 9, w: 0, h: 0, data: []))))
      default:
        let fields: JSONObject = [
          "a": 1, "nested": .object(["x": [1.5, -2, "s\"q\n", nil, true], "o": .object(["deep": .object(["deeper": 0.1])])]),
          "ünï": "côdé", "big": 1_770_860_000_123, "neg": -0.000001,
        ]
        out.append(InputEvent(t: t, payload: .justPhoto(JustPhotoEvent(kind: kind, fields: kind == .shutter_tap ? [:] : fields))))
      }
    }
    return out
  }

  static func expected(_ e: InputEvent) -> InputEvent {
    if case .landmarks(let f) = e.payload { return InputEvent(t: e.t, payload: .landmarks(Quantization.rounded(f))) }
    return e
  }

  @discardableResult
  func record(_ events: [InputEvent], to p: String, limit: Int = 1 << 20, header: JSONObject = ContainerTests.header) throws -> String {
    let r = try Recorder(path: p, header: header, chunkRawLimit: limit, definitions: JustPhotoEvents.self)
    for e in events { try r.append(e) }
    XCTAssertEqual(r.eventCount, events.count)
    try r.finish()
    return p
  }

  func readAll(_ p: String) throws -> [InputEvent] {
    let r = try RecordingReader(path: p, definitions: JustPhotoEvents.self)
    var out: [InputEvent] = []
    while let e = try r.next() { out.append(e) }
    return out
  }

  func assertThrows(_ body: () throws -> Void, contains parts: [String], file: StaticString = #filePath, line: UInt = #line) {
    do {
      try body()
      XCTFail("expected an error containing \(parts)", file: file, line: line)
    } catch {
      let d = "\(error)"
      XCTAssertTrue(error is RecordingError, "not a RecordingError: \(d)", file: file, line: line)
      for p in parts { XCTAssertTrue(d.contains(p), "\"\(d)\" does not contain \"\(p)\"", file: file, line: line) }
    }
  }

  // MARK: round trips

  func testEveryKindRoundTripsToTheRoundedInput() throws {
    let events = Self.everyKind()
    let p = try record(events, to: path("all.jprec"))
    let back = try readAll(p)
    XCTAssertEqual(back.count, events.count)
    for (a, b) in zip(back, events.map(Self.expected)) { XCTAssertEqual(a, b) }
    let r = try RecordingReader(path: p, definitions: JustPhotoEvents.self)
    XCTAssertTrue(r.isComplete)
    XCTAssertEqual(r.header, Self.header)
    XCTAssertEqual(r.header.keys, Self.header.keys)
    // No -wal / -shm left behind after finish().
    XCTAssertFalse(FileManager.default.fileExists(atPath: p + "-wal"))
  }

  func testQuantizedValuesAreWithinHalfAStep() throws {
    var b = BodyPose()
    b[.nose] = JointPoint(x: 0.123456789, y: -0.987654321, conf: 0.333333333)
    let f = LandmarkFrame(frame: 1, body: b, visionMs: 3.14159265)
    let p = try record([InputEvent(t: 0, payload: .landmarks(f))], to: path("q.jprec"))
    guard case .landmarks(let g) = try readAll(p)[0].payload, let n = g.body?[.nose] else { return XCTFail("no frame") }
    XCTAssertLessThanOrEqual(abs(n.x - 0.123456789), 1.0 / 131072)
    XCTAssertLessThanOrEqual(abs(n.y + 0.987654321), 1.0 / 131072)
    XCTAssertLessThanOrEqual(abs(g.visionMs! - 3.14159265), 1.0 / 131072)
    XCTAssertNotEqual(n.x, 0.123456789)
    XCTAssertEqual(Quantization.rounded(g), g, "rounding is idempotent")
  }

  func testChannelsMergeByTimeThenAppendOrder() throws {
    var events: [InputEvent] = []
    for k in 0..<60 {
      let t = Millis(k / 3 * 10)  // three events share each time
      switch k % 4 {
      case 0: events.append(InputEvent(t: t, payload: .landmarks(LandmarkFrame(frame: Int64(k), body: Self.body(Double(k))))))
      case 1: events.append(InputEvent(t: t, payload: .justPhoto(JustPhotoEvent(kind: .shutter_tap))))
      case 2: events.append(InputEvent(t: t, payload: .justPhoto(JustPhotoEvent(kind: .thermal, fields: ["state": "fair", "k": .number(Double(k))]))))
      default: events.append(InputEvent(t: t, payload: .luma(LumaFrame(frame: Int64(k), w: 1, h: 1, data: [UInt8(k)]))))
      }
    }
    let p = try record(events, to: path("merge.jprec"), limit: 64)
    XCTAssertEqual(try readAll(p), events.map(Self.expected))
    let s = try RecordingReader(path: p, definitions: JustPhotoEvents.self).stats()
    XCTAssertEqual(Set(s.channels.map(\.name)), ["landmarks", "ui", "device", "pixels"])
  }

  func testChunksSplitAtTheRawLimit() throws {
    let events = landmarkSession(500)
    let p = try record(events, to: path("split.jprec"), limit: 2000)
    let s = try RecordingReader(path: p, definitions: JustPhotoEvents.self).stats()
    let lm = try XCTUnwrap(s.channels.first { $0.name == "landmarks" })
    XCTAssertGreaterThan(lm.chunks, 20)
    XCTAssertEqual(lm.events, 500)
    XCTAssertEqual(lm.firstT, 0)
    XCTAssertEqual(lm.lastT, 499 * 33)
    let q = try DatabaseQueue(path: p)
    let maxRaw = try q.read { try Int.fetchOne($0, sql: "SELECT MAX(raw_size) FROM chunks") }
    try q.close()
    XCTAssertLessThanOrEqual(maxRaw ?? .max, 2000)
    XCTAssertEqual(try readAll(p), events.map(Self.expected))
    XCTAssertEqual(s.eventsByKind.map(\.kind), ["landmarks"])
    XCTAssertEqual(s.durationMs, 5000)  // the header's duration_ms wins over the last t
    XCTAssertEqual(s.formatVersion, 2)
    XCTAssertTrue(s.complete)
    XCTAssertTrue(s.meta.contains { $0.key == "name" && $0.value == "\"unit\"" })
  }

  func testSeekFindsTheFirstEventAtOrAfterT() throws {
    var events: [InputEvent] = []
    for k in 0..<300 {
      let t = Millis(k / 2 * 10)
      if k % 5 == 0 {
        events.append(InputEvent(t: t, payload: .justPhoto(JustPhotoEvent(kind: .device_motion, fields: ["rms": .number(Double(k))]))))
      } else {
        events.append(InputEvent(t: t, payload: .landmarks(LandmarkFrame(frame: Int64(k), body: Self.body(Double(k))))))
      }
    }
    let p = try record(events, to: path("seek.jprec"), limit: 300)
    let expected = events.map(Self.expected)
    let r = try RecordingReader(path: p, definitions: JustPhotoEvents.self)
    for target: Millis in [0, 5, 10, 333, 740, 1490, 1495, -20] {
      try r.seek(to: target)
      var got: [InputEvent] = []
      while let e = try r.next() { got.append(e) }
      XCTAssertEqual(got, expected.filter { $0.t >= target }, "seek to \(target)")
    }
    try r.seek(to: 100_000)
    XCTAssertNil(try r.next())
  }

  // MARK: damaged files

  /// Rewrites one chunk row (a finished file is in journal_mode=DELETE).
  func tamper(_ p: String, chunk: Int64, data: [UInt8]? = nil, raw: [UInt8]? = nil, count: Int64? = nil) throws {
    let q = try DatabaseQueue(path: p)
    try q.write { db in
      if let raw {
        // A well-formed row (CRC over the row's fields and data) holding a garbage payload.
        let z = Zstd.compress(raw, level: 3)
        let row = try Row.fetchOne(db, sql: "SELECT \(ChunkInfo.columns) FROM chunks WHERE id = ?", arguments: [chunk])!
        let c = try ChunkInfo(row: row)
        let crc = z.withUnsafeBytes {
          JPRec.chunkCRC32(
            channelID: c.channelID, startMs: c.startMs, endMs: c.endMs, count: c.count, firstSeq: c.firstSeq,
            rawSize: Int64(raw.count), data: $0)
        }
        try db.execute(
          sql: "UPDATE chunks SET data = ?, crc32 = ?, raw_size = ? WHERE id = ?",
          arguments: [Data(z), Int64(crc), raw.count, chunk])
      }
      if let data { try db.execute(sql: "UPDATE chunks SET data = ? WHERE id = ?", arguments: [Data(data), chunk]) }
      if let count { try db.execute(sql: "UPDATE chunks SET count = ? WHERE id = ?", arguments: [count, chunk]) }
    }
    try q.close()
  }

  func chunkData(_ p: String, _ id: Int64) throws -> [UInt8] {
    let q = try DatabaseQueue(path: p)
    defer { try? q.close() }
    return [UInt8](try q.read { try Data.fetchOne($0, sql: "SELECT data FROM chunks WHERE id = ?", arguments: [id]) } ?? Data())
  }

  func landmarkSession(_ n: Int) -> [InputEvent] {
    var out: [InputEvent] = []
    for k in 0..<n {
      let t = Millis(k) * 33
      let f = LandmarkFrame(
        frame: Int64(k), srcT: t, body: Self.body(Double(k)), faces: [Self.face(Double(k), full: true)], people: 1)
      out.append(InputEvent(t: t, payload: .landmarks(f)))
    }
    return out
  }

  func testACRCMismatchNamesTheChunkAndDoctorAndRecoverHandleIt() throws {
    let p = try record(landmarkSession(300), to: path("crc.jprec"), limit: 1500)
    var d = try chunkData(p, 3)
    d[d.count / 2] ^= 0x5A
    try tamper(p, chunk: 3, data: d)
    let r = try RecordingReader(path: p, definitions: JustPhotoEvents.self)
    assertThrows({ while try r.next() != nil {} }, contains: ["crc.jprec", "chunk 3 (channel landmarks, ", " ms): CRC mismatch (stored 0x"])

    let report = Doctor.check(path: p, definitions: JustPhotoEvents.self)
    XCTAssertFalse(report.ok)
    XCTAssertEqual(report.badChunks, [3])
    XCTAssertTrue(report.lines.joined(separator: "\n").contains("chunk 3"))
    XCTAssertGreaterThan(report.chunksChecked, 5)

    let out = path("recovered.jprec")
    let rec = try Doctor.recover(from: p, to: out, definitions: JustPhotoEvents.self)
    XCTAssertEqual(rec.lostChunks.count, 1)
    XCTAssertTrue(rec.lostChunks[0].hasPrefix("chunk 3 (landmarks, "), rec.lostChunks[0])
    XCTAssertTrue(rec.lostChunks[0].contains("events): CRC mismatch"), rec.lostChunks[0])
    XCTAssertEqual(rec.kept, report.chunksChecked - 1)
    XCTAssertTrue(rec.verify.ok, rec.verify.lines.joined(separator: "\n"))
    let back = try RecordingReader(path: out, definitions: JustPhotoEvents.self)
    XCTAssertTrue(back.isComplete)
    XCTAssertNotNil(back.header["recovered_from"])
    XCTAssertNotNil(back.header["recovery_lost"])
    var n = 0
    while try back.next() != nil { n += 1 }
    XCTAssertEqual(n, report.events)
    XCTAssertLessThan(n, 300)
    // recover never overwrites.
    assertThrows({ _ = try Doctor.recover(from: p, to: out, definitions: JustPhotoEvents.self) }, contains: ["recovered.jprec", "exists"])
  }

  /// The background prefetch of the next chunk must not change what a reader sees: every event
  /// before a damaged chunk is delivered, in order, and the error comes exactly at that chunk.
  func testADamagedChunkFailsOnlyWhenItsTurnComes() throws {
    let events = landmarkSession(300)
    let p = try record(events, to: path("late.jprec"), limit: 1500)
    let q = try DatabaseQueue(path: p)
    let before = try q.read { try Int.fetchOne($0, sql: "SELECT SUM(count) FROM chunks WHERE id < 4") } ?? 0
    try q.close()
    var d = try chunkData(p, 4)
    d[d.count / 3] ^= 0x01
    try tamper(p, chunk: 4, data: d)
    let r = try RecordingReader(path: p, definitions: JustPhotoEvents.self)
    var got: [InputEvent] = []
    assertThrows({ while let e = try r.next() { got.append(e) } }, contains: ["late.jprec", "chunk 4 (channel landmarks, ", "CRC mismatch"])
    XCTAssertGreaterThan(before, 0)
    XCTAssertEqual(got.count, before)
    XCTAssertTrue(got == Array(events.prefix(before)).map(Self.expected), "the events before the bad chunk differ")
    // After an error the reader stays at its end; a seek before the bad chunk reads again.
    XCTAssertNil(try r.next())
    try r.seek(to: 0)
    XCTAssertEqual(try r.next(), Self.expected(events[0]))
  }

  func testATruncatedFileIsRefused() throws {
    let p = try record(landmarkSession(400), to: path("cut.jprec"), limit: 4000)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: p))
    try bytes.prefix(bytes.count * 2 / 3).write(to: URL(fileURLWithPath: p))
    assertThrows({ _ = try RecordingReader(path: p, definitions: JustPhotoEvents.self) }, contains: ["cut.jprec", "truncated"])
    XCTAssertFalse(Doctor.check(path: p, definitions: JustPhotoEvents.self).ok)
  }

  func testAFileThatIsNotSQLiteIsRefused() throws {
    let p = path("notes.jprec")
    try Data("these are not the bytes you are looking for\n".utf8).write(to: URL(fileURLWithPath: p))
    assertThrows({ _ = try RecordingReader(path: p, definitions: JustPhotoEvents.self) }, contains: ["notes.jprec: ", "not a .jprec recording: not an SQLite database"])
    let report = Doctor.check(path: p, definitions: JustPhotoEvents.self)
    XCTAssertFalse(report.ok)
    XCTAssertTrue(report.problems[0].contains("not an SQLite database"))
    let empty = path("empty.jprec")
    _ = FileManager.default.createFile(atPath: empty, contents: Data())
    assertThrows({ _ = try RecordingReader(path: empty, definitions: JustPhotoEvents.self) }, contains: ["empty.jprec", "not a .jprec"])
    assertThrows({ _ = try RecordingReader(path: path("missing.jprec"), definitions: JustPhotoEvents.self) }, contains: ["missing.jprec", "no such file"])
  }

  func testAnotherSQLiteDatabaseIsRefused() throws {
    let p = path("other.sqlite")
    let q = try DatabaseQueue(path: p)
    try q.write { try $0.execute(sql: "CREATE TABLE t(x)") }
    try q.close()
    assertThrows({ _ = try RecordingReader(path: p, definitions: JustPhotoEvents.self) }, contains: ["other.sqlite", "application_id", "0x4A505243"])
  }

  func testANewerFormatVersionNamesBothVersions() throws {
    let p = try record(landmarkSession(10), to: path("v9.jprec"))
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: p)))
    bytes[60] = 0; bytes[61] = 0; bytes[62] = 0; bytes[63] = 9
    try Data(bytes).write(to: URL(fileURLWithPath: p))
    assertThrows(
      { _ = try RecordingReader(path: p, definitions: JustPhotoEvents.self) },
      contains: ["v9.jprec", "recording format version 9 is newer than this jpreplay understands (version 2)"])
  }

  func testGarbagePayloadsWithAValidCRCNeverTrap() throws {
    let p = try record(landmarkSession(40) + [InputEvent(t: 5000, payload: .justPhoto(JustPhotoEvent(kind: .label, fields: ["cue_id": "X", "holds": true])))], to: path("g.jprec"), limit: 400)
    let q = try DatabaseQueue(path: p)
    let ids = try q.read { try Int64.fetchAll($0, sql: "SELECT id FROM chunks ORDER BY id") }
    let raws: [[UInt8]] = try q.read { db in
      try Row.fetchAll(db, sql: "SELECT data, raw_size FROM chunks ORDER BY id").map { row in
        try Zstd.decompress([UInt8](row[0] as Data), expectedSize: row[1])
      }
    }
    try q.close()
    let originals = try chunkData(p, ids[1])
    var garbage: [[UInt8]] = [
      [], [0], [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
      [5, 0, 0, 0, 0xFF, 0x80], [3, 0, 0, 0], [0x7F] + Array(repeating: 0xFF, count: 200),
      [20, 0, 0, 0, 0, 0x7F, 0x90, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0, 0, 0, 0],
    ]
    // Systematic damage of a real payload: every byte flipped in turn, plus truncations.
    var g = SystemRandomNumberGenerator()
    let base = raws[1]
    for i in stride(from: 0, to: base.count, by: 3) {
      var m = base
      m[i] ^= UInt8.random(in: 1...255, using: &g)
      garbage.append(m)
    }
    for n in stride(from: 0, to: base.count, by: 17) { garbage.append(Array(base.prefix(n))) }
    for _ in 0..<60 { garbage.append((0..<Int.random(in: 1...300, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) }) }
    var errors = 0
    for (k, raw) in garbage.enumerated() {
      try tamper(p, chunk: ids[1], raw: raw)
      do {
        let r = try RecordingReader(path: p, definitions: JustPhotoEvents.self)
        while try r.next() != nil {}
      } catch {
        errors += 1
        // Usually the damaged chunk itself; garbage that decodes to plausible events is caught
        // by the next chunk's order check.
        let d = "\(error)"
        XCTAssertTrue(d.contains("chunk \(ids[1]) (channel landmarks") || d.contains("chunk \(ids[2]) (channel landmarks") && d.contains("overlaps") || d.contains("sequence number"), "case \(k): \(d)")
      }
      _ = Doctor.check(path: p, definitions: JustPhotoEvents.self)
    }
    XCTAssertGreaterThan(errors, garbage.count / 2)
    // A count that cannot fit is refused before decoding.
    try tamper(p, chunk: ids[1], data: originals, count: 1 << 40)
    assertThrows({ let r = try RecordingReader(path: p, definitions: JustPhotoEvents.self); while try r.next() != nil {} }, contains: ["chunk \(ids[1])"])
  }

  // MARK: unfinished recordings

  func testADroppedRecorderLeavesAnIncompleteButReadableFile() throws {
    let p = path("dropped.jprec")
    let events = landmarkSession(200)
    do {
      let r = try Recorder(path: p, header: Self.header, chunkRawLimit: 1000, definitions: JustPhotoEvents.self)
      for e in events { try r.append(e) }
      // No finish(): the open chunk is lost, like a crash.
    }
    let r = try RecordingReader(path: p, definitions: JustPhotoEvents.self)
    XCTAssertFalse(r.isComplete)
    XCTAssertEqual(r.header, Self.header)
    var got: [InputEvent] = []
    while let e = try r.next() { got.append(e) }
    XCTAssertGreaterThan(got.count, 100)
    XCTAssertLessThan(got.count, 200)
    XCTAssertEqual(got, Array(events.map(Self.expected).prefix(got.count)))
    XCTAssertFalse(try r.stats().complete)
    XCTAssertEqual(try r.stats().eventsByKind.first?.count, got.count)
    let report = Doctor.check(path: p, definitions: JustPhotoEvents.self)
    XCTAssertFalse(report.ok)
    XCTAssertTrue(report.problems.contains { $0.hasPrefix("incomplete: recording was not finished (writer stopped after \(got.count) events, last t=") }, "\(report.problems)")
    let out = path("fixed.jprec")
    let rec = try Doctor.recover(from: p, to: out, definitions: JustPhotoEvents.self)
    XCTAssertTrue(rec.verify.ok, rec.verify.lines.joined(separator: "\n"))
    XCTAssertEqual(try readAll(out), got)
  }

  func testAFileLeftByAKilledWriterOpensWithItsWAL() throws {
    let p = path("live.jprec")
    let events = landmarkSession(300)
    let rec = try Recorder(path: p, header: Self.header, chunkRawLimit: 1000, definitions: JustPhotoEvents.self)
    for e in events { try rec.append(e) }
    // Snapshot the files as a `kill -9` would leave them: database + -wal (+ -shm).
    let copy = path("killed.jprec")
    for s in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: p + s) {
      try FileManager.default.copyItem(atPath: p + s, toPath: copy + s)
    }
    XCTAssertTrue(FileManager.default.fileExists(atPath: copy + "-wal"))
    try rec.finish()
    let r = try RecordingReader(path: copy, definitions: JustPhotoEvents.self)
    XCTAssertFalse(r.isComplete)
    var n = 0
    while try r.next() != nil { n += 1 }
    XCTAssertGreaterThan(n, 200)
    XCTAssertLessThan(n, 300)
    XCTAssertTrue(Doctor.check(path: copy, definitions: JustPhotoEvents.self).problems.contains { $0.hasPrefix("incomplete") })
    // The finished original is complete.
    XCTAssertEqual(try readAll(p).count, 300)
  }

  // MARK: writer rules

  func testTheRecorderRefusesBadInput() throws {
    let p = try record(landmarkSession(3), to: path("x.jprec"))
    assertThrows({ _ = try Recorder(path: p, header: Self.header, definitions: JustPhotoEvents.self) }, contains: ["x.jprec", "already exists"])
    let r = try Recorder(path: path("order.jprec"), header: Self.header, definitions: JustPhotoEvents.self)
    try r.append(InputEvent(t: 10, payload: .justPhoto(JustPhotoEvent(kind: .shutter_tap))))
    assertThrows({ try r.append(InputEvent(t: 9, payload: .justPhoto(JustPhotoEvent(kind: .shutter_tap)))) }, contains: ["order.jprec", "t=9 after t=10"])
    try r.finish()
    assertThrows({ try r.append(InputEvent(t: 11, payload: .justPhoto(JustPhotoEvent(kind: .shutter_tap)))) }, contains: ["finished"])
    assertThrows({ _ = try Recorder(path: path("h.jprec"), header: ["jprec.complete": true], definitions: JustPhotoEvents.self) }, contains: ["reserved"])
  }
}
