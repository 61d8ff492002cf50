/// What `jpreplay info` shows about a recording (from the tables' metadata).
public struct RecordingStats: Sendable {
  /// Size of the `.jprec` file in bytes.
  public var fileBytes: Int64
  /// The container format version this reader reads (SQLite `user_version`, docs/FORMAT-jprec.md).
  public var formatVersion: Int
  /// `jprec.complete`: false for a recording whose writer never finished (killed, or still running).
  public var complete: Bool
  /// Every meta row as stored (value = JSON text), in insertion order, internal rows included.
  public var meta: [(key: String, value: String)]
  /// One entry per channel present in the file, in channel order.
  public var channels: [ChannelStats]
  /// Event counts by kind name, sorted by name.
  public var eventsByKind: [(kind: String, count: Int)]
  /// The header's `duration_ms`, else the last event time.
  public var durationMs: Int64?

  /// Statistics with the file-level facts; channels, kind counts and duration start empty.
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
  /// The channel's row id in `channels`.
  public var id: Int64
  /// The channel name (`landmarks`, `pixels`, `sensors`, `device`, `ui`, `effects`, `label`).
  public var name: String
  /// How its chunks encode events: `jprec-events/2` (what the writer writes) or `jprec-events/1`
  /// (files written before issue 38).
  public var encoding: String
  /// Events stored in its chunks.
  public var events: Int
  /// Number of chunks.
  public var chunks: Int
  /// Encoded (uncompressed) bytes of its chunks.
  public var rawBytes: Int64
  /// Compressed bytes stored in `chunks.data`.
  public var storedBytes: Int64
  /// The earliest chunk start, ms since the recording start; nil without chunks.
  public var firstT: Int64?
  /// The latest chunk end, ms since the recording start; nil without chunks.
  public var lastT: Int64?

  /// One channel's totals.
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
