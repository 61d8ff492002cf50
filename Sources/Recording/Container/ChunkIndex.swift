import EngineIO
import Foundation
import GRDB

/// The `channels` and `chunks` rows of a recording (without chunk data), checked against
/// `ContainerLimits` and grouped per channel in `(start_ms, id)` order.
///
/// Chunks are read by a full scan of the table in rowid order (`NOT INDEXED`), never through
/// the `chunks_channel_start` index: a damaged index page must not hide chunks (an index that
/// disagrees with its table is what `PRAGMA integrity_check` reports; `doctor` runs it).
struct ChunkIndex {
  /// Channels in id order, with their encoding and their chunks.
  var channels: [(Channel, EventEncoding, [ChunkInfo])] = []

  static func read(_ db: Database, path: String) throws -> ChunkIndex {
    let nChannels = try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM channels") ?? 0
    guard nChannels <= ContainerLimits.channelsMax else {
      throw RecordingError(file: path, place: "channels", "\(nChannels) rows; at most \(ContainerLimits.channelsMax) (channelsMax)")
    }
    let nChunks = try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM chunks NOT INDEXED") ?? 0
    guard nChunks <= ContainerLimits.chunksMax else {
      throw RecordingError(file: path, place: "chunks", "\(nChunks) rows; at most \(ContainerLimits.chunksMax) (chunksMax)")
    }
    var index = ChunkIndex()
    var position: [Int64: Int] = [:]
    for row in try Row.fetchAll(db, sql: "SELECT id, name, encoding FROM channels ORDER BY id") {
      let id: Int64 = try row.decode(atIndex: 0)
      let name: String = try row.decode(atIndex: 1)
      let encoding: String = try row.decode(atIndex: 2)
      guard let ch = Channel(rawValue: name) else {
        throw RecordingError(file: path, place: "channel \(id)", "unknown channel \"\(name)\" (written by a newer jpreplay?)")
      }
      guard id == JPRec.channelID(ch) else {
        throw RecordingError(file: path, place: "channel \(name)", "has id \(id); expected \(JPRec.channelID(ch)) (ids are fixed by the format)")
      }
      guard let enc = EventEncoding(rawValue: encoding) else {
        throw RecordingError(
          file: path, place: "channel \(name)",
          "unknown encoding \"\(encoding)\" (expected one of \(EventEncoding.allCases.map(\.rawValue).joined(separator: ", ")); written by a newer jpreplay?)")
      }
      position[id] = index.channels.count
      index.channels.append((ch, enc, []))
    }
    let rows = try Row.fetchCursor(db, sql: "SELECT \(ChunkInfo.columns) FROM chunks NOT INDEXED ORDER BY id")
    var seen = 0
    while let row = try rows.next() {
      seen += 1
      guard seen <= ContainerLimits.chunksMax else {
        throw RecordingError(file: path, place: "chunks", "more than \(ContainerLimits.chunksMax) rows (chunksMax)")
      }
      let c: ChunkInfo
      do { c = try ChunkInfo(row: row) } catch {
        throw RecordingError(file: path, place: "chunks", "a row has NULL or mistyped columns (run `jpreplay doctor`)")
      }
      guard let i = position[c.channelID] else {
        throw RecordingError(file: path, place: "chunk \(c.id)", "belongs to channel \(c.channelID), which is not in the channels table")
      }
      do throws(CodecError) { try ChunkLoader.checkBounds(c) } catch {
        throw RecordingError(file: path, place: c.place(index.channels[i].0.rawValue), error.message)
      }
      guard c.count > 0, c.endMs >= c.startMs else {
        throw RecordingError(file: path, place: c.place(index.channels[i].0.rawValue), "holds \(c.count) events from \(c.startMs) to \(c.endMs) ms; expected ≥ 1 event and end ≥ start")
      }
      index.channels[i].2.append(c)
    }
    for i in index.channels.indices {
      index.channels[i].2.sort { ($0.startMs, $0.id) < ($1.startMs, $1.id) }
    }
    return index
  }
}
