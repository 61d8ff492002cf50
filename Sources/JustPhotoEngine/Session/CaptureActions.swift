import EngineIO
import JustPhotoIO

// Prompt actions (ENGINE §4.7 as far as they touch items: §5.4, §5.5, §5.9) and cold-start
// recovery (§5.1).

extension CapturePipeline {
  /// Prompt actions on items. `item` is a shotSeq; nil → the newest write_failed item (for
  /// retry_write / abandon_item). Unknown ids → [].
  /// - `retry_write` (§5.5): write_failed → writing, writeAttempts + 1, `photokit_write`; taps within
  ///   2000 ms of the last accepted one are ignored; pending file missing → removed
  ///   (`pending_missing`, JustPhoto/1002).
  /// - `abandon_item`: write_failed → removed.
  /// - `retry_album_add` (§5.9): batch manual repair; result toast `album_retry_empty` /
  ///   `album_retry_result {total, ok, failed, skipped}`.
  /// - `clear_unliked` (§5.4, G-30): removes liked == false items not in {writing, write_failed,
  ///   captured_preview}; none → `nothing_to_clear`, else `workset_clear_unliked_done {deleted}`.
  /// - `later` (album banner "稍后", §5.9): no more automatic album banners this session.
  public mutating func action(_ actionId: String, item: Int?, _ s: inout SessionSnapshot, _ c: CaptureContext)
    -> [CaptureOutput]
  {
    var out: [CaptureOutput] = []
    switch actionId {
    case "retry_write":
      retryWrite(item, &s, c, &out)
    case "abandon_item":
      if let i = failedIndex(item, s) { removeItem(i, reason: "abandon", &s, c, &out) }
    case "retry_album_add":
      retryAlbumAdd(&s, c, &out)
    case "clear_unliked":
      clearUnliked(&s, c, &out)
    case "later":
      if !s.flags.contains(Self.albumLaterFlag) {
        s.flags.append(Self.albumLaterFlag)
        s.flags.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
      }
    default:
      return []
    }
    finish(&s, &out)
    return out
  }

  func failedIndex(_ item: Int?, _ s: SessionSnapshot) -> Int? {
    if let item { return s.items.firstIndex { $0.shotSeq == item && $0.core == .write_failed } }
    return s.items.firstIndex { $0.core == .write_failed }
  }

  mutating func retryWrite(_ item: Int?, _ s: inout SessionSnapshot, _ c: CaptureContext, _ out: inout [CaptureOutput]) {
    guard let i = failedIndex(item, s) else { return }
    let id = s.items[i].itemId
    var r = rt(id, c)
    if let last = r.lastRetryTapAt, c.now - last < Self.writeRetryCooldownMs { return }
    r.lastRetryTapAt = c.now
    runtime[id] = r
    guard s.items[i].pendingFile != nil else {
      removeItem(i, reason: "pending_missing", &s, c, &out, error: SaveErrorSnapshot(.write, "JustPhoto", 1002, "pending_missing"))
      return
    }
    r.writeAutoRetries = 0
    runtime[id] = r
    s.items[i].writeFailReason = nil
    s.items[i].writeAttempts += 1
    setCore(i, .writing, &s, c, &out)
    out.append(.withdraw(key: CapturePromptKey.writeFailed))
    startWriteAttempt(i, &s, c, &out)
  }

  mutating func clearUnliked(_ s: inout SessionSnapshot, _ c: CaptureContext, _ out: inout [CaptureOutput]) {
    let protected: [ItemCore] = [.writing, .write_failed, .captured_preview]
    let ids = s.items.filter { !$0.liked && !protected.contains($0.core) }.map(\.itemId)
    guard !ids.isEmpty else {
      out.append(.prompt(key: CapturePromptKey.nothingToClear, payload: []))
      return
    }
    for id in ids {
      if let i = s.items.firstIndex(where: { $0.itemId == id }) { removeItem(i, reason: "clear_unliked", &s, c, &out) }
    }
    out.append(.prompt(key: CapturePromptKey.clearUnlikedDone, payload: [("deleted", .int(ids.count))]))
  }

  // MARK: §5.1 cold-start recovery

  /// Cold-start recovery (ENGINE §5.1, PRD §C.8.3), per item in workset order, on a fresh pipeline:
  /// - captured_preview / writing / write_failed without a pending file → removed (`recovery`);
  /// - writing (or captured_preview) with a pending file → write_failed(photo_lib_unavailable);
  /// - thumb pending/failed → one silent `generate_thumb`, and the +5 s / +30 s rules re-armed from
  ///   createdAt (applied at once when overdue; not for write_failed items);
  /// - write_success: album none/queued → `album_add` again (the request died with the process);
  ///   album failed with a scheduled auto retry → re-armed at `albumRetryNextAtMs` (at once when
  ///   due); album failed without one (exhausted) → one launch retry not counted (G-28).
  /// No asset fetch at recovery. `removedCount` feeds the engine's `session_recover_prune`.
  public mutating func relaunch(_ s: inout SessionSnapshot, _ c: CaptureContext)
    -> (outputs: [CaptureOutput], removedCount: Int)
  {
    var out: [CaptureOutput] = []
    var removed = 0
    for id in s.items.map(\.itemId) {
      guard let i = s.items.firstIndex(where: { $0.itemId == id }) else { continue }
      let item = s.items[i]
      runtime[id] = ItemRuntime(insertedAt: c.now - (c.wallMs - item.createdAtMs))
      if item.core != .write_success && item.pendingFile == nil {
        removeItem(i, reason: "recovery", &s, c, &out)
        removed += 1
        continue
      }
      if item.core == .writing || item.core == .captured_preview {
        enterWriteFailed(i, .photo_lib_unavailable, SaveErrorSnapshot(.write, nil, nil, "cold_start_recovery"), &s, c, &out)
      }
      recoverThumb(i, &s, c, &out)
      if s.items[i].core == .write_success { recoverAlbum(i, &s, c, &out) }
    }
    finish(&s, &out)
    return (out, removed)
  }

  mutating func recoverThumb(_ i: Int, _ s: inout SessionSnapshot, _ c: CaptureContext, _ out: inout [CaptureOutput]) {
    let thumb = s.items[i].thumb
    guard thumb == .pending || thumb == .failed else { return }
    requestThumb(i, &s, &out)
    guard s.items[i].core != .write_failed, let r = runtime[s.items[i].itemId] else { return }
    let id = s.items[i].itemId
    if thumb == .pending {
      let due = r.insertedAt + Self.thumbFailMs
      if due <= c.now { thumbFail(i, &s, c, &out) } else { schedule(.thumb_fail, id, at: due, &out) }
    }
    let due = r.insertedAt + Self.thumbPermanentMs
    if due <= c.now { thumbPermanent(i, &s, c, &out) } else { schedule(.thumb_permanent, id, at: due, &out) }
  }

  mutating func recoverAlbum(_ i: Int, _ s: inout SessionSnapshot, _ c: CaptureContext, _ out: inout [CaptureOutput]) {
    switch s.items[i].album {
    case .none, .queued:
      startAlbumAdd(i, &s, c, &out)
    case .failed:
      if let next = s.items[i].albumRetryNextAtMs, s.items[i].albumRetryCount < Self.albumRetryDelaysMs.count {
        let due = c.now + (next - c.wallMs)
        if due <= c.now {
          albumAutoRetry(i, &s, c, &out)
        } else {
          schedule(.album_retry, s.items[i].itemId, at: due, &out)
        }
      } else {
        startAlbumAdd(i, &s, c, &out)
      }
    case .success:
      break
    }
  }
}
