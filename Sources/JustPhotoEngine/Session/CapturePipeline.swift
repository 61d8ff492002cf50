import CanonicalJSON
import EngineIO
import JustPhotoIO

/// The per-item capture pipeline of ENGINE §5.2–§5.11 as a pure, deterministic value.
///
/// The engine owns the `SessionSnapshot` and calls in with it; the pipeline mutates the items
/// (and `lastActiveAtMs`, and one session flag, see `albumLaterFlag`) and returns outputs in
/// generation order. Engine-side concerns stay out: the shutter gate (§5.3), 15/20 limits,
/// prompt gating/throttling, persistence flushes.
///
/// Per item the pipeline keeps runtime state that the store does not hold (virtual insert time,
/// verification progress, auto-retry counts, cooldowns); after a kill the engine calls
/// `relaunch` on a fresh pipeline (ENGINE §5.1 cold-start recovery).
///
/// Timer ids render as `capture.<kind>.<itemId>` (`EngineTimer.capture`) and are recognised
/// through `timers`, the table of pending ones, not by their name; item ids contain the session ordinal,
/// so ids never collide across sessions, and a timer of a removed item is cancelled.
///
/// `item_state_changed` (ENGINE §6.4) payload order: item_id, shot_seq, prev_state, next_state,
/// write_attempts, album_attempts, thumb_attempts, then on a failure (next state `*_failed`, or a
/// removal caused by an error, e.g. JustPhoto/1002 pending_missing) the SaveErrorSnapshot of
/// ENGINE §5.1 in its order, snake-cased: stage, error_domain, error_code, error_desc,
/// underlying_domain, underlying_code ("" when there is no underlying error), free_mb ("" when
/// unknown), photo_auth_at_error, ts_ms (wall ms of the error).
/// States: core raw values (`captured_preview`, `writing`, `write_success`, `write_failed`),
/// `removed`, `none` (before creation), and sub-states `thumb_<ThumbState>` / `album_<AlbumState>`.
public struct CapturePipeline: Sendable, Equatable {
  // MARK: Constants (ENGINE §5.5–§5.10)

  /// [C] `minPhotoDataBytes` (§5.5).
  public static let minPhotoDataBytes: Int64 = 50_000
  /// CAPTURE_DATA_DEADLINE (§5.5).
  public static let captureDataDeadlineMs: Millis = 2000
  /// WRITE_CALLBACK_TIMEOUT (§5.5), per PhotoKit call.
  public static let writeCallbackTimeoutMs: Millis = 12_000
  /// Transient write error auto-retry backoff, at most 2 (§5.5).
  public static let writeAutoRetryDelaysMs: [Millis] = [300, 1000]
  /// WRITE_RETRY_COOLDOWN (§5.5).
  public static let writeRetryCooldownMs: Millis = 2000
  /// §5.7 second fetch, after the first (empty) fetch result.
  public static let fetchRetryDelayMs: Millis = 500
  /// §5.7 verification window, from write_success.
  public static let verificationWindowMs: Millis = 2000
  /// §5.8 tracker window and threshold.
  public static let captureFailureWindowMs: Millis = 30_000
  public static let captureFailureThreshold = 3
  /// §5.9 automatic album retries, each measured from the previous failure.
  public static let albumRetryDelaysMs: [Millis] = [1000, 3000, 10_000]
  /// §5.10 [C] generation schedule, from insert.
  public static let thumbAttemptOffsetsMs: [Millis] = [300, 600, 1600]
  public static let thumbFailMs: Millis = 5000
  public static let thumbPermanentMs: Millis = 30_000
  /// THUMB_REBUILD_COOLDOWN (§5.10).
  public static let thumbRebuildCooldownMs: Millis = 2000
  /// DISK_WARN_MB / DISK_BLOCK_MB (§4.3, §5.15).
  public static let lowSpaceWarnMB = 500
  public static let diskBlockMB = 200
  /// Session flag set by the album banner's "稍后" (§5.9): no more automatic album banners in
  /// this session (kept in `SessionSnapshot.flags` so it survives a kill).
  public static let albumLaterFlag = "capture.album_banner_later"

  /// The kinds of timer the pipeline schedules; id = `capture.<rawValue>.<itemId>`.
  public enum TimerKind: String, CaseIterable, Sendable {
    /// §5.5 CAPTURE_DATA_DEADLINE 2000 from the shutter tap.
    case deadline
    /// §5.5 WRITE_CALLBACK_TIMEOUT 12,000 from each photokit_write.
    case write_timeout
    /// §5.5 transient auto-retry (300 / 1000 after the failure).
    case write_retry
    /// §5.7 second fetch, 500 after the first empty fetch result.
    case fetch_retry
    /// §5.7 2000 after write_success: post_write_verification_delayed if still not verified.
    case verify_window
    /// §5.9 automatic album retry.
    case album_retry
    /// §5.10 generate_thumb attempts 1…3 (+300, +600, +1600 from insert).
    case thumb_attempt
    /// §5.10 thumb failed at +5000.
    case thumb_fail
    /// §5.10 failed_permanent at +30,000 from createdAt.
    case thumb_permanent

    public func id(_ itemId: String) -> TimerID { EngineTimer.capture(self, item: itemId).id }
  }

  /// Runtime state of one item (not persisted).
  struct ItemRuntime: Equatable, Sendable {
    /// Virtual time of the insert (optimistic thumb shown), for §5.10 timing.
    var insertedAt: Millis
    /// Virtual time of the `photo_data` that started writing (pending_write_failed pairing).
    var photoDataAt: Millis?
    /// `pending_write_failed` arrived before the photo data (§1.6).
    var pendingWriteFailed = false
    /// A photokit_write is outstanding (its result not yet received).
    var awaitingWrite = false
    /// Transient auto-retries used in the current write episode (≤ 2).
    var writeAutoRetries = 0
    var lastRetryTapAt: Millis?
    /// §5.7: write_success time, first fetch duration, outcome.
    var writeSuccessAt: Millis?
    var firstFetchMs: Millis?
    var fetchAttempt = 0
    var verified = false
    var verificationDone = false
    /// A real thumbnail arrived (kept for write_failed items, [C]).
    var hasRealThumb = false
    var lastRebuildAt: Millis?
    var thumbScheduled = 0
    /// The pending album_add belongs to a manual "重试归档" batch.
    var manualAlbum = false
    init(insertedAt: Millis) { self.insertedAt = insertedAt }
  }

  /// A manual `retry_album_add` batch and its results (ENGINE §5.9, [C] result toast).
  struct AlbumBatch: Equatable, Sendable {
    var pending: [String] = []
    var total = 0
    var ok = 0
    var failed = 0
    var skipped = 0
  }

  var runtime: [String: ItemRuntime] = [:]
  /// Active timers by id → what they are (looked up only, never iterated): a fired id is
  /// recognised here, not by reading its name.
  var timers: [TimerID: ScheduledTimer] = [:]
  /// §5.8 failure times (virtual ms).
  var captureFailures: [Millis] = []
  /// §5.9 the album banner was already asked for in this process.
  var albumBannerShown = false
  var inFlightSavingShown = false
  /// ENGINE §6.4: blocked_by_write_failed was logged for the current blocked episode.
  var blockedAnnounced = false
  var albumBatch: AlbumBatch?

  public init() {}

  /// §5.8: the engine calls this on the camera-abnormal modal's retry / cancel.
  public mutating func resetCaptureFailures() { captureFailures = [] }

  // MARK: Shutter (§5.5 first row)

  /// A shutter tap the engine let through (§5.3 gate already checked): inserts a
  /// captured_preview item at the head, requests the capture, arms the 2000 ms deadline and the
  /// thumbnail schedule (§5.10), and checks low space (§5.15: < 500 MB → `low_space_warn`).
  public mutating func shutterTap(_ s: inout SessionSnapshot, _ c: CaptureContext) -> [CaptureOutput] {
    var out: [CaptureOutput] = []
    let shot = s.nextShotSeq
    s.nextShotSeq += 1
    let item = SessionItem(itemId: "I-\(s.ordinal)-\(shot)", shotSeq: shot, createdAtMs: c.wallMs)
    s.items.insert(item, at: 0)
    s.lastActiveAtMs = c.wallMs
    runtime[item.itemId] = ItemRuntime(insertedAt: c.now)
    out.append(.item(item))
    out.append(stateDiag(item, prev: "none", next: item.core.rawValue, error: nil, c))
    out.append(.effect(.capturePhoto(shot: shot)))
    schedule(.deadline, item.itemId, at: c.now + Self.captureDataDeadlineMs, &out)
    scheduleNextThumbAttempt(item.itemId, &out)
    schedule(.thumb_fail, item.itemId, at: c.now + Self.thumbFailMs, &out)
    schedule(.thumb_permanent, item.itemId, at: c.now + Self.thumbPermanentMs, &out)
    if let mb = c.freeMB, mb < Self.lowSpaceWarnMB {
      out.append(.prompt(key: CapturePromptKey.lowSpaceWarn, payload: [("mb", .int(Self.lowSpaceWarnMB))]))
    }
    finish(&s, &out)
    return out
  }

  // MARK: Events

  /// Effect results and item-level UI events.
  package mutating func handle(_ e: CaptureEvent, _ s: inout SessionSnapshot, _ c: CaptureContext)
    -> [CaptureOutput]
  {
    var out: [CaptureOutput] = []
    switch e {
    case .photoData(let e):
      photoData(shot: Int(e.shot), bytes: e.bytes, ext: e.ext.rawValue, &s, c, &out)
    case .photoCaptureError:
      break  // §5.5: unchanged; the 2000 ms deadline converts it to capture_failed.
    case .pendingWriteFailed(let e):
      pendingWriteFailed(shot: Int(e.shot), &s, c, &out)
    case .photokitWriteResult(let e):
      photokitResult(e, &s, c, &out)
    case .assetFetchResult(let e):
      fetchResult(assetId: e.assetId, attempt: Int(e.attempt), count: Int(e.count), &s, c, &out)
    case .albumAddResult(let e):
      albumResult(e, &s, c, &out)
    case .thumbResult(let e):
      thumbResult(shot: Int(e.shot), ok: e.ok, &s, c, &out)
    case .favoriteSyncResult(let e):
      // §5.15: failed under Full access → favorite_sync_failed (sessionOnce, engine gate).
      if e.result == .failed, c.photoAuth == "authorized" {
        out.append(.prompt(key: CapturePromptKey.favoriteSyncFailed, payload: []))
      }
    case .likeToggle(let e):
      let shot = Int(e.item)
      if let i = s.items.firstIndex(where: { $0.shotSeq == shot }), s.items[i].liked != e.liked {
        s.items[i].liked = e.liked
        s.lastActiveAtMs = c.wallMs
        out.append(.item(s.items[i]))
        out.append(.effect(.favoriteSync(item: shot)))
      }
    case .viewerOpen(let e):
      // ENGINE §4.6: thumb_failed when the user opens the Viewer on a thumb_failed item.
      let shot = Int(e.item)
      if let item = s.items.first(where: { $0.shotSeq == shot }), item.thumb == .failed || item.thumb == .failed_permanent {
        out.append(.prompt(key: CapturePromptKey.thumbFailed, payload: []))
      }
    case .rebuildThumbTap(let e):
      rebuildThumb(shot: Int(e.item), &s, c, &out)
    }
    finish(&s, &out)
    return out
  }

  // MARK: Timers

  /// A `capture.*` timer came due. Unknown, cancelled or replaced ids produce nothing.
  public mutating func fire(_ timer: TimerID, _ s: inout SessionSnapshot, _ c: CaptureContext) -> [CaptureOutput] {
    guard let pending = scheduled(timer) else { return [] }
    return fire(pending.kind, item: pending.item, &s, c)
  }

  /// A capture timer as scheduled: its kind and item.
  public struct ScheduledTimer: Hashable, Sendable {
    public var kind: TimerKind
    public var item: String
  }

  /// What `timer` is, when it is a capture timer this pipeline has pending.
  public func scheduled(_ timer: TimerID) -> ScheduledTimer? { timers[timer] }

  /// The capture timer `kind` of `itemId` came due. A cancelled or replaced one produces nothing.
  public mutating func fire(_ kind: TimerKind, item itemId: String, _ s: inout SessionSnapshot, _ c: CaptureContext)
    -> [CaptureOutput]
  {
    guard timers.removeValue(forKey: kind.id(itemId)) != nil else { return [] }
    guard let i = s.items.firstIndex(where: { $0.itemId == itemId }) else { return [] }
    var out: [CaptureOutput] = []
    switch kind {
    case .deadline: deadline(i, &s, c, &out)
    case .write_timeout: writeTimeout(i, &s, c, &out)
    case .write_retry: writeAutoRetry(i, &s, c, &out)
    case .fetch_retry: fetchRetry(i, &s, c, &out)
    case .verify_window: verifyWindow(i, &s, c, &out)
    case .album_retry: albumAutoRetry(i, &s, c, &out)
    case .thumb_attempt: thumbAttempt(i, &s, c, &out)
    case .thumb_fail: thumbFail(i, &s, c, &out)
    case .thumb_permanent: thumbPermanent(i, &s, c, &out)
    }
    finish(&s, &out)
    return out
  }

  // MARK: Shared helpers

  func rt(_ itemId: String, _ c: CaptureContext) -> ItemRuntime {
    runtime[itemId] ?? ItemRuntime(insertedAt: c.now)
  }

  mutating func schedule(_ kind: TimerKind, _ itemId: String, at: Millis, _ out: inout [CaptureOutput]) {
    let id = kind.id(itemId)
    timers[id] = ScheduledTimer(kind: kind, item: itemId)
    out.append(.timer(.schedule(id, at: at)))
  }

  mutating func cancel(_ kind: TimerKind, _ itemId: String, _ out: inout [CaptureOutput]) {
    let id = kind.id(itemId)
    if timers.removeValue(forKey: id) != nil { out.append(.timer(.cancel(id))) }
  }

  /// Core transition + trace `item` + `item_state_changed`.
  mutating func setCore(
    _ i: Int, _ next: ItemCore, _ s: inout SessionSnapshot, _ c: CaptureContext, _ out: inout [CaptureOutput],
    error: SaveErrorSnapshot? = nil
  ) {
    let prev = s.items[i].core
    s.items[i].core = next
    s.lastActiveAtMs = c.wallMs
    out.append(.item(s.items[i]))
    out.append(stateDiag(s.items[i], prev: prev.rawValue, next: next.rawValue, error: error, c))
  }

  mutating func setThumb(
    _ i: Int, _ next: ThumbState, _ s: inout SessionSnapshot, _ c: CaptureContext, _ out: inout [CaptureOutput],
    error: SaveErrorSnapshot? = nil
  ) {
    let prev = s.items[i].thumb
    guard prev != next else { return }
    s.items[i].thumb = next
    s.lastActiveAtMs = c.wallMs
    out.append(.item(s.items[i]))
    out.append(stateDiag(s.items[i], prev: "thumb_" + prev.rawValue, next: "thumb_" + next.rawValue, error: error, c))
  }

  mutating func setAlbum(
    _ i: Int, _ next: AlbumState, _ s: inout SessionSnapshot, _ c: CaptureContext, _ out: inout [CaptureOutput],
    error: SaveErrorSnapshot? = nil
  ) {
    let prev = s.items[i].album
    guard prev != next else { return }
    s.items[i].album = next
    s.lastActiveAtMs = c.wallMs
    out.append(.item(s.items[i]))
    out.append(stateDiag(s.items[i], prev: "album_" + prev.rawValue, next: "album_" + next.rawValue, error: error, c))
  }

  /// Deletes item `i`: cancels its timers, `.removed`, `item_state_changed → removed`.
  mutating func removeItem(
    _ i: Int, reason: String, _ s: inout SessionSnapshot, _ c: CaptureContext, _ out: inout [CaptureOutput],
    error: SaveErrorSnapshot? = nil
  ) {
    let item = s.items.remove(at: i)
    s.lastActiveAtMs = c.wallMs
    for k in TimerKind.allCases { cancel(k, item.itemId, &out) }
    runtime[item.itemId] = nil
    out.append(.removed(item, reason: reason))
    out.append(stateDiag(item, prev: item.core.rawValue, next: "removed", error: error, c))
    if item.core == .write_failed { out.append(.withdraw(key: CapturePromptKey.writeFailed)) }
    albumBatchSettle(item.itemId, outcome: .skipped, &out)
  }

  /// ENGINE §6.4 `item_state_changed` (fixed key order, see the type comment).
  func stateDiag(_ item: SessionItem, prev: String, next: String, error: SaveErrorSnapshot?, _ c: CaptureContext)
    -> CaptureOutput
  {
    var p: [(key: String, value: String)] = [
      ("item_id", item.itemId), ("shot_seq", String(item.shotSeq)), ("prev_state", prev), ("next_state", next),
      ("write_attempts", String(item.writeAttempts)), ("album_attempts", String(item.albumAttempts)),
      ("thumb_attempts", String(item.thumbAttempts)),
    ]
    if let e = error {
      p += [
        ("stage", e.stage.rawValue), ("error_domain", e.domain), ("error_code", String(e.code)),
        ("error_desc", e.desc), ("underlying_domain", e.underlyingDomain ?? ""),
        ("underlying_code", e.underlyingCode.map { String($0) } ?? ""),
        ("free_mb", c.freeMB.map { String($0) } ?? ""), ("photo_auth_at_error", c.photoAuth),
        ("ts_ms", String(c.wallMs)),
      ]
    }
    return .diagnostic(event: "item_state_changed", payload: p)
  }

  /// End of every call: A.13 `blocked_by_write_failed` once per entry into the blocked state
  /// (ASSERT‑C‑GATE‑003), and `in_flight_saving` on in_flight ≥ 2 / withdraw below 2 (§4.5, S32).
  mutating func finish(_ s: inout SessionSnapshot, _ out: inout [CaptureOutput]) {
    let failed = s.writeFailedCount
    if failed > 0 && !blockedAnnounced {
      blockedAnnounced = true
      out.append(.diagnostic(event: "blocked_by_write_failed", payload: [("write_failed_count", String(failed))]))
    } else if failed == 0 {
      blockedAnnounced = false
    }
    let inFlight = s.inFlightCount
    if inFlight >= 2 && !inFlightSavingShown {
      inFlightSavingShown = true
      out.append(.prompt(key: CapturePromptKey.inFlightSaving, payload: []))
    } else if inFlight < 2 && inFlightSavingShown {
      inFlightSavingShown = false
      out.append(.withdraw(key: CapturePromptKey.inFlightSaving))
    }
  }

  /// A.13 asset id hash: SHA-256 hex of the local identifier (§5.11 / G-25).
  static func assetHash(_ assetId: String) -> String { SHA256.hex(assetId) }
}

/// The events the capture pipeline handles: effect results and item-level UI events
/// (`Engine.handle(_:at:)` routes them here by kind).
package enum CaptureEvent: Sendable, Equatable {
  case photoData(CoachEvent.PhotoData), photoCaptureError(CoachEvent.PhotoCaptureError)
  case pendingWriteFailed(CoachEvent.PendingWriteFailed), photokitWriteResult(CoachEvent.PhotoKitWriteResult)
  case assetFetchResult(CoachEvent.AssetFetchResult), albumAddResult(CoachEvent.AlbumAddResult)
  case thumbResult(CoachEvent.ThumbResult), favoriteSyncResult(CoachEvent.FavoriteSyncResult)
  case likeToggle(CoachEvent.LikeToggle), viewerOpen(CoachEvent.ItemTap), rebuildThumbTap(CoachEvent.ItemTap)
}
