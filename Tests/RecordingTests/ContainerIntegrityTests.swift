import EngineIO
import Foundation
import GRDB
import JustPhotoIO
@testable import Recording
import Testing


/// Issue 12: hostile and damaged `.jprec` files (docs/FORMAT-jprec.md §2.1, §6) are refused
/// with a `RecordingError` naming the place — never a trap, a huge allocation or a silently
/// different event stream — and `doctor` sees every such damage.
@Suite struct ContainerIntegrityTests {
  func expectRefused(_ path: String, _ parts: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    do {
      _ = try Damage.readAll(path)
      Issue.record("expected the recording to be refused (\(parts))", sourceLocation: sourceLocation)
    } catch {
      for p in parts { #expect("\(error)".contains(p), "\("\(error)")", sourceLocation: sourceLocation) }
    }
  }

  /// A session whose pixels channel is one chunk with one luma event.
  func oneLumaSession() -> [InputEvent] {
    [InputEvent(t: 0, payload: .luma(LumaFrame(frame: 0, w: 4, h: 3, data: Array(0..<12))))]
      + Damage.session().filter { if case .landmarks = $0.payload { return true } else { return false } }
  }

  func pixelsChunk(_ path: String) throws -> ChunkInfo {
    try #require(try Damage.chunks(path).first { $0.channelID == JPRec.channelID(.pixels) })
  }

  @Test func theUndamagedSessionReadsBackAndDoctorSaysOk() throws {
    let d = try Damage.tempDir("ok")
    defer { try? FileManager.default.removeItem(at: d) }
    let p = try Damage.record(d.appendingPathComponent("s.jprec").path)
    #expect(try Damage.readAll(p).count == Damage.session().count)
    let r = Doctor.check(path: p, definitions: JustPhotoEvents.self)
    #expect(r.status == .ok, "\(r.lines)")
    #expect(try Damage.chunks(p).count > 6)
  }

  // C2: w = h = 2^32 with valid CRCs.
  @Test func aLumaPlaneOf2To32SquaredPixelsIsRefusedNotTrapped() throws {
    let d = try Damage.tempDir("c2")
    defer { try? FileManager.default.removeItem(at: d) }
    let p = try Damage.record(d.appendingPathComponent("c2.jprec").path, oneLumaSession())
    let c = try pixelsChunk(p)
    let raw = Damage.lumaPayload(LumaFrame(frame: 0, w: 1 << 32, h: 1 << 32, data: [1, 2, 3]), chunk: c)
    #expect(c.count == 1)
    try Damage.rewriteChunk(p, id: c.id, raw: raw)
    expectRefused(p, ["c2.jprec", "chunk \(c.id) (channel pixels", "4294967296×4294967296", "lumaPixelsMax"])
    #expect(Doctor.check(path: p, definitions: JustPhotoEvents.self).status == .damaged)
  }

  @Test func aLumaByteCountThatIsNotWTimesHIsRefused() throws {
    let d = try Damage.tempDir("c2b")
    defer { try? FileManager.default.removeItem(at: d) }
    let p = try Damage.record(d.appendingPathComponent("c2b.jprec").path, oneLumaSession())
    let c = try pixelsChunk(p)
    let raw = Damage.lumaPayload(LumaFrame(frame: 0, w: 4, h: 3, data: [1, 2, 3]), chunk: c)
    try Damage.rewriteChunk(p, id: c.id, raw: raw)
    expectRefused(p, ["chunk \(c.id) (channel pixels", "3 bytes of data for 4×3 pixels; expected w·h = 12"])
    // The writer refuses the same event before it reaches a chunk.
    let r = try Recorder(path: d.appendingPathComponent("w.jprec").path, header: Damage.header, definitions: JustPhotoEvents.self)
    #expect(throws: RecordingError.self) { try r.append(InputEvent(t: 0, payload: .luma(LumaFrame(frame: 0, w: 4, h: 3, data: [1])))) }
    #expect(throws: RecordingError.self) {
      try r.append(InputEvent(t: 0, payload: .luma(LumaFrame(frame: 0, w: Int.max, h: 2, data: []))))
    }
  }

  // H5: chunks may not claim a huge raw size or event count; checked before allocating.
  @Test func aChunkClaimingAGibibyteRawIsRefusedBeforeAllocating() throws {
    let d = try Damage.tempDir("h5")
    defer { try? FileManager.default.removeItem(at: d) }
    let p = try Damage.record(d.appendingPathComponent("h5.jprec").path)
    let c = try #require(try Damage.chunks(p).first)
    // 1 GiB of zeros compresses to a few KiB; the row claims it with a matching CRC.
    try Damage.rewriteChunk(p, id: c.id, raw: [0, 0, 0], claimedRawSize: 1 << 30)
    expectRefused(p, ["chunk \(c.id)", "raw size 1073741824 bytes is more than the \(ContainerLimits.chunkRawBytesMax)", "chunkRawBytesMax"])
    let r = Doctor.check(path: p, definitions: JustPhotoEvents.self)
    #expect(r.status == .damaged)
    #expect(r.badChunks == [c.id])
  }

  @Test func aChunkClaimingMoreEventsThanTheBoundIsRefused() throws {
    let d = try Damage.tempDir("h5b")
    defer { try? FileManager.default.removeItem(at: d) }
    let p = try Damage.record(d.appendingPathComponent("h5b.jprec").path)
    let c = try #require(try Damage.chunks(p).first)
    try Damage.rewriteChunk(p, id: c.id, raw: [UInt8](repeating: 0, count: 1 << 21), count: Int64(ContainerLimits.chunkEventsMax) + 1)
    expectRefused(p, ["chunk \(c.id)", "chunkEventsMax"])
  }

  // S1: a damaged index page must not make chunks disappear.
  @Test func aFlippedByteInTheChunkIndexNeitherHidesEventsNorPassesDoctor() throws {
    let d = try Damage.tempDir("s1")
    defer { try? FileManager.default.removeItem(at: d) }
    let p = try Damage.record(d.appendingPathComponent("s1.jprec").path)
    let before = try Damage.readAll(p)
    try Damage.flipIndexPage(p)
    // The reader scans the table itself (never the index): every event is still there.
    #expect(try Damage.readAll(p).count == before.count)
    // `info` counts from the same scan: not "events: 0".
    let stats = try RecordingReader(path: p, definitions: JustPhotoEvents.self).stats()
    #expect(stats.channels.reduce(0) { $0 + $1.events } == before.count)
    #expect(stats.channels.allSatisfy { $0.storedBytes > 0 && $0.chunks > 0 })
    let r = Doctor.check(path: p, definitions: JustPhotoEvents.self)
    #expect(r.status == .damaged, "\(r.lines)")
    #expect(r.problems.contains { $0.hasPrefix("SQLite integrity check") }, "\(r.problems)")
  }

  @Test func countsThatDisagreeWithTheChunksAreRefusedAtOpen() throws {
    let d = try Damage.tempDir("s1b")
    defer { try? FileManager.default.removeItem(at: d) }
    let p = try Damage.record(d.appendingPathComponent("s1b.jprec").path)
    try Damage.sql(p, "DELETE FROM chunks")
    expectRefused(p, ["s1b.jprec", "channel landmarks", "its chunks hold 0 events but meta \"jprec.event_counts\" declares 200"])
    #expect(throws: RecordingError.self) { _ = try RecordingReader(path: p, definitions: JustPhotoEvents.self).stats() }
  }

  // S2: deleting a chunk row, changing first_seq, or editing meta.
  @Test func aDeletedChunkRowIsRefusedAndRecoverOutputReads() throws {
    let d = try Damage.tempDir("s2a")
    defer { try? FileManager.default.removeItem(at: d) }
    let p = try Damage.record(d.appendingPathComponent("s2a.jprec").path)
    let victim = try Damage.chunks(p).filter { $0.channelID == JPRec.channelID(.landmarks) }[1]
    try Damage.sql(p, "DELETE FROM chunks WHERE id = \(victim.id)")
    expectRefused(p, ["channel landmarks", "its chunks hold \(200 - victim.count) events"])
    let r = Doctor.check(path: p, definitions: JustPhotoEvents.self)
    #expect(r.status == .damaged)
    #expect(r.problems.contains { $0.contains("declares 200 landmarks events, the readable chunks hold \(200 - victim.count)") }, "\(r.problems)")
    let out = d.appendingPathComponent("rec.jprec").path
    let rec = try Doctor.recover(from: p, to: out, definitions: JustPhotoEvents.self)
    #expect(rec.verify.status == .ok, "\(rec.verify.lines)")
    #expect(try Damage.readAll(out).count == Damage.session().count - Int(victim.count))
  }

  @Test func aChunkIndexDeclaringMoreEventsThanARecordingHoldsIsRefusedAtOpen() throws {
    let d = try Damage.tempDir("declared")
    defer { try? FileManager.default.removeItem(at: d) }
    let p = try Damage.record(d.appendingPathComponent("big.jprec").path)
    // Five landmark chunk rows and four pixel chunk rows, each claiming chunkEventsMax events:
    // each channel within the bound, together 9 · 2^17 > 2^20; no chunk needs to be read to see it.
    let n = Int64(ContainerLimits.chunkEventsMax)
    var statements: [String] = []
    for (channel, copies) in [(JPRec.channelID(.landmarks), 4), (JPRec.channelID(.pixels), 3)] {
      let first = try #require(try Damage.chunks(p).first { $0.channelID == channel })
      statements.append("UPDATE chunks SET count = \(n), raw_size = \(3 * n) WHERE id = \(first.id)")
      for _ in 0..<copies {
        statements.append(
          "INSERT INTO chunks(channel_id, start_ms, end_ms, count, first_seq, raw_size, crc32, data) SELECT channel_id, start_ms, end_ms, count, first_seq, raw_size, crc32, data FROM chunks WHERE id = \(first.id)")
      }
    }
    for s in statements { try Damage.sql(p, s) }
    // The meta counts (which the reader checks against the bound too) removed, as in a file whose
    // writer was killed, the meta CRC made to agree: only the chunk index says how many.
    try Damage.sql(p, "DELETE FROM meta WHERE key = '\(JPRec.metaEventCounts)'")
    try Damage.setMeta(p, "jprec.complete", "false", fixCRC: true)
    do {
      _ = try RecordingReader(path: p, definitions: JustPhotoEvents.self)
      Issue.record("opened a recording declaring more than ContainerLimits.recordingEventsMax events")
    } catch {
      #expect(error.description.contains("ContainerLimits.recordingEventsMax") && error.description.contains("big.jprec"), "\(error.description)")
    }
  }

  @Test func aDeletedChunkWithPatchedCountsIsASequenceGap() throws {
    let d = try Damage.tempDir("s2gap")
    defer { try? FileManager.default.removeItem(at: d) }
    let p = try Damage.record(d.appendingPathComponent("gap.jprec").path)
    let victim = try Damage.chunks(p).filter { $0.channelID == JPRec.channelID(.landmarks) }[1]
    try Damage.sql(p, "DELETE FROM chunks WHERE id = \(victim.id)")
    // A careful editor also patches the counts and the meta CRC: the sequence gap remains.
    try Damage.setMeta(p, JPRec.metaEventCounts, "{\"label\":40,\"landmarks\":\(200 - victim.count),\"luma\":20}", fixCRC: true)
    expectRefused(p, ["gap.jprec", "where \(victim.firstSeq) was expected", "is missing"])
    #expect(Doctor.check(path: p, definitions: JustPhotoEvents.self).status == .damaged)
  }

  @Test func aChangedFirstSeqFailsTheChunkCRC() throws {
    let d = try Damage.tempDir("s2b")
    defer { try? FileManager.default.removeItem(at: d) }
    let p = try Damage.record(d.appendingPathComponent("s2b.jprec").path)
    let c = try Damage.chunks(p)[2]
    try Damage.sql(p, "UPDATE chunks SET first_seq = first_seq + 1 WHERE id = \(c.id)")
    expectRefused(p, ["chunk \(c.id)", "CRC mismatch"])
    let r = Doctor.check(path: p, definitions: JustPhotoEvents.self)
    #expect(r.badChunks == [c.id])
    try Damage.sql(p, "UPDATE chunks SET first_seq = first_seq - 1 WHERE id = \(c.id)")
    #expect(Doctor.check(path: p, definitions: JustPhotoEvents.self).status == .ok)
    try Damage.sql(p, "UPDATE chunks SET start_ms = start_ms - 1 WHERE id = \(c.id)")
    #expect(Doctor.check(path: p, definitions: JustPhotoEvents.self).badChunks == [c.id])
  }

  @Test func anEditedHeaderValueFailsTheMetaCRCAndRecoverOutputReads() throws {
    let d = try Damage.tempDir("s2c")
    defer { try? FileManager.default.removeItem(at: d) }
    let p = try Damage.record(d.appendingPathComponent("s2c.jprec").path)
    try Damage.setMeta(p, "initial", "false", fixCRC: false)
    expectRefused(p, ["s2c.jprec", "meta", "CRC mismatch", "altered or damaged"])
    let r = Doctor.check(path: p, definitions: JustPhotoEvents.self)
    #expect(r.status == .damaged)
    #expect(r.problems.contains { $0.contains("CRC mismatch") })
    let out = d.appendingPathComponent("rec.jprec").path
    let rec = try Doctor.recover(from: p, to: out, definitions: JustPhotoEvents.self)
    #expect(rec.lostChunks.contains { $0.hasPrefix("meta: CRC mismatch") }, "\(rec.lostChunks)")
    #expect(rec.verify.status == .ok, "\(rec.verify.lines)")
    #expect(try Damage.readAll(out).count == Damage.session().count)
  }

  // D1–D3: doctor parses meta as the reader does, and recover output is what the reader reads.
  @Test func aMetaValueThatIsNotJSONIsDamageAndRecoverDropsIt() throws {
    let d = try Damage.tempDir("d1")
    defer { try? FileManager.default.removeItem(at: d) }
    let p = try Damage.record(d.appendingPathComponent("d1.jprec").path)
    try Damage.setMeta(p, "duration_ms", "{not json", fixCRC: true)
    expectRefused(p, ["meta \"duration_ms\"", "not valid JSON"])
    let r = Doctor.check(path: p, definitions: JustPhotoEvents.self)
    #expect(r.status == .damaged)
    #expect(r.problems.contains { $0.hasPrefix("meta \"duration_ms\": not valid JSON") }, "\(r.problems)")
    let out = d.appendingPathComponent("rec.jprec").path
    let rec = try Doctor.recover(from: p, to: out, definitions: JustPhotoEvents.self)
    #expect(rec.verify.status == .ok, "\(rec.verify.lines)")
    let back = try RecordingReader(path: out, definitions: JustPhotoEvents.self)
    #expect(back.header["duration_ms"] == nil)
    #expect(back.header["name"] == "damage")
  }

  @Test func aWrongKindOfMetaValueIsDamage() throws {
    let d = try Damage.tempDir("d2")
    defer { try? FileManager.default.removeItem(at: d) }
    let p = try Damage.record(d.appendingPathComponent("d2.jprec").path)
    try Damage.setMeta(p, JPRec.metaComplete, "\"yes\"", fixCRC: true)
    expectRefused(p, ["meta \"jprec.complete\"", "expected true or false"])
    #expect(Doctor.check(path: p, definitions: JustPhotoEvents.self).status == .damaged)
    let out = d.appendingPathComponent("rec.jprec").path
    #expect(try Doctor.recover(from: p, to: out, definitions: JustPhotoEvents.self).verify.status == .ok)
  }

  @Test func doctorSaysUnreadableForAFileThatIsNoRecording() throws {
    let d = try Damage.tempDir("d3")
    defer { try? FileManager.default.removeItem(at: d) }
    let p = d.appendingPathComponent("x.jprec").path
    try Data("hello".utf8).write(to: URL(fileURLWithPath: p))
    #expect(Doctor.check(path: p, definitions: JustPhotoEvents.self).status == .unreadable)
    #expect(Doctor.check(path: d.appendingPathComponent("missing.jprec").path, definitions: JustPhotoEvents.self).status == .unreadable)
  }

  @Test func aVersion1FileIsRefusedWithWhatToDo() throws {
    let d = try Damage.tempDir("v1")
    defer { try? FileManager.default.removeItem(at: d) }
    let p = try Damage.record(d.appendingPathComponent("v1.jprec").path)
    try Damage.sql(p, "PRAGMA user_version = 1")
    expectRefused(p, ["format version 1 is no longer read", "jpreplay record", "jpreplay import --force"])
  }

  // Issue 34: an event larger than an ordinary chunk (a PixScan library snapshot of 60,000
  // photos is 4.7 MB) goes alone into its chunk and reads back; so does the doctor's check.
  @Test func anEventLargerThanAChunkIsWrittenAloneAndReadsBack() throws {
    let d = try Damage.tempDir("single")
    defer { try? FileManager.default.removeItem(at: d) }
    let path = d.appendingPathComponent("single.jprec").path
    let r = try Recorder(path: path, header: Damage.header, definitions: JustPhotoEvents.self)
    let big = String(repeating: "x", count: ContainerLimits.chunkRawBytesMax + 1000)
    try r.append(InputEvent(t: 0, payload: .justPhoto(JustPhotoEvent(kind: .label, fields: ["cue_id": "A"]))))
    try r.append(InputEvent(t: 1, payload: .justPhoto(JustPhotoEvent(kind: .label, fields: ["cue_id": .string(big)]))))
    try r.append(InputEvent(t: 2, payload: .justPhoto(JustPhotoEvent(kind: .label, fields: ["cue_id": "B"]))))
    try r.finish()
    let events = try Damage.readAll(path)
    #expect(events.count == 3)
    #expect(events.map(\.t) == [0, 1, 2])
    #expect(events[1].jsonFields?["cue_id"]?.stringValue?.utf8.count == big.utf8.count)
    #expect(Doctor.check(path: path, definitions: JustPhotoEvents.self).status == .ok)
  }

  // The writer refuses what the reader would refuse, so everything it writes reads back.
  @Test func theWriterRefusesEventsBeyondTheLimits() throws {
    let d = try Damage.tempDir("w")
    defer { try? FileManager.default.removeItem(at: d) }
    let r = try Recorder(path: d.appendingPathComponent("faces.jprec").path, header: Damage.header, definitions: JustPhotoEvents.self)
    let faces = Array(repeating: FaceObservation(bbox: Rect(x: 0.1, y: 0.1, w: 0.1, h: 0.1)), count: ContainerLimits.landmarkFacesMax + 1)
    #expect(throws: RecordingError.self) { try r.append(InputEvent(t: 0, payload: .landmarks(LandmarkFrame(frame: 0, faces: faces)))) }
    // Refused before touching the chunk: the recording goes on.
    try r.append(InputEvent(t: 0, payload: .landmarks(LandmarkFrame(frame: 0, faces: Array(faces.prefix(2))))))
    try r.finish()
    #expect(try Damage.readAll(r.path).count == 1)

    let g = try Recorder(path: d.appendingPathComponent("big.jprec").path, header: Damage.header, definitions: JustPhotoEvents.self)
    try g.append(InputEvent(t: 0, payload: .justPhoto(JustPhotoEvent(kind: .label, fields: ["cue_id": "A"]))))
    let huge = String(repeating: "x", count: ContainerLimits.singleEventChunkRawBytesMax)
    do {
      try g.append(InputEvent(t: 1, payload: .justPhoto(JustPhotoEvent(kind: .label, fields: ["cue_id": .string(huge)]))))
      Issue.record("a label event larger than a chunk was accepted")
    } catch {
      #expect("\(error)".contains("singleEventChunkRawBytesMax"))
    }
    // The recording is left unfinished (as after a crash), and still opens.
    #expect(throws: RecordingError.self) { try g.finish() }
    #expect(Doctor.check(path: g.path, definitions: JustPhotoEvents.self).problems.contains { $0.hasPrefix("incomplete") })
  }
}
