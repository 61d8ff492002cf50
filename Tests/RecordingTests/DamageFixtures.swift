import CanonicalJSON
import EngineIO
import Foundation
import GRDB
import JustPhotoIO
@testable import Recording


/// Builds recordings and damages them in code (issue 12: C2, H5, S1, S2, D1–D3).
enum Damage {
  static func tempDir(_ tag: String) throws -> URL {
    let d = FileManager.default.temporaryDirectory.appendingPathComponent("jprec-damage-\(tag)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
    return d
  }

  static let header: JSONObject = [
    "format": "jp-replay/1", "wall_start_ms": 1_770_860_000_000, "duration_ms": 5000,
    "initial": .object(["scene": "cafe"]), "name": "damage",
  ]

  /// 200 landmark frames (33 ms apart), a luma plane every 10th frame, a sensor reading every
  /// 5th: three channels, several chunks each (small chunk limit).
  static func session() -> [InputEvent] {
    var out: [InputEvent] = []
    for k in 0..<200 {
      let t = Millis(k) * 33
      var b = BodyPose()
      for j in 0..<19 { b.points[j] = JointPoint(x: 0.3 + Double(j) * 0.02 + Double(k) * 0.001, y: 0.8 - Double(j) * 0.03, conf: 0.9) }
      out.append(InputEvent(t: t, payload: .landmarks(LandmarkFrame(frame: Int64(k), srcT: t, body: b, people: 1))))
      if k % 10 == 0 {
        out.append(InputEvent(t: t, payload: .luma(LumaFrame(frame: Int64(k), w: 4, h: 3, data: (0..<12).map { UInt8(($0 * 20 + k) % 256) }))))
      }
      if k % 5 == 0 {
        out.append(InputEvent(t: t, payload: .justPhoto(JustPhotoEvent(kind: .label, fields: ["cue_id": "X", "holds": .bool(k % 2 == 0)]))))
      }
    }
    return out
  }

  @discardableResult
  static func record(_ path: String, _ events: [InputEvent] = session(), limit: Int = 600) throws -> String {
    let r = try Recorder(path: path, header: header, chunkRawLimit: limit, definitions: JustPhotoEvents.self)
    for e in events { try r.append(e) }
    try r.finish()
    return path
  }

  static func readAll(_ path: String) throws -> [InputEvent] {
    let r = try RecordingReader(path: path, definitions: JustPhotoEvents.self)
    var out: [InputEvent] = []
    while let e = try r.next() { out.append(e) }
    return out
  }

  static func sql(_ path: String, _ statements: String...) throws {
    let q = try DatabaseQueue(path: path)
    try q.write { db in for s in statements { try db.execute(sql: s) } }
    try q.close()
  }

  static func chunks(_ path: String) throws -> [ChunkInfo] {
    let q = try DatabaseQueue(path: path)
    defer { try? q.close() }
    return try q.read { db in
      try Row.fetchAll(db, sql: "SELECT \(ChunkInfo.columns) FROM chunks ORDER BY id").map { try ChunkInfo(row: $0) }
    }
  }

  /// Replaces a chunk's payload by `raw` with a row CRC that matches (a "valid" hostile chunk),
  /// optionally claiming another raw size than the payload has.
  static func rewriteChunk(_ path: String, id: Int64, raw: [UInt8], claimedRawSize: Int64? = nil, count: Int64? = nil) throws {
    let q = try DatabaseQueue(path: path)
    try q.write { db in
      let c = try ChunkInfo(row: try Row.fetchOne(db, sql: "SELECT \(ChunkInfo.columns) FROM chunks WHERE id = ?", arguments: [id])!)
      let z = Zstd.compress(raw, level: 3)
      let rawSize = claimedRawSize ?? Int64(raw.count)
      let n = count ?? c.count
      let crc = z.withUnsafeBytes {
        JPRec.chunkCRC32(channelID: c.channelID, startMs: c.startMs, endMs: c.endMs, count: n, firstSeq: c.firstSeq, rawSize: rawSize, data: $0)
      }
      try db.execute(
        sql: "UPDATE chunks SET data = ?, raw_size = ?, count = ?, crc32 = ? WHERE id = ?",
        arguments: [Data(z), rawSize, n, Int64(crc), id])
    }
    try q.close()
  }

  /// Sets meta `key` to `value` and, with `fixCRC`, rewrites the meta CRC to match (a careful
  /// editor); without it the CRC is left as the writer stored it.
  static func setMeta(_ path: String, _ key: String, _ value: String, fixCRC: Bool) throws {
    let q = try DatabaseQueue(path: path)
    try q.write { db in
      try db.execute(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", arguments: [key, value])
      if fixCRC { try Recorder.putMetaCRC(db) }
    }
    try q.close()
  }

  /// The payload of one `luma` event at the chunk's start, encoded as the writer does.
  static func lumaPayload(_ luma: LumaFrame, chunk c: ChunkInfo) -> [UInt8] {
    var enc = EventEncoder(startT: c.startMs, firstSeq: c.firstSeq)
    var w = ByteWriter()
    enc.encode(InputEvent(t: c.startMs, payload: .luma(luma)), seq: c.firstSeq, kindIndex: KindTable.index(of: JustPhotoEvents.kindTable)[InputPayload.lumaKind]!, into: &w)
    return w.payload()
  }

  /// Flips one byte inside the B-tree page of the index `chunks_channel_start` (its cell
  /// content area, at the end of the page).
  static func flipIndexPage(_ path: String) throws {
    let q = try DatabaseQueue(path: path)
    let (root, pageSize) = try q.read { db in
      (
        try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'chunks_channel_start'")!,
        try Int.fetchOne(db, sql: "PRAGMA page_size")!
      )
    }
    try q.close()
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    let at = root * pageSize - 3  // last bytes of the page: inside the last cell's key
    bytes[at] ^= 0x41
    try Data(bytes).write(to: URL(fileURLWithPath: path))
  }
}
