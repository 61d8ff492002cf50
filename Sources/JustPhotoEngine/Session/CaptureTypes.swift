import CanonicalJSON
import EngineIO
import JustPhotoIO

// Value types of the per-item capture pipeline (ENGINE §5.2–§5.11). The pipeline itself is in
// CapturePipeline.swift and the Capture*.swift extensions; it is pure: every platform result
// comes in as an event, every request goes out as a `CaptureOutput` the engine turns into trace
// lines, timers, prompts and A.13 lines.

/// One thing the capture pipeline asks the engine to do, in generation order.
public enum CaptureOutput: Equatable, Sendable {
  /// The item's core/thumb/album/liked changed → the engine writes a trace `item` line.
  case item(SessionItem)
  /// The item was deleted (reasons: `deadline`, `abandon`, `phantom`, `pending_missing`,
  /// `clear_unliked`, `recovery`). The item is given as it was just before the removal.
  case removed(SessionItem, reason: String)
  /// An effect request of ENGINE §1.6 (`capture_photo`, `photokit_write`, `fetch_asset`,
  /// `album_add`, `generate_thumb`, `favorite_sync`).
  case effect(EffectRequest)
  /// A timer request; every id starts with `capture.` (see `CapturePipeline.TimerKind`).
  case timer(TimerRequest)
  /// Ask the prompt system to emit `key` (the engine applies gates, throttles, slots).
  case prompt(key: PromptKey, payload: [(key: String, value: PromptPayloadValue)])
  /// The condition behind a prompt ended (`in_flight_saving` when in_flight < 2, `write_failed`
  /// when its item left write_failed, `thumb_failed` on self-heal, `album_add_failed` when no
  /// album failure is left).
  case withdraw(key: PromptKey)
  /// An A.13 line; the engine adds ts_ms / session_id / scene. Payload keys in a fixed order.
  case diagnostic(event: String, payload: [(key: String, value: String)])

  public static func == (a: CaptureOutput, b: CaptureOutput) -> Bool {
    switch (a, b) {
    case (.item(let x), .item(let y)): return x == y
    case (.removed(let x, let r), .removed(let y, let q)): return x == y && r == q
    case (.effect(let x), .effect(let y)): return x == y
    case (.timer(let x), .timer(let y)): return x == y
    case (.prompt(let k, let p), .prompt(let l, let q)):
      return k == l && p.map(\.key) == q.map(\.key) && p.map(\.value) == q.map(\.value)
    case (.withdraw(let k), .withdraw(let l)): return k == l
    case (.diagnostic(let e, let p), .diagnostic(let f, let q)):
      return e == f && p.map(\.key) == q.map(\.key) && p.map(\.value) == q.map(\.value)
    default: return false
    }
  }
}

/// What the pipeline needs to know about "now" and the device, per call.
public struct CaptureContext: Sendable, Equatable {
  /// Virtual time (ENGINE §1.3).
  public var now: Millis
  /// wall(now) = header.wall_start_ms + now.
  public var wallMs: Int64
  /// Photo library authorization: not_determined / authorized / limited / denied / restricted.
  public var photoAuth: String
  /// Latest `free_space.mb` (nil = unknown).
  public var freeMB: Int?
  /// Option `writeFailReasonStrings == c41` (ENGINE §4.8, G-24).
  public var writeFailStringsC41: Bool
  /// Planted faults (``PlantedFault``); empty in every real run.
  public var faults = PlantedFaults()
  public init(now: Millis, wallMs: Int64, photoAuth: String, freeMB: Int?, writeFailStringsC41: Bool = false) {
    self.now = now
    self.wallMs = wallMs
    self.photoAuth = photoAuth
    self.freeMB = freeMB
    self.writeFailStringsC41 = writeFailStringsC41
  }
}

/// Prompt keys the capture pipeline emits. Keys with a catalogue row (PromptCatalogue) are used
/// as catalogued; `albumRetryEmpty`, `albumRetryResult` and `clearUnlikedDone` are [C] keys of
/// ENGINE §4.9 without a catalogue row.
public enum CapturePromptKey {
  public static let lowSpaceWarn = PromptKey.low_space_warn
  public static let writeFailed = PromptKey.write_failed
  /// ENGINE §5.8 / G-17: the L1 toast (catalogue `capture_failed_toast`).
  public static let captureFailedToast = PromptKey.capture_failed_toast
  /// ENGINE §5.8: 3 failures in 30 s → L3 "相机异常" (catalogue `camera_abnormal`, = [C]
  /// `capture_failed_abnormal_modal`).
  public static let cameraAbnormal = PromptKey.camera_abnormal
  /// ENGINE §5.9 banner (catalogue `album_add_failed`, = [C] `album_add_failed_banner`).
  public static let albumAddFailed = PromptKey.album_add_failed
  public static let albumRetryEmpty = PromptKey.album_retry_empty
  public static let albumRetryResult = PromptKey.album_retry_result
  public static let nothingToClear = PromptKey.nothing_to_clear
  public static let clearUnlikedDone = PromptKey.workset_clear_unliked_done
  public static let inFlightSaving = PromptKey.in_flight_saving
  public static let thumbFailed = PromptKey.thumb_failed
  public static let favoriteSyncFailed = PromptKey.favorite_sync_failed
}

/// SaveErrorSnapshot (PRD §C.1.2, ENGINE §5.1) as carried on `item_state_changed` lines: the
/// stage that failed (`write`, `album` or `thumb`: the item's lastWrite/Album/ThumbError), the
/// error domain ("(none)" if absent), code (0 if absent), description (≤ 200 characters) and the
/// underlying error's domain and code (nil when the recorded error has no `underlying`). The
/// free space, photo auth and time at the error come from the capture context (`stateDiag`).
struct SaveErrorSnapshot: Equatable, Sendable {
  enum Stage: String, Sendable { case write, album, thumb }
  var stage: Stage
  var domain: String
  var code: Int
  var desc: String
  var underlyingDomain: String?
  var underlyingCode: Int?
  init(
    _ stage: Stage, _ domain: String?, _ code: Int?, _ desc: String,
    underlyingDomain: String? = nil, underlyingCode: Int? = nil
  ) {
    self.stage = stage
    if let domain, !domain.isEmpty { self.domain = domain } else { self.domain = "(none)" }
    self.code = code ?? 0
    self.desc = String(desc.prefix(200))
    self.underlyingDomain = underlyingDomain.flatMap { $0.isEmpty ? nil : $0 }
    self.underlyingCode = underlyingCode
  }

  /// The snapshot of a recorded error object `{domain, code, underlying?: {domain, code}}`.
  init(_ stage: Stage, error: EffectError?, _ desc: String) {
    self.init(
      stage, error?.domain, error?.code.map { Int($0) }, desc, underlyingDomain: error?.underlyingDomain,
      underlyingCode: error?.underlyingCode.map { Int($0) })
  }
}

extension CapturePipeline {
  /// ENGINE §5.6 `mapWriteFailReason(photoAuth, freeMB, error)`; first match wins:
  /// 1. no_permission: auth ∈ {denied, restricted, not_determined}, or PHPhotosErrorDomain 3310/3311;
  /// 2. no_space: freeMB < 200, NSCocoaErrorDomain 640, NSPOSIXErrorDomain 28, PHPhotosErrorDomain 3305;
  /// 3. photo_lib_unavailable: PHPhotosErrorDomain 3114 (libraryVolumeOffline), 3142
  ///    (relinquishingLibraryBundleToWriter), 3143 (switchingSystemPhotoLibrary), JustPhoto 1001
  ///    (write timeout) [D: the codes that mean "library unavailable / volume unmounted"];
  /// 4. system_pressure: everything else (e.g. PHPhotosErrorDomain 3302 invalidResource).
  public static func mapWriteFailReason(photoAuth: String, freeMB: Int?, domain: String?, code: Int?)
    -> WriteFailReason
  {
    let d = domain ?? ""
    let k = code ?? 0
    if ["denied", "restricted", "not_determined"].contains(photoAuth) { return .no_permission }
    if d == "PHPhotosErrorDomain" && (k == 3310 || k == 3311) { return .no_permission }
    if let mb = freeMB, mb < diskBlockMB { return .no_space }
    if (d == "NSCocoaErrorDomain" && k == 640) || (d == "NSPOSIXErrorDomain" && k == 28)
      || (d == "PHPhotosErrorDomain" && k == 3305)
    {
      return .no_space
    }
    if (d == "PHPhotosErrorDomain" && [3114, 3142, 3143].contains(k)) || (d == "JustPhoto" && k == 1001) {
      return .photo_lib_unavailable
    }
    return .system_pressure
  }
}
