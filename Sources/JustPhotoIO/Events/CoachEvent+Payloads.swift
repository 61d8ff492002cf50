import CanonicalJSON
import EngineIO

// MARK: Payloads, one per kind with fields (docs/FORMAT.md "All other kinds")

extension CoachEvent {
  /// `app_launch`: a cold start; `store` is a persisted store recorded on the event
  /// (`{"session": …, "install_flags": […]}`), which wins over the replayer's.
  package struct AppLaunch: Sendable, Equatable {
    static let definition = EventDefinition(.app_launch, .device, [.optional(.store, JSONObject.self)])
    package var store: StoreSnapshot?
    init(_ r: EventReader) throws(EventDecodingError) {
      let o: JSONObject? = try r.optional(.store)
      store = o.map { StoreSnapshot(json: .object($0)) }
    }
  }

  /// `posespec_reload`: an inline spec (validated by the engine) or a path (the shell's business).
  package struct PoseSpecReload: Sendable, Equatable {
    static let definition = EventDefinition(
      .posespec_reload, .device,
      [.required(.sha256, String.self), .optional(.spec, JSONObject.self), .optional(.path, String.self)])
    package var sha256: String
    package var spec: JSONObject?
    package var path: String?
    init(_ r: EventReader) throws(EventDecodingError) {
      sha256 = try r(.sha256)
      spec = try r.optional(.spec)
      path = try r.optional(.path)
    }
  }

  package struct AppLifecycle: Sendable, Equatable {
    package enum State: String, EventEnum { case active, inactive, background, terminated }
    static let definition = EventDefinition(.app_lifecycle, .device, [.required(.state, State.self)])
    package var state: State
    init(_ r: EventReader) throws(EventDecodingError) { state = try r(.state) }
  }

  package struct Rotation: Sendable, Equatable {
    static let definition = EventDefinition(.rotation, .device, [.required(.orientation, String.self)])
    package var orientation: String
    init(_ r: EventReader) throws(EventDecodingError) { orientation = try r(.orientation) }
  }

  package struct SystemDialog: Sendable, Equatable {
    static let definition = EventDefinition(.system_dialog, .device, [.required(.open, Bool.self)])
    package var open: Bool
    init(_ r: EventReader) throws(EventDecodingError) { open = try r(.open) }
  }

  package struct CameraAuth: Sendable, Equatable {
    package enum Status: String, EventEnum { case not_determined, authorized, denied, restricted }
    static let definition = EventDefinition(.camera_auth, .device, [.required(.status, Status.self)])
    package var status: Status
    init(_ r: EventReader) throws(EventDecodingError) { status = try r(.status) }
  }

  package struct CameraPermissionResult: Sendable, Equatable {
    static let definition = EventDefinition(.camera_permission_result, .device, [.required(.granted, Bool.self)])
    package var granted: Bool
    init(_ r: EventReader) throws(EventDecodingError) { granted = try r(.granted) }
  }

  package struct CameraStartFailed: Sendable, Equatable {
    package enum Reason: String, EventEnum { case camera_in_use, hardware_unavailable, unknown }
    static let definition = EventDefinition(.camera_start_failed, .device, [.required(.reason, Reason.self)])
    package var reason: Reason
    init(_ r: EventReader) throws(EventDecodingError) { reason = try r(.reason) }
  }

  /// `camera_interrupted` / `camera_interruption_ended`, with the system's reason when recorded.
  package struct CameraInterruption: Sendable, Equatable {
    static func definition(_ kind: EventKind) -> EventDefinition {
      EventDefinition(kind, .device, [.optional(.reason, String.self)])
    }
    package var reason: String?
    init(_ r: EventReader) throws(EventDecodingError) { reason = try r.optional(.reason) }
  }

  package struct CameraFlipped: Sendable, Equatable {
    package enum Facing: String, EventEnum { case back, front }
    static let definition = EventDefinition(.camera_flipped, .device, [.required(.facing, Facing.self)])
    package var facing: Facing
    init(_ r: EventReader) throws(EventDecodingError) { facing = try r(.facing) }
  }

  package struct PreviewStats: Sendable, Equatable {
    static let definition = EventDefinition(
      .preview_stats, .device,
      [.optional(.window_ms, Int64.self), .required(.dropped_frames, Int64.self), .optional(.avg_fps, Double.self)])
    package var windowMs: Int64?
    package var droppedFrames: Int64
    package var avgFps: Double?
    init(_ r: EventReader) throws(EventDecodingError) {
      windowMs = try r.optional(.window_ms)
      droppedFrames = try r(.dropped_frames)
      avgFps = try r.optional(.avg_fps)
    }
  }

  /// `frame_scalars`: metric values measured on the device for a frame; they override the
  /// engine's T1 values (§2.11).
  package struct FrameScalars: Sendable, Equatable {
    static let definition = EventDefinition(
      .frame_scalars, .pixels, [.optional(.frame, Int64.self), .required(.values, JSONObject.self)])
    package var frame: Int64?
    /// Metric name → value, in recorded order.
    package var values: [(name: String, value: Double)]
    init(_ r: EventReader) throws(EventDecodingError) {
      frame = try r.optional(.frame)
      let o: JSONObject = try r(.values)
      values = try Self.numbers(o, kind: .frame_scalars, field: .values)
    }
    /// Every member of `o` as a number; anything else is refused, naming the member.
    static func numbers(_ o: JSONObject, kind: EventKind, field: EventField) throws(EventDecodingError)
      -> [(name: String, value: Double)]
    {
      var out: [(name: String, value: Double)] = []
      out.reserveCapacity(o.count)
      for m in o.members {
        guard let d = m.value.doubleValue else {
          throw EventDecodingError(
            kind: kind, field: field.rawValue,
            "field \"\(field.rawValue)\": expected an object {metric: number}, found \(m.key): \(EventReader.describe(m.value))")
        }
        out.append((m.key, d))
      }
      return out
    }
    package static func == (a: FrameScalars, b: FrameScalars) -> Bool {
      a.frame == b.frame && a.values.elementsEqual(b.values) { $0.name == $1.name && $0.value == $1.value }
    }
  }

  package struct DeviceMotion: Sendable, Equatable {
    static let definition = EventDefinition(.device_motion, .sensors, [.required(.rms, Double.self)])
    package var rms: Double
    init(_ r: EventReader) throws(EventDecodingError) { rms = try r(.rms) }
  }

  package struct WhiteBalance: Sendable, Equatable {
    static let definition = EventDefinition(
      .white_balance, .sensors,
      [.required(.temp_k, Double.self), .optional(.left_k, Double.self), .optional(.right_k, Double.self)])
    package var tempK: Double
    package var leftK: Double?
    package var rightK: Double?
    init(_ r: EventReader) throws(EventDecodingError) {
      tempK = try r(.temp_k)
      leftK = try r.optional(.left_k)
      rightK = try r.optional(.right_k)
    }
  }

  package struct RefRegistration: Sendable, Equatable {
    static let definition = EventDefinition(
      .ref_registration, .sensors,
      [
        .required(.offset_x, Double.self), .required(.offset_y, Double.self), .required(.rotation_deg, Double.self),
        .required(.scale, Double.self),
      ])
    package var offsetX: Double
    package var offsetY: Double
    package var rotationDeg: Double
    package var scale: Double
    init(_ r: EventReader) throws(EventDecodingError) {
      offsetX = try r(.offset_x)
      offsetY = try r(.offset_y)
      rotationDeg = try r(.rotation_deg)
      scale = try r(.scale)
    }
  }

  package struct Thermal: Sendable, Equatable {
    package enum State: String, EventEnum { case nominal, fair, serious, critical }
    static let definition = EventDefinition(.thermal, .device, [.required(.state, State.self)])
    package var state: State
    init(_ r: EventReader) throws(EventDecodingError) { state = try r(.state) }
  }

  package struct VoiceOver: Sendable, Equatable {
    static let definition = EventDefinition(.voiceover, .device, [.required(.enabled, Bool.self)])
    package var enabled: Bool
    init(_ r: EventReader) throws(EventDecodingError) { enabled = try r(.enabled) }
  }

  package struct Network: Sendable, Equatable {
    package enum Status: String, EventEnum { case satisfied, unsatisfied }
    static let definition = EventDefinition(.network, .device, [.required(.status, Status.self)])
    package var status: Status
    init(_ r: EventReader) throws(EventDecodingError) { status = try r(.status) }
  }

  package struct FreeSpace: Sendable, Equatable {
    static let definition = EventDefinition(.free_space, .device, [.required(.mb, Int64.self)])
    /// Free space in MB (floor of bytes / 2²⁰).
    package var mb: Int64
    init(_ r: EventReader) throws(EventDecodingError) { mb = try r(.mb) }
  }

  package struct PhotoAuth: Sendable, Equatable {
    package enum Status: String, EventEnum { case not_determined, authorized, limited, denied, restricted }
    static let definition = EventDefinition(.photo_auth, .device, [.required(.status, Status.self)])
    package var status: Status
    init(_ r: EventReader) throws(EventDecodingError) { status = try r(.status) }
  }

  package struct Entitlement: Sendable, Equatable {
    package enum State: String, EventEnum { case active, trial, expired, noEntitlement = "none" }
    static let definition = EventDefinition(.entitlement, .device, [.required(.state, State.self)])
    package var state: State
    init(_ r: EventReader) throws(EventDecodingError) { state = try r(.state) }
  }

  package struct UIScene: Sendable, Equatable {
    package enum Scene: String, EventEnum { case cafe, outdoor }
    static let definition = EventDefinition(.ui_scene, .ui, [.required(.scene, Scene.self)])
    package var scene: Scene
    init(_ r: EventReader) throws(EventDecodingError) { scene = try r(.scene) }
  }

  /// `prompt_action`: a button of prompt `key`; `item` names the item an item-level action is
  /// for (the Viewer's item when absent).
  package struct PromptAction: Sendable, Equatable {
    static let definition = EventDefinition(
      .prompt_action, .ui,
      [.required(.key, String.self), .required(.action_id, String.self), .optional(.item, Int64.self)])
    package var key: String
    package var actionId: String
    package var item: Int64?
    init(_ r: EventReader) throws(EventDecodingError) {
      key = try r(.key)
      actionId = try r(.action_id)
      item = try r.optional(.item)
    }
  }

  package struct PromptClose: Sendable, Equatable {
    static let definition = EventDefinition(.prompt_close, .ui, [.required(.key, String.self)])
    package var key: String
    init(_ r: EventReader) throws(EventDecodingError) { key = try r(.key) }
  }

  /// `viewer_open` / `viewer_close` / `viewer_page` / `rebuild_thumb_tap`: an item by its shotSeq.
  package struct ItemTap: Sendable, Equatable {
    static func definition(_ kind: EventKind) -> EventDefinition {
      EventDefinition(kind, .ui, [.required(.item, Int64.self)])
    }
    package var item: Int64
    init(_ r: EventReader) throws(EventDecodingError) { item = try r(.item) }
  }

  package struct LikeToggle: Sendable, Equatable {
    static let definition = EventDefinition(
      .like_toggle, .ui, [.required(.item, Int64.self), .required(.liked, Bool.self)])
    package var item: Int64
    package var liked: Bool
    init(_ r: EventReader) throws(EventDecodingError) {
      item = try r(.item)
      liked = try r(.liked)
    }
  }

  /// `praise_feedback` (ENGINE §1.5 calls the field `kind`, which would collide with the event kind).
  package struct PraiseFeedback: Sendable, Equatable {
    package enum Vote: String, EventEnum { case up, down }
    static let definition = EventDefinition(.praise_feedback, .ui, [.required(.vote, Vote.self)])
    package var vote: Vote
    init(_ r: EventReader) throws(EventDecodingError) { vote = try r(.vote) }
  }

  package struct QuietMode: Sendable, Equatable {
    static let definition = EventDefinition(.quiet_mode, .ui, [.required(.on, Bool.self)])
    package var on: Bool
    init(_ r: EventReader) throws(EventDecodingError) { on = try r(.on) }
  }

  package struct SubjectTap: Sendable, Equatable {
    static let definition = EventDefinition(.subject_tap, .ui, [.required(.face_index, Int64.self)])
    package var faceIndex: Int64
    init(_ r: EventReader) throws(EventDecodingError) { faceIndex = try r(.face_index) }
  }

  package struct RefPick: Sendable, Equatable {
    package enum Source: String, EventEnum { case user, odr }
    static let definition = EventDefinition(
      .ref_pick, .ui, [.required(.ref_id, String.self), .required(.source, Source.self)])
    package var refId: String
    package var source: Source
    init(_ r: EventReader) throws(EventDecodingError) {
      refId = try r(.ref_id)
      source = try r(.source)
    }
  }

  package struct RefSwitch: Sendable, Equatable {
    package enum Direction: String, EventEnum { case next, prev }
    static let definition = EventDefinition(.ref_switch, .ui, [.required(.dir, Direction.self)])
    package var dir: Direction
    init(_ r: EventReader) throws(EventDecodingError) { dir = try r(.dir) }
  }

  package struct OdrTap: Sendable, Equatable {
    static let definition = EventDefinition(.odr_tap, .ui, [.required(.tag, String.self)])
    package var tag: String
    init(_ r: EventReader) throws(EventDecodingError) { tag = try r(.tag) }
  }

  package struct DownReasonSelect: Sendable, Equatable {
    static let definition = EventDefinition(.down_reason_select, .ui, [.required(.reason, String.self)])
    package var reason: String
    init(_ r: EventReader) throws(EventDecodingError) { reason = try r(.reason) }
  }

  // MARK: Effect results

  package struct PhotoData: Sendable, Equatable {
    package enum Ext: String, EventEnum { case heic, jpg }
    static let definition = EventDefinition(
      .photo_data, .effects, [.required(.shot, Int64.self), .required(.bytes, Int64.self), .required(.ext, Ext.self)])
    package var shot: Int64
    package var bytes: Int64
    package var ext: Ext
    init(_ r: EventReader) throws(EventDecodingError) {
      shot = try r(.shot)
      bytes = try r(.bytes)
      ext = try r(.ext)
    }
  }

  package struct PhotoCaptureError: Sendable, Equatable {
    static let definition = EventDefinition(
      .photo_capture_error, .effects, [.required(.shot, Int64.self), .required(.error, JSONValue.self)])
    package var shot: Int64
    package var error: JSONValue
    init(_ r: EventReader) throws(EventDecodingError) {
      shot = try r(.shot)
      error = try r(.error)
    }
  }

  package struct PhotoKitWriteResult: Sendable, Equatable {
    static let definition = EventDefinition(
      .photokit_write_result, .effects,
      [
        .required(.shot, Int64.self), .required(.attempt, Int64.self), .required(.ok, Bool.self),
        .optional(.asset_id, String.self), .optional(.error, JSONObject.self),
      ])
    package var shot: Int64
    package var attempt: Int64
    package var ok: Bool
    package var assetId: String?
    package var error: EffectError?
    init(_ r: EventReader) throws(EventDecodingError) {
      shot = try r(.shot)
      attempt = try r(.attempt)
      ok = try r(.ok)
      assetId = try r.optional(.asset_id)
      error = (try r.optional(.error) as JSONObject?).map(EffectError.init)
    }
  }

  package struct AssetFetchResult: Sendable, Equatable {
    static let definition = EventDefinition(
      .asset_fetch_result, .effects,
      [.required(.asset_id, String.self), .required(.attempt, Int64.self), .required(.count, Int64.self)])
    package var assetId: String
    package var attempt: Int64
    package var count: Int64
    init(_ r: EventReader) throws(EventDecodingError) {
      assetId = try r(.asset_id)
      attempt = try r(.attempt)
      count = try r(.count)
    }
  }

  package struct AlbumAddResult: Sendable, Equatable {
    static let definition = EventDefinition(
      .album_add_result, .effects,
      [
        .required(.asset_id, String.self), .required(.attempt, Int64.self), .required(.ok, Bool.self),
        .optional(.error, JSONObject.self),
      ])
    package var assetId: String
    package var attempt: Int64
    package var ok: Bool
    package var error: EffectError?
    init(_ r: EventReader) throws(EventDecodingError) {
      assetId = try r(.asset_id)
      attempt = try r(.attempt)
      ok = try r(.ok)
      error = (try r.optional(.error) as JSONObject?).map(EffectError.init)
    }
  }

  package struct ThumbResult: Sendable, Equatable {
    static let definition = EventDefinition(
      .thumb_result, .effects, [.required(.shot, Int64.self), .required(.ok, Bool.self)])
    package var shot: Int64
    package var ok: Bool
    init(_ r: EventReader) throws(EventDecodingError) {
      shot = try r(.shot)
      ok = try r(.ok)
    }
  }

  package struct FavoriteSyncResult: Sendable, Equatable {
    package enum Result: String, EventEnum {
      case success, skipped_not_full_access, skipped_missing_asset, failed
    }
    static let definition = EventDefinition(
      .favorite_sync_result, .effects, [.required(.item, Int64.self), .required(.result, Result.self)])
    package var item: Int64
    package var result: Result
    init(_ r: EventReader) throws(EventDecodingError) {
      item = try r(.item)
      result = try r(.result)
    }
  }

  package struct OdrResult: Sendable, Equatable {
    static let definition = EventDefinition(
      .odr_result, .effects,
      [
        .required(.tag, String.self), .required(.attempt, Int64.self), .required(.ok, Bool.self),
        .optional(.error, JSONValue.self),
      ])
    package var tag: String
    package var attempt: Int64
    package var ok: Bool
    package var error: JSONValue?
    init(_ r: EventReader) throws(EventDecodingError) {
      tag = try r(.tag)
      attempt = try r(.attempt)
      ok = try r(.ok)
      error = try r.optional(.error)
    }
  }

  /// `purchase_result` / `restore_result`.
  package struct StoreResult: Sendable, Equatable {
    static func definition(_ kind: EventKind) -> EventDefinition {
      EventDefinition(kind, .effects, [.required(.ok, Bool.self), .optional(.error, JSONValue.self)])
    }
    package var ok: Bool
    package var error: JSONValue?
    init(_ r: EventReader) throws(EventDecodingError) {
      ok = try r(.ok)
      error = try r.optional(.error)
    }
  }

  package struct PendingWriteFailed: Sendable, Equatable {
    static let definition = EventDefinition(.pending_write_failed, .effects, [.required(.shot, Int64.self)])
    package var shot: Int64
    init(_ r: EventReader) throws(EventDecodingError) { shot = try r(.shot) }
  }

  /// A scenario's declared ground truth (scorers only; the replayer never hands it over).
  package struct Label: Sendable, Equatable {
    static let definition = EventDefinition(
      .label, .label, [.required(.cue_id, String.self), .required(.holds, Bool.self), .optional(.since, Int64.self)])
    package var cueId: String
    package var holds: Bool
    package var since: Int64?
    init(_ r: EventReader) throws(EventDecodingError) {
      cueId = try r(.cue_id)
      holds = try r(.holds)
      since = try r.optional(.since)
    }
  }
}
