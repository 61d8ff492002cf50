import CanonicalJSON
import EngineIO
import Foundation
import GRDB

/// The parsed `meta` table of a `.jprec` (docs/FORMAT-jprec.md §2): the header, the container's
/// own keys, and the meta hash check. The reader, `Doctor` and `recover` all parse meta here,
/// so `doctor` accepts exactly what `replay` accepts.
struct RecordingMeta {
  /// Every meta row as stored (key, JSON text), in insertion order.
  var rows: [(key: String, value: String)]
  /// The header: every row whose key does not start with `jprec.`, in row order.
  var header = JSONObject()
  var complete = false
  var kinds: [String] = []
  /// `jprec.kind_channels`: the channel of each named kind of another engine's recording.
  var kindChannels: [String: String] = [:]
  /// `jprec.event_counts` (nil until `finish()`), by kind name.
  var eventCounts: [(kind: String, count: Int64)]? = nil
  /// False in a `recover` output that lost chunks: sequence numbers may have gaps.
  var seqContiguous = true

  /// Reads and parses `meta`, checking its size against `ContainerLimits` before fetching it.
  /// Errors are bare messages; the caller adds the file name.
  static func read(_ db: Database) throws -> RecordingMeta {
    let size = try Row.fetchOne(
      db, sql: "SELECT COUNT(*), COALESCE(SUM(LENGTH(CAST(key AS BLOB)) + LENGTH(CAST(value AS BLOB))), 0) FROM meta")
    let n: Int64 = try size?.decode(atIndex: 0) ?? 0
    let bytes: Int64 = try size?.decode(atIndex: 1) ?? 0
    guard n <= ContainerLimits.metaRowsMax else {
      throw MetaError(place: "meta", "\(n) rows; at most \(ContainerLimits.metaRowsMax) are allowed (metaRowsMax)")
    }
    guard bytes <= ContainerLimits.metaBytesMax else {
      throw MetaError(place: "meta", "\(bytes) bytes; at most \(ContainerLimits.metaBytesMax) are allowed (metaBytesMax)")
    }
    let rows = try Row.fetchAll(db, sql: "SELECT key, value FROM meta ORDER BY rowid").map {
      (key: try $0.decode(String.self, atIndex: 0), value: try $0.decode(String.self, atIndex: 1))
    }
    return try parse(rows)
  }

  /// Parses meta rows as the reader does; throws `MetaError` naming the row.
  static func parse(_ rows: [(key: String, value: String)]) throws(MetaError) -> RecordingMeta {
    var m = RecordingMeta(rows: rows)
    var storedCRC: UInt32? = nil
    var kinds: [String]? = nil
    var counts: JSONObject? = nil
    for r in rows {
      let place = "meta \"\(r.key)\""
      let v: JSONValue
      do { v = try JSONParser.parse(r.value) } catch {
        throw MetaError(place: place, "not valid JSON: \(error.description)")
      }
      switch r.key {
      case JPRec.metaComplete:
        guard let b = v.boolValue else { throw MetaError(place: place, "expected true or false") }
        m.complete = b
      case JPRec.metaKinds:
        guard let a = v.arrayValue, a.count <= ContainerLimits.kindsMax else {
          throw MetaError(place: place, "expected an array of at most \(ContainerLimits.kindsMax) event kind names (kindsMax)")
        }
        let names = a.compactMap(\.stringValue)
        guard names.count == a.count else { throw MetaError(place: place, "expected an array of event kind names") }
        kinds = names
      case JPRec.metaKindChannels:
        guard let o = v.objectValue, o.count <= ContainerLimits.kindsMax,
          o.members.allSatisfy({ $0.value.stringValue != nil })
        else {
          throw MetaError(place: place, "expected an object {\"kind\": \"channel\"} of at most \(ContainerLimits.kindsMax) kinds (kindsMax)")
        }
        for member in o.members { m.kindChannels[member.key] = member.value.stringValue }
      case JPRec.metaEventCounts:
        guard let o = v.objectValue else { throw MetaError(place: place, "expected an object {\"kind\": count}") }
        counts = o
      case JPRec.metaSeqContiguous:
        guard let b = v.boolValue else { throw MetaError(place: place, "expected true or false") }
        m.seqContiguous = b
      case JPRec.metaCRC:
        guard let d = v.int64Value, d >= 0, d <= Int64(UInt32.max) else {
          throw MetaError(place: place, "expected a CRC-32 (an integer 0…4294967295)")
        }
        storedCRC = UInt32(d)
      case JPRec.metaWriter:
        guard v.stringValue != nil else { throw MetaError(place: place, "expected a string") }
      default:
        if !r.key.hasPrefix(JPRec.internalPrefix) { m.header.members.append(JSONMember(r.key, v)) }
      }
    }
    guard let kinds else { throw MetaError(place: "meta", "row \"\(JPRec.metaKinds)\" is missing") }
    m.kinds = kinds
    guard let storedCRC else {
      throw MetaError(place: "meta", "row \"\(JPRec.metaCRC)\" is missing (the meta table was altered)")
    }
    let computed = JPRec.metaCRC32(rows)
    guard computed == storedCRC else {
      throw MetaError(
        place: "meta",
        "CRC mismatch (stored \(JPRec.hex(storedCRC)), computed \(JPRec.hex(computed))): a header value was altered or damaged")
    }
    if let counts {
      var list: [(kind: String, count: Int64)] = []
      var total: Int64 = 0
      for c in counts.members {
        let place = "meta \"\(JPRec.metaEventCounts)\": \"\(c.key)\""
        guard kinds.contains(c.key) else { throw MetaError(place: place, "not in the kind table") }
        guard let k = c.value.int64Value, k >= 0, k <= ContainerLimits.recordingEventsMax else {
          throw MetaError(place: place, "expected a count 0…\(ContainerLimits.recordingEventsMax) (recordingEventsMax)")
        }
        total += k  // ≤ kindsMax × 2^40: no overflow
        list.append((c.key, k))
      }
      guard total <= ContainerLimits.recordingEventsMax else {
        throw MetaError(place: "meta \"\(JPRec.metaEventCounts)\"", "\(total) events; at most \(ContainerLimits.recordingEventsMax) (recordingEventsMax)")
      }
      m.eventCounts = list
    } else if m.complete {
      throw MetaError(place: "meta", "row \"\(JPRec.metaEventCounts)\" is missing in a finished recording")
    }
    return m
  }

  /// Events per channel name that `jprec.event_counts` declares (nil before `finish()`); a
  /// kind without a named channel goes to the channel `definitions` state for it.
  func eventsPerChannel(_ definitions: any EventDefinitions.Type) throws(MetaError) -> [String: Int64]? {
    guard let eventCounts else { return nil }
    var d: [String: Int64] = [:]
    for (kind, n) in eventCounts {
      if let channel = kindChannels[kind] {
        d[channel, default: 0] += n
        continue
      }
      guard let channel = definitions.channel(of: kind) else {
        throw MetaError(place: "meta \"\(JPRec.metaEventCounts)\"", "unknown event kind \"\(kind)\" (written by a newer jpreplay?)")
      }
      d[channel, default: 0] += n
    }
    return d
  }
}

/// A problem in the meta table: where (`meta "key"`) and what.
struct MetaError: Error {
  var place: String
  var message: String
  init(place: String, _ message: String) {
    self.place = place
    self.message = message
  }
  func recordingError(_ path: String) -> RecordingError { RecordingError(file: path, place: place, message) }
}
