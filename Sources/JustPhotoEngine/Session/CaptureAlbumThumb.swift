import CanonicalJSON
import EngineIO
import JustPhotoIO

// Album add and retries (ENGINE §5.9), phantom assets (§5.11), thumbnails (§5.10).

extension CapturePipeline {
  static let readableAuth: Set<String> = ["authorized", "limited"]

  // MARK: §5.9 album add

  /// `album_add{asset_id, attempt}` for a write_success item: album → queued, albumAttempts + 1.
  mutating func startAlbumAdd(
    _ i: Int, _ s: inout SessionSnapshot, _ c: CaptureContext, _ out: inout [CaptureOutput], manual: Bool = false
  ) {
    guard s.items[i].core == .write_success, let asset = s.items[i].assetId else { return }
    let id = s.items[i].itemId
    cancel(.album_retry, id, &out)
    var r = rt(id, c)
    r.manualAlbum = manual
    runtime[id] = r
    s.items[i].albumAttempts += 1
    s.items[i].albumRetryNextAtMs = nil
    setAlbum(i, .queued, &s, c, &out)
    out.append(
      .effect(.albumAdd(assetId: asset, attempt: s.items[i].albumAttempts)))
  }

  /// `album_add_result`: ok → success; asset_not_found under authorized/limited → phantom prune
  /// (§5.11); otherwise album failed, the first failure of the session asks for the banner
  /// (unless "稍后"), and automatic retries follow at +1 s, +3 s, +10 s after each failure (≤ 3).
  /// A failure inside a manual "重试归档" batch schedules no auto retry and no banner.
  mutating func albumResult(
    _ e: CoachEvent.AlbumAddResult, _ s: inout SessionSnapshot, _ c: CaptureContext, _ out: inout [CaptureOutput]
  ) {
    let (asset, attempt) = (e.assetId, Int(e.attempt))
    guard let i = s.items.firstIndex(where: { $0.assetId == asset && $0.core == .write_success }),
      s.items[i].album == .queued, s.items[i].albumAttempts == attempt
    else { return }
    let id = s.items[i].itemId
    var r = rt(id, c)
    let manual = r.manualAlbum
    r.manualAlbum = false
    runtime[id] = r
    if e.ok {
      s.items[i].albumRetryNextAtMs = nil
      setAlbum(i, .success, &s, c, &out)
      albumBatchSettle(id, outcome: .ok, &out)
      if albumBannerShown && !s.items.contains(where: { $0.album == .failed }) {
        out.append(.withdraw(key: CapturePromptKey.albumAddFailed))
      }
      return
    }
    let err = e.error
    let kind = err?.kind
    if kind == "asset_not_found" && Self.readableAuth.contains(c.photoAuth) {
      // §5.11 [C] heal: prune + A.13 (payload asset_id_hash, auth_snapshot, heal_action).
      removeItem(i, reason: "phantom", &s, c, &out)
      out.append(
        .diagnostic(
          event: "phantom_asset_detected",
          payload: [("asset_id_hash", Self.assetHash(asset)), ("auth_snapshot", c.photoAuth), ("heal_action", "pruned")]))
      return
    }
    s.items[i].lastErrorAtMs = c.wallMs
    let retries = s.items[i].albumRetryCount
    let auto = !manual && retries < Self.albumRetryDelaysMs.count
    let step = c.faults.contains(.retryBackoffStepBehind) ? max(0, retries - 1) : retries
    if auto { s.items[i].albumRetryNextAtMs = c.wallMs + Self.albumRetryDelaysMs[step] }
    setAlbum(
      i, .failed, &s, c, &out,
      error: SaveErrorSnapshot(.album, error: err, kind ?? "album_add_error"))
    if manual {
      albumBatchSettle(id, outcome: .failed, &out)
      return
    }
    if auto { schedule(.album_retry, id, at: c.now + Self.albumRetryDelaysMs[step], &out) }
    if !albumBannerShown && !s.flags.contains(Self.albumLaterFlag) {
      albumBannerShown = true
      let n = s.items.count { $0.album == .failed }
      out.append(.prompt(key: CapturePromptKey.albumAddFailed, payload: [("album_add_failed_count", .int(n))]))
    }
  }

  /// The scheduled automatic retry: albumRetryCount + 1, album_add again.
  mutating func albumAutoRetry(_ i: Int, _ s: inout SessionSnapshot, _ c: CaptureContext, _ out: inout [CaptureOutput]) {
    guard s.items[i].core == .write_success, s.items[i].album == .failed else { return }
    s.items[i].albumRetryCount += 1
    startAlbumAdd(i, &s, c, &out)
  }

  /// Manual "重试归档" (`retry_album_add`): one attempt for every album-failed item of the session,
  /// cancelling scheduled auto retries without bumping their count; `album_retry_empty` when none.
  mutating func retryAlbumAdd(_ s: inout SessionSnapshot, _ c: CaptureContext, _ out: inout [CaptureOutput]) {
    let ids = s.items.filter { $0.core == .write_success && $0.album == .failed && $0.assetId != nil }.map(\.itemId)
    guard !ids.isEmpty else {
      out.append(.prompt(key: CapturePromptKey.albumRetryEmpty, payload: []))
      return
    }
    var batch = albumBatch ?? AlbumBatch()
    for id in ids {
      guard let i = s.items.firstIndex(where: { $0.itemId == id }) else { continue }
      batch.pending.append(id)
      batch.total += 1
      albumBatch = batch
      startAlbumAdd(i, &s, c, &out, manual: true)
    }
    albumBatch = batch
  }

  enum BatchOutcome { case ok, failed, skipped }

  /// Records the outcome of one batch item; the last one emits `album_retry_result
  /// {total, ok, failed, skipped}` (skipped = pruned or removed before its result).
  mutating func albumBatchSettle(_ itemId: String, outcome: BatchOutcome, _ out: inout [CaptureOutput]) {
    guard var b = albumBatch, let k = b.pending.firstIndex(of: itemId) else { return }
    b.pending.remove(at: k)
    switch outcome {
    case .ok: b.ok += 1
    case .failed: b.failed += 1
    case .skipped: b.skipped += 1
    }
    if b.pending.isEmpty {
      albumBatch = nil
      out.append(
        .prompt(
          key: CapturePromptKey.albumRetryResult,
          payload: [("total", .int(b.total)), ("ok", .int(b.ok)), ("failed", .int(b.failed)), ("skipped", .int(b.skipped))]))
    } else {
      albumBatch = b
    }
  }

  // MARK: §5.10 thumbnails

  /// Schedules the next of the three generation attempts (+300, +600, +1600 from insert).
  mutating func scheduleNextThumbAttempt(_ itemId: String, _ out: inout [CaptureOutput]) {
    guard let r = runtime[itemId], r.thumbScheduled < Self.thumbAttemptOffsetsMs.count else { return }
    schedule(.thumb_attempt, itemId, at: r.insertedAt + Self.thumbAttemptOffsetsMs[r.thumbScheduled], &out)
  }

  mutating func thumbAttempt(_ i: Int, _ s: inout SessionSnapshot, _ c: CaptureContext, _ out: inout [CaptureOutput]) {
    let id = s.items[i].itemId
    var r = rt(id, c)
    guard !r.hasRealThumb, s.items[i].thumb != .ready else { return }
    r.thumbScheduled += 1
    runtime[id] = r
    // The real thumb needs a source (§5.10: the pending file first, else the asset): without
    // photo data yet this attempt has nothing to render and asks for nothing.
    if s.items[i].pendingFile != nil || s.items[i].assetId != nil { requestThumb(i, &s, &out) }
    scheduleNextThumbAttempt(id, &out)
  }

  /// `generate_thumb{shot, attempt}` with attempt = thumbAttempts + 1.
  mutating func requestThumb(_ i: Int, _ s: inout SessionSnapshot, _ out: inout [CaptureOutput]) {
    s.items[i].thumbAttempts += 1
    out.append(
      .effect(.generateThumb(shot: s.items[i].shotSeq, attempt: s.items[i].thumbAttempts)))
  }

  /// +5000 from insert without a real thumb → thumb failed (not for write_failed items, [C]).
  mutating func thumbFail(_ i: Int, _ s: inout SessionSnapshot, _ c: CaptureContext, _ out: inout [CaptureOutput]) {
    guard let r = runtime[s.items[i].itemId], !r.hasRealThumb, s.items[i].thumb == .pending,
      s.items[i].core != .write_failed
    else { return }
    s.items[i].lastErrorAtMs = c.wallMs
    setThumb(i, .failed, &s, c, &out, error: SaveErrorSnapshot(.thumb, nil, nil, "thumb_timeout_5000ms"))
  }

  /// +30,000 from createdAt without a real thumb → failed_permanent (Viewer "重建缩略").
  mutating func thumbPermanent(_ i: Int, _ s: inout SessionSnapshot, _ c: CaptureContext, _ out: inout [CaptureOutput]) {
    guard let r = runtime[s.items[i].itemId], !r.hasRealThumb,
      s.items[i].thumb == .pending || s.items[i].thumb == .failed, s.items[i].core != .write_failed
    else { return }
    s.items[i].lastErrorAtMs = c.wallMs
    setThumb(i, .failed_permanent, &s, c, &out, error: SaveErrorSnapshot(.thumb, nil, nil, "thumb_timeout_30000ms"))
  }

  /// `thumb_result ok` → ready (self-heal from failed / failed_permanent, withdrawing the Viewer
  /// banner); for a write_failed item the thumb is kept but not marked ready until write_success.
  mutating func thumbResult(shot: Int?, ok: Bool, _ s: inout SessionSnapshot, _ c: CaptureContext, _ out: inout [CaptureOutput]) {
    guard ok, let shot, let i = s.items.firstIndex(where: { $0.shotSeq == shot }) else { return }
    let id = s.items[i].itemId
    var r = rt(id, c)
    r.hasRealThumb = true
    runtime[id] = r
    cancel(.thumb_attempt, id, &out)
    cancel(.thumb_fail, id, &out)
    cancel(.thumb_permanent, id, &out)
    guard s.items[i].core != .write_failed, s.items[i].thumb != .ready else { return }
    let wasFailed = s.items[i].thumb == .failed || s.items[i].thumb == .failed_permanent
    setThumb(i, .ready, &s, c, &out)
    if wasFailed { out.append(.withdraw(key: CapturePromptKey.thumbFailed)) }
  }

  /// `rebuild_thumb_tap {item}` on a failed thumb: thumbAttempts + 1 and `generate_thumb`;
  /// taps within 2000 ms of the last accepted one are ignored (THUMB_REBUILD_COOLDOWN).
  mutating func rebuildThumb(shot: Int?, _ s: inout SessionSnapshot, _ c: CaptureContext, _ out: inout [CaptureOutput]) {
    guard let shot, let i = s.items.firstIndex(where: { $0.shotSeq == shot }),
      s.items[i].thumb == .failed || s.items[i].thumb == .failed_permanent
    else { return }
    let id = s.items[i].itemId
    var r = rt(id, c)
    if let last = r.lastRebuildAt, c.now - last < Self.thumbRebuildCooldownMs { return }
    r.lastRebuildAt = c.now
    runtime[id] = r
    requestThumb(i, &s, &out)
  }
}
