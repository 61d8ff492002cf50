/// What `jpreplay info` shows about a recording (from the tables' metadata).
public struct RecordingStats: Sendable {
  public var fileBytes: Int64
  public var formatVersion: Int
  public var complete: Bool
  /// Every meta row as stored (value = JSON text), in insertion order, internal rows included.
  public var meta: [(key: String, value: String)]
  public var channels: [ChannelStats]
  /// Event counts by kind name, sorted by name.
  public var eventsByKind: [(kind: String, count: Int)]
  /// The header's `duration_ms`, else the last event time.
  public var durationMs: Int64?

  public init(
    fileBytes: Int64, formatVersion: Int, complete: Bool, meta: [(key: String, value: String)],
    channels: [ChannelStats] = [], eventsByKind: [(kind: String, count: Int)] = [], durationMs: Int64? = nil
  ) {
    self.fileBytes = fileBytes
    self.formatVersion = formatVersion
    self.complete = complete
    self.meta = meta
    self.channels = channels
    self.eventsByKind = eventsByKind
    self.durationMs = durationMs
  }
}

/// One row of `channels` with totals over its chunks.
public struct ChannelStats: Sendable, Equatable {
  public var id: Int64
  public var name: String
  public var encoding: String
  public var events: Int
  public var chunks: Int
  /// Encoded (uncompressed) bytes of its chunks.
  public var rawBytes: Int64
  /// Compressed bytes stored in `chunks.data`.
  public var storedBytes: Int64
  public var firstT: Int64?
  public var lastT: Int64?

  public init(
    id: Int64, name: String, encoding: String, events: Int, chunks: Int, rawBytes: Int64, storedBytes: Int64,
    firstT: Int64?, lastT: Int64?
  ) {
    self.id = id
    self.name = name
    self.encoding = encoding
    self.events = events
    self.chunks = chunks
    self.rawBytes = rawBytes
    self.storedBytes = storedBytes
    self.firstT = firstT
    self.lastT = lastT
  }
}
