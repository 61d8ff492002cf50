import CanonicalJSON
import EngineIO
import JustPhotoIO

// Write pipeline (ENGINE §5.5, §5.6), post-write verification (§5.7), capture_failed (§5.8).

extension CapturePipeline {
  static let writableAuth: Set<String> = ["authorized", "limited"]

  // MARK: §5.5 captured_preview → writing

  /// `photo_data`: ≥ 50,000 bytes → pending file `pending/<itemId>.<ext>`, writing,
  /// writeAttempts = 1, `photokit_write{shot,1}` + 12 s timeout (or the pre-write permission
  /// fail-fast). Smaller data → unchanged (the deadline converts it).
  mutating func photoData(
    shot: Int?, bytes: Int64?, ext: String?, _ s: inout SessionSnapshot, _ c: CaptureContext,
    _ out: inout [CaptureOutput]
  ) {
    guard let shot, let i = s.items.firstIndex(where: { $0.shotSeq == shot && $0.core == .captured_preview })
    else { return }
    let id = s.items[i].itemId
    var r = rt(id, c)
    guard let bytes, bytes >= Self.minPhotoDataBytes, !r.pendingWriteFailed else { return }
    r.photoDataAt = c.now
    r.writeAutoRetries = 0
    runtime[id] = r
    cancel(.deadline, id, &out)
    s.items[i].pendingFile = "pending/\(id).\(ext ?? "heic")"
    s.items[i].writeAttempts = 1
    setCore(i, .writing, &s, c, &out)
    startWriteAttempt(i, &s, c, &out)
  }

  /// Starts PhotoKit call number `writeAttempts` for item `i` (already `writing`): the
  /// ASSERT‑C‑WR‑004 fail-fast when photo auth is not authorized/limited, else
  /// `photokit_write{shot, attempt}` and the WRITE_CALLBACK_TIMEOUT.
  mutating func startWriteAttempt(_ i: Int, _ s: inout SessionSnapshot, _ c: CaptureContext, _ out: inout [CaptureOutput]) {
    let id = s.items[i].itemId
    guard Self.writableAuth.contains(c.photoAuth) else {
      let e = SaveErrorSnapshot(.write, nil, nil, "prewrite_photo_auth_\(c.photoAuth)")
      enterWriteFailed(i, .no_permission, e, &s, c, &out)
      return
    }
    var r = rt(id, c)
    r.awaitingWrite = true
    runtime[id] = r
    out.append(
      .effect(.photokitWrite(shot: s.items[i].shotSeq, attempt: s.items[i].writeAttempts)))
    schedule(.write_timeout, id, at: c.now + Self.writeCallbackTimeoutMs, &out)
  }

  /// Enters write_failed(reason): SaveErrorSnapshot on the A.13 line, prompt `write_failed`
  /// with the §4.8 zh phrase (a10 default, c41 by option).
  mutating func enterWriteFailed(
    _ i: Int, _ reason: WriteFailReason, _ error: SaveErrorSnapshot, _ s: inout SessionSnapshot,
    _ c: CaptureContext, _ out: inout [CaptureOutput]
  ) {
    let id = s.items[i].itemId
    cancel(.write_timeout, id, &out)
    cancel(.write_retry, id, &out)
    if var r = runtime[id] {
      r.awaitingWrite = false
      runtime[id] = r
    }
    s.items[i].writeFailReason = reason.rawValue
    s.items[i].lastErrorAtMs = c.wallMs
    setCore(i, .write_failed, &s, c, &out, error: error)
    let phrase = c.writeFailStringsC41 ? reason.c41.zh : reason.a10.zh
    out.append(.prompt(key: CapturePromptKey.writeFailed, payload: [("reason", .string(phrase))]))
  }

  /// `pending_write_failed {shot}` (§1.6): before the photo data → the data never becomes a
  /// pending file (the deadline converts the item); right after it (same t, attempt 1) → the
  /// writing start is undone; later → the pending file is gone (retry → pending_missing).
  mutating func pendingWriteFailed(shot: Int?, _ s: inout SessionSnapshot, _ c: CaptureContext, _ out: inout [CaptureOutput]) {
    guard let shot, let i = s.items.firstIndex(where: { $0.shotSeq == shot }) else { return }
    let id = s.items[i].itemId
    var r = rt(id, c)
    let justStarted = r.photoDataAt == c.now && s.items[i].writeAttempts == 1
    switch s.items[i].core {
    case .captured_preview:
      r.pendingWriteFailed = true
      runtime[id] = r
    case .writing where justStarted, .write_failed where justStarted:
      let wasFailed = s.items[i].core == .write_failed
      cancel(.write_timeout, id, &out)
      cancel(.write_retry, id, &out)
      r.awaitingWrite = false
      r.pendingWriteFailed = true
      r.photoDataAt = nil
      runtime[id] = r
      s.items[i].pendingFile = nil
      s.items[i].writeAttempts = 0
      s.items[i].writeFailReason = nil
      setCore(i, .captured_preview, &s, c, &out)
      if wasFailed { out.append(.withdraw(key: CapturePromptKey.writeFailed)) }
      schedule(.deadline, id, at: max(c.now, r.insertedAt + Self.captureDataDeadlineMs), &out)
    default:
      s.items[i].pendingFile = nil
    }
  }

  // MARK: §5.5 writing → write_success / retry / write_failed

  mutating func photokitResult(
    _ e: CoachEvent.PhotoKitWriteResult, _ s: inout SessionSnapshot, _ c: CaptureContext, _ out: inout [CaptureOutput]
  ) {
    let (shot, attempt) = (Int(e.shot), Int(e.attempt))
    guard let i = s.items.firstIndex(where: { $0.shotSeq == shot && $0.core == .writing }),
      s.items[i].writeAttempts == attempt, var r = runtime[s.items[i].itemId], r.awaitingWrite
    else { return }
    let id = s.items[i].itemId
    r.awaitingWrite = false
    runtime[id] = r
    cancel(.write_timeout, id, &out)
    if e.ok, let asset = e.assetId, !asset.isEmpty {
      writeSucceeded(i, asset, &s, c, &out)
      return
    }
    let err = e.error
    let domain = err?.domain
    let code = err?.code.map { Int($0) }
    let reason = Self.mapWriteFailReason(photoAuth: c.photoAuth, freeMB: c.freeMB, domain: domain, code: code)
    if reason == .system_pressure || reason == .photo_lib_unavailable, r.writeAutoRetries < Self.writeAutoRetryDelaysMs.count {
      // §5.5 / ASSERT‑C‑WR‑009: stays writing; retry after 300 then 1000 ms.
      let delay = Self.writeAutoRetryDelaysMs[r.writeAutoRetries]
      r.writeAutoRetries += 1
      runtime[id] = r
      schedule(.write_retry, id, at: c.now + delay, &out)
      return
    }
    var desc = err?.desc ?? "photokit_write_error"
    if e.ok { desc = "missing_asset_id" }
    if let p = s.items[i].pendingFile { desc += " pending=\(p)" }
    enterWriteFailed(i, reason, SaveErrorSnapshot(.write, error: err, desc), &s, c, &out)
  }

  mutating func writeAutoRetry(_ i: Int, _ s: inout SessionSnapshot, _ c: CaptureContext, _ out: inout [CaptureOutput]) {
    guard s.items[i].core == .writing else { return }
    s.items[i].writeAttempts += 1
    startWriteAttempt(i, &s, c, &out)
  }

  /// §5.5: 12 s without a PhotoKit callback → write_failed(photo_lib_unavailable), JustPhoto/1001.
  mutating func writeTimeout(_ i: Int, _ s: inout SessionSnapshot, _ c: CaptureContext, _ out: inout [CaptureOutput]) {
    guard s.items[i].core == .writing else { return }
    enterWriteFailed(i, .photo_lib_unavailable, SaveErrorSnapshot(.write, "JustPhoto", 1001, "write_timeout"), &s, c, &out)
  }

  /// write_success: persist the asset id, self-heal a thumb generated meanwhile, then §5.7
  /// verification (`fetch_asset{asset_id,1}` + the 2 s window); album add follows verification.
  mutating func writeSucceeded(
    _ i: Int, _ asset: String, _ s: inout SessionSnapshot, _ c: CaptureContext, _ out: inout [CaptureOutput]
  ) {
    let id = s.items[i].itemId
    cancel(.write_retry, id, &out)
    s.items[i].assetId = asset
    s.items[i].writeFailReason = nil
    setCore(i, .write_success, &s, c, &out)
    var r = rt(id, c)
    if r.hasRealThumb && s.items[i].thumb != .ready {
      setThumb(i, .ready, &s, c, &out)
    } else if !r.hasRealThumb && s.items[i].thumb == .pending && c.now >= r.insertedAt + Self.thumbFailMs {
      // The +5000 check was skipped while the item was write_failed ([C]); apply it now.
      s.items[i].lastErrorAtMs = c.wallMs
      setThumb(i, .failed, &s, c, &out, error: SaveErrorSnapshot(.thumb, nil, nil, "thumb_timeout_5000ms"))
    }
    r.writeSuccessAt = c.now
    r.firstFetchMs = nil
    r.fetchAttempt = 1
    r.verified = false
    r.verificationDone = false
    runtime[id] = r
    out.append(.effect(.fetchAsset(assetId: asset, attempt: 1)))
    schedule(.verify_window, id, at: c.now + Self.verificationWindowMs, &out)
  }

  // MARK: §5.7 verification

  mutating func fetchResult(
    assetId: String?, attempt: Int?, count: Int?, _ s: inout SessionSnapshot, _ c: CaptureContext,
    _ out: inout [CaptureOutput]
  ) {
    guard let assetId, let attempt, let count,
      let i = s.items.firstIndex(where: { $0.assetId == assetId && $0.core == .write_success }),
      var r = runtime[s.items[i].itemId], let start = r.writeSuccessAt, !r.verificationDone, attempt == r.fetchAttempt
    else { return }
    let id = s.items[i].itemId
    let elapsed = c.now - start
    if attempt == 1 {
      r.firstFetchMs = elapsed
      if count > 0 {
        r.verified = true
        r.verificationDone = true
        runtime[id] = r
        cancel(.verify_window, id, &out)
        out.append(verificationLine(assetId, r, retryUsed: false, within: elapsed <= Self.verificationWindowMs))
        startAlbumAdd(i, &s, c, &out)
      } else {
        r.fetchAttempt = 2
        runtime[id] = r
        schedule(.fetch_retry, id, at: c.now + Self.fetchRetryDelayMs, &out)
      }
      return
    }
    r.verified = count > 0
    r.verificationDone = true
    runtime[id] = r
    if count > 0 { cancel(.verify_window, id, &out) }
    out.append(
      verificationLine(assetId, r, retryUsed: true, within: count > 0 && elapsed <= Self.verificationWindowMs))
    startAlbumAdd(i, &s, c, &out)
  }

  /// `photo_write_verification` (ENGINE §6.2 [D], §8 G-25): asset_id_hash (SHA-256 hex of the
  /// local identifier, as `phantom_asset_detected`; the raw id of the reference export, DIAG
  /// records 6–15, is a privacy leak and a documented deviation), first_fetch_ms (§5.7),
  /// retry_used, retry_delay_ms ("500", or "" when unused: PRD null), verified_within_2s.
  func verificationLine(_ assetId: String, _ r: ItemRuntime, retryUsed: Bool, within: Bool) -> CaptureOutput {
    .diagnostic(
      event: "photo_write_verification",
      payload: [
        ("asset_id_hash", Self.assetHash(assetId)), ("first_fetch_ms", String(r.firstFetchMs ?? 0)),
        ("retry_used", retryUsed ? "true" : "false"), ("retry_delay_ms", retryUsed ? String(Self.fetchRetryDelayMs) : ""),
        ("verified_within_2s", within ? "true" : "false"),
      ])
  }

  mutating func fetchRetry(_ i: Int, _ s: inout SessionSnapshot, _ c: CaptureContext, _ out: inout [CaptureOutput]) {
    guard s.items[i].core == .write_success, let asset = s.items[i].assetId,
      let r = runtime[s.items[i].itemId], !r.verificationDone, r.fetchAttempt == 2
    else { return }
    out.append(.effect(.fetchAsset(assetId: asset, attempt: 2)))
  }

  /// 2.0 s after write_success and still not verified → `post_write_verification_delayed
  /// {asset_id_hash, elapsed_ms}`; the item stays write_success (never downgraded).
  mutating func verifyWindow(_ i: Int, _ s: inout SessionSnapshot, _ c: CaptureContext, _ out: inout [CaptureOutput]) {
    guard s.items[i].core == .write_success, let asset = s.items[i].assetId,
      let r = runtime[s.items[i].itemId], !r.verified, let start = r.writeSuccessAt
    else { return }
    out.append(
      .diagnostic(
        event: "post_write_verification_delayed",
        payload: [("asset_id_hash", Self.assetHash(asset)), ("elapsed_ms", String(c.now - start))]))
  }

  // MARK: §5.8 capture_failed

  /// CAPTURE_DATA_DEADLINE: still captured_preview (no pending file) → removed + capture_failed.
  mutating func deadline(_ i: Int, _ s: inout SessionSnapshot, _ c: CaptureContext, _ out: inout [CaptureOutput]) {
    guard s.items[i].core == .captured_preview, s.items[i].pendingFile == nil else { return }
    removeItem(i, reason: "deadline", &s, c, &out)
    captureFailed(c, &out)
  }

  /// §5.8 tracker: append now, prune entries < now − 30,000 (exactly 30 s old is kept);
  /// ≥ 3 → `camera_abnormal {count}` instead of the toast.
  mutating func captureFailed(_ c: CaptureContext, _ out: inout [CaptureOutput]) {
    captureFailures.append(c.now)
    captureFailures.removeAll { $0 < c.now - Self.captureFailureWindowMs }
    let n = captureFailures.count
    if n >= Self.captureFailureThreshold {
      out.append(.prompt(key: CapturePromptKey.cameraAbnormal, payload: [("count", .int(n))]))
    } else {
      out.append(.prompt(key: CapturePromptKey.captureFailedToast, payload: []))
    }
  }
}
