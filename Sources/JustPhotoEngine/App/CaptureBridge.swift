import CanonicalJSON
import EngineIO
import JustPhotoIO
import PoseSpec

/// Between the capture pipeline and the rest of the app (ENGINE §5.2–5.11, §5.13): turns
/// `CaptureOutput`s into trace lines, effects, prompts and A.13 lines, applies the workset rules
/// that watch the counters (the 15 banner, the 20 limit, the write_failed block), and keeps the
/// Viewer's item, where the write_failed bar shows (§4.6).
struct CaptureBridge: Sendable {
  enum Input {
    /// The pipeline's outputs of one call; `before` = (workset, write_failed) before the call
    /// (nil: the counts now).
    case capture([CaptureOutput], before: (workset: Int, failed: Int)?)
    /// `viewer_open` / `viewer_page` with the shown item, `viewer_close` (nil).
    case viewer(item: Int?, open: Bool)
    /// The Viewer opens on the newest write_failed item (§4.7 `open_first_write_failed`).
    case openFirstWriteFailed
  }

  /// What the mapping needs to know besides the session.
  struct Context {
    /// `captureFailedText=code`.
    var captureFailedCode: Bool
    /// `camera_abnormal` names the permission as the cause (photo or camera not authorized).
    var permissionCause: Bool
  }

  /// The write_failed block was entered (ENGINE §4.6 blocked_by_write_failed: once per entry).
  var blockedEntered = false
  /// The 20-limit modal was shown for the current "full" episode ([C] re-show rule, §4.9).
  var fullEpisodeShown = false
  /// The Viewer's item (shotSeq) while it is open.
  var viewerItem: Int?

  /// A new or restored session starts without an open episode.
  mutating func resetEpisodes() {
    blockedEntered = false
    fullEpisodeShown = false
  }

  mutating func handle(_ input: Input, session: SessionSnapshot, _ context: Context, at t: Millis) -> [MachineAction] {
    switch input {
    case .capture(let outputs, let before):
      let counts = before ?? (session.worksetCount, session.writeFailedCount)
      return outputs.flatMap { map($0, session: session, context) } + worksetRules(session, before: counts)
    case .viewer(let item, let open):
      viewerItem = open ? item : nil
      return [.withdraw(.write_failed)] + (open ? writeFailedBar(session) : [])
    case .openFirstWriteFailed:
      guard let item = session.items.first(where: { $0.core == .write_failed }) else { return [] }
      viewerItem = item.shotSeq
      return writeFailedBar(session)
    }
  }

  private func map(_ o: CaptureOutput, session: SessionSnapshot, _ context: Context) -> [MachineAction] {
    switch o {
    case .item(let item): return [.markDirty, .output(.item(ItemLine(item: item)))]
    case .removed(let item, let reason): return [.markDirty, .output(.item(ItemLine(item: item, removedReason: reason)))]
    case .effect(let request): return [.output(.effect(request))]
    case .timer(let request): return [.timer(request)]
    case .prompt(let key, var payload):
      // {count} of the [C] toasts (see PromptCatalogue): deleted / ok.
      if let n = payload.first(where: { $0.key == "deleted" || $0.key == "ok" })?.value {
        payload.append(("count", n))
      }
      switch key {
      // The bar lives in the Viewer (§4.6): shown when a write_failed item is viewed.
      case .write_failed: return writeFailedBar(session)
      case .capture_failed_toast:
        return [.promptDefinition(PromptCatalogue.captureFailedToast(code: context.captureFailedCode), payload: payload)]
      case .camera_abnormal:
        return [.promptDefinition(PromptCatalogue.cameraAbnormal(permissionCause: context.permissionCause), payload: payload)]
      case let other: return [.prompt(other, payload: payload)]
      }
    case .withdraw(let key): return [.conditionEnded(key)]
    case .diagnostic(let event, let payload): return [.diagnostic(event, payload)]
    }
  }

  /// The 15 banner, the 20-limit modal (once per full episode) and the write_failed block.
  private mutating func worksetRules(_ session: SessionSnapshot, before: (workset: Int, failed: Int)) -> [MachineAction] {
    var out: [MachineAction] = []
    let count = session.worksetCount
    if before.workset == 14 && count == 15 { out.append(.prompt(.session_count_15, payload: [("count", .int(15))])) }
    if count >= 20 && before.workset < 20 && !fullEpisodeShown {
      fullEpisodeShown = true
      out.append(.prompt(.session_full_20, payload: [("count", .int(20))]))
    } else if count < 20 && fullEpisodeShown {
      fullEpisodeShown = false
    }
    let failed = session.writeFailedCount
    if failed > 0 && before.failed == 0 && !blockedEntered {
      blockedEntered = true
      out += [.prompt(.write_failed_block, payload: [("write_failed_count", .int(failed))]), .prompt(.blocked_by_write_failed)]
    } else if failed == 0 && blockedEntered {
      blockedEntered = false
      out += [.conditionEnded(.blocked_by_write_failed), .conditionEnded(.write_failed_block), .withdraw(.write_failed)]
    }
    return out
  }

  /// The Viewer blocking bar (`write_failed`, §4.1, §5.6) for the viewed item, if it is
  /// write_failed; {reason} per `writeFailReasonStrings` (§4.8).
  private func writeFailedBar(_ session: SessionSnapshot) -> [MachineAction] {
    guard let shot = viewerItem, let item = session.items.first(where: { $0.shotSeq == shot }),
      item.core == .write_failed
    else { return [] }
    return [.prompt(.write_failed, payload: [("reason", .string(item.writeFailReason ?? ""))])]
  }
}
