import CanonicalJSON

extension RecordingStats {
  /// Events over every channel.
  public var events: Int { channels.reduce(0) { $0 + $1.events } }
  /// Encoded (uncompressed) bytes over every channel.
  public var rawBytes: Int64 { channels.reduce(0) { $0 + $1.rawBytes } }
  /// Compressed bytes over every channel.
  public var storedBytes: Int64 { channels.reduce(0) { $0 + $1.storedBytes } }

  /// `jpreplay info --json`: one object, keys in a fixed order, for `JSONWriter`. Meta values
  /// are the stored JSON texts, as strings; sizes are bytes.
  public func json(file: String) -> JSONValue {
    let channelObjects: [JSONValue] = channels.map {
      .object([
        "name": .string($0.name), "encoding": .string($0.encoding), "events": .number(Double($0.events)),
        "chunks": .number(Double($0.chunks)), "raw_bytes": .number(Double($0.rawBytes)),
        "chunk_bytes": .number(Double($0.storedBytes)),
      ])
    }
    return .object([
      "file": .string(file),
      "format_version": .number(Double(formatVersion)),
      "complete": .bool(complete),
      "file_bytes": .number(Double(fileBytes)),
      "events": .number(Double(events)),
      "duration_ms": durationMs.map { .number(Double($0)) } ?? .null,
      "raw_bytes": .number(Double(rawBytes)),
      "chunk_bytes": .number(Double(storedBytes)),
      "meta": .object(JSONObject(meta.map { JSONMember($0.key, .string($0.value)) })),
      "channels": .array(channelObjects),
      "events_by_kind": .object(JSONObject(eventsByKind.map { JSONMember($0.kind, .number(Double($0.count))) })),
    ])
  }
}
