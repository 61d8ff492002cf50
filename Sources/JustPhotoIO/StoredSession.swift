// The persisted session (ENGINE §5.1; PRD Appendix B) as plain values. The engine keeps one
// `SessionSnapshot` in memory and hands a copy out after every change (`Effects.persist`);
// the replay adapter writes it to a real SQLite store with the app's schema and gives it back
// inside `app_launch {store}` after a kill, so nothing survives a kill that the store lacks.

/// Core item state (ENGINE §5.5). `removed` items are deleted, never stored.
public enum ItemCore: String, Sendable, Equatable, CaseIterable {
  case captured_preview, writing, write_success, write_failed
}

/// Thumbnail sub-state (ENGINE §5.10).
public enum ThumbState: String, Sendable, Equatable, CaseIterable {
  case pending, ready, failed, failed_permanent
}

/// Album sub-state (ENGINE §5.9).
public enum AlbumState: String, Sendable, Equatable, CaseIterable {
  case none, queued, success, failed
}

/// One photo of the workset (ENGINE §5.1 SessionItem; [C] `session_items`).
public struct SessionItem: Sendable, Equatable {
  /// `I-<sessionOrdinal>-<shotSeq>` (ENGINE §1.3 rule 4).
  public var itemId: String
  /// 1-based, monotonic, never reused within a session (PRD §B.1.2).
  public var shotSeq: Int
  /// Wall ms.
  public var createdAtMs: Int64
  /// Where the photo is in the capture-and-write pipeline.
  public var core: ItemCore
  /// Where its thumbnail is.
  public var thumb: ThumbState
  /// Where adding it to the app's album is.
  public var album: AlbumState
  /// Whether the user liked the photo (`like_toggle`).
  public var liked: Bool
  /// The photo library's local identifier, once a write succeeded.
  public var assetId: String?
  /// `pending/<itemId>.<ext>` once the photo data was written to the pending file.
  public var pendingFile: String?
  /// WriteFailReason raw value while `core == .write_failed`.
  public var writeFailReason: String?
  /// Wall ms of the last failure.
  public var lastErrorAtMs: Int64?
  /// PhotoKit writes started in the current write cycle: the `attempt` of the latest
  /// `photokit_write`; 0 before the first and again after the item falls back to a preview.
  public var writeAttempts: Int
  /// `album_add` requests made for this item; the number the latest one carries.
  public var albumAttempts: Int
  /// `generate_thumb` requests made for this item: the `attempt` of the latest one.
  public var thumbAttempts: Int
  /// Automatic album retries used (≤ 3, ENGINE §5.9) and the wall ms of the next one.
  public var albumRetryCount: Int
  /// Wall ms of the next automatic album retry; nil when none is planned.
  public var albumRetryNextAtMs: Int64?

  /// An item as stored; a new capture takes the defaults (captured preview, nothing attempted yet).
  public init(
    itemId: String, shotSeq: Int, createdAtMs: Int64, core: ItemCore = .captured_preview,
    thumb: ThumbState = .pending, album: AlbumState = .none, liked: Bool = false, assetId: String? = nil,
    pendingFile: String? = nil, writeFailReason: String? = nil, lastErrorAtMs: Int64? = nil,
    writeAttempts: Int = 0, albumAttempts: Int = 0, thumbAttempts: Int = 0, albumRetryCount: Int = 0,
    albumRetryNextAtMs: Int64? = nil
  ) {
    self.itemId = itemId
    self.shotSeq = shotSeq
    self.createdAtMs = createdAtMs
    self.core = core
    self.thumb = thumb
    self.album = album
    self.liked = liked
    self.assetId = assetId
    self.pendingFile = pendingFile
    self.writeFailReason = writeFailReason
    self.lastErrorAtMs = lastErrorAtMs
    self.writeAttempts = writeAttempts
    self.albumAttempts = albumAttempts
    self.thumbAttempts = thumbAttempts
    self.albumRetryCount = albumRetryCount
    self.albumRetryNextAtMs = albumRetryNextAtMs
  }
}

/// The current session (ENGINE §5.1; [C] `sessions` + `app_meta.current_session_id`).
public struct SessionSnapshot: Sendable, Equatable {
  /// The session id: `S-0001`, `S-0002`, … for sessions the engine creates, or whatever id the
  /// header's `initial.session_id` or a restored store gives.
  public var sessionId: String
  /// Wall ms.
  public var createdAtMs: Int64
  /// Wall ms of the last change to the session (a capture, a write result, a like, …).
  public var lastActiveAtMs: Int64
  /// cafe / outdoor.
  public var scene: String
  /// `flags_json` keys set to true, sorted (e.g. `prompt.session_once.session_count_15`).
  public var flags: [String]
  /// Newest first (PRD §B.1.1 workset order).
  public var items: [SessionItem]
  /// The shotSeq the next capture gets (monotonic, PRD §B.1.2).
  public var nextShotSeq: Int
  /// Ordinal of this session among those the engine created (`S-0001` → 1); item ids use it.
  public var ordinal: Int
  /// Reference copies made this session (≤ 10, ENGINE §5.13).
  public var refCount: Int

  /// A session as stored; a new session takes the defaults (no flags, no items, first shot 1).
  public init(
    sessionId: String, createdAtMs: Int64, lastActiveAtMs: Int64, scene: String, flags: [String] = [],
    items: [SessionItem] = [], nextShotSeq: Int = 1, ordinal: Int = 1, refCount: Int = 0
  ) {
    self.sessionId = sessionId
    self.createdAtMs = createdAtMs
    self.lastActiveAtMs = lastActiveAtMs
    self.scene = scene
    self.flags = flags
    self.items = items
    self.nextShotSeq = nextShotSeq
    self.ordinal = ordinal
    self.refCount = refCount
  }

  /// ENGINE §5.2 counters.
  public var worksetCount: Int { items.count }
  /// Items still being captured or written (`captured_preview` or `writing`).
  public var inFlightCount: Int { items.count { $0.core == .captured_preview || $0.core == .writing } }
  /// Items whose write failed and waits for the user (`write_failed`).
  public var writeFailedCount: Int { items.count { $0.core == .write_failed } }
}

/// Everything the app persists (one flush): the current session and the install-level flags
/// (installOnce prompt keys, `UserDefaults` in the app).
public struct StoreSnapshot: Sendable, Equatable {
  /// The current session; nil before the first one is created.
  public var session: SessionSnapshot?
  /// Sorted.
  public var installFlags: [String]
  /// A store holding `session` and the install flags (sorted by the caller).
  public init(session: SessionSnapshot?, installFlags: [String] = []) {
    self.session = session
    self.installFlags = installFlags
  }
}
