import CanonicalJSON

/// An input event as the coaching engine receives it: one case per ``EventKind``, each carrying
/// its typed fields (ENGINE §1.5–1.6). Decoded once from an ``InputEvent`` (`init(decoding:)`);
/// an event whose fields do not match its kind's ``EventDefinition`` is refused with an
/// ``EventDecodingError`` naming the field and what was expected.
public enum CoachEvent: Sendable, Equatable {
  // Clock / app lifecycle
  case appLaunch(AppLaunch), posespecReload(PoseSpecReload), appLifecycle(AppLifecycle), memoryWarning
  case rotation(Rotation), systemDialog(SystemDialog)
  // Camera
  case cameraAuth(CameraAuth), cameraPermissionResult(CameraPermissionResult), cameraReady
  case cameraStartFailed(CameraStartFailed), cameraInterrupted(CameraInterruption)
  case cameraInterruptionEnded(CameraInterruption), cameraFlipped(CameraFlipped), previewStats(PreviewStats)
  // Frames (T0) and pixels / sensors (T1)
  case landmarks(LandmarkFrame), luma(LumaFrame), frameScalars(FrameScalars), deviceMotion(DeviceMotion)
  case whiteBalance(WhiteBalance), refRegistration(RefRegistration)
  // Device state
  case thermal(Thermal), voiceover(VoiceOver), network(Network), freeSpace(FreeSpace), photoAuth(PhotoAuth)
  case entitlement(Entitlement)
  // UI / user actions
  case uiScene(UIScene), shutterTap, promptAction(PromptAction), promptClose(PromptClose)
  case viewerOpen(ItemTap), viewerClose(ItemTap), viewerPage(ItemTap), likeToggle(LikeToggle)
  case resetSessionTap, praiseFeedback(PraiseFeedback), quietMode(QuietMode), praiseExpand
  case subjectTap(SubjectTap), refPick(RefPick), refAnalysis(RefAnalysis), refSwitch(RefSwitch)
  case inspirationOpen, inspirationClose, odrTap(OdrTap), odrRetryTap, wrapOpen, wrapExport, downReasonsOpen
  case downReasonSelect(DownReasonSelect), rebuildThumbTap(ItemTap), resumeEngine
  // Effect results (§1.6)
  case photoData(PhotoData), photoCaptureError(PhotoCaptureError), photokitWriteResult(PhotoKitWriteResult)
  case assetFetchResult(AssetFetchResult), albumAddResult(AlbumAddResult), thumbResult(ThumbResult)
  case favoriteSyncResult(FavoriteSyncResult), odrResult(OdrResult), purchaseResult(StoreResult)
  case restoreResult(StoreResult), pendingWriteFailed(PendingWriteFailed)
  // Generator ground truth (never given to the engine by the replayer)
  case label(Label)

  /// The typed form of `event`.
  public init(decoding event: InputEvent) throws(EventDecodingError) {
    switch event.payload {
    case .landmarks(let f): self = .landmarks(f)
    case .luma(let l): self = .luma(l)
    case .generic(let g): try self.init(decoding: g)
    case .named(let n):
      throw EventDecodingError(kindName: n.kind, field: nil, "not a Just Photo event kind (another engine's event in a Just Photo recording)")
    }
  }

  /// The typed form of a generic event: every field is in its kind's definition, every field
  /// the definition requires is there, and each has the stated type.
  public init(decoding g: GenericEvent) throws(EventDecodingError) {
    let r = EventReader(g.kind.definition, g.fields)
    try r.checkNoUnknownFields()
    switch g.kind {
    case .landmarks, .luma:
      throw EventDecodingError(kind: g.kind, field: nil, "expected a typed \(g.kind.rawValue) payload, found generic fields")
    case .app_launch: self = .appLaunch(try AppLaunch(r))
    case .posespec_reload: self = .posespecReload(try PoseSpecReload(r))
    case .app_lifecycle: self = .appLifecycle(try AppLifecycle(r))
    case .memory_warning: self = .memoryWarning
    case .rotation: self = .rotation(try Rotation(r))
    case .system_dialog: self = .systemDialog(try SystemDialog(r))
    case .camera_auth: self = .cameraAuth(try CameraAuth(r))
    case .camera_permission_result: self = .cameraPermissionResult(try CameraPermissionResult(r))
    case .camera_ready: self = .cameraReady
    case .camera_start_failed: self = .cameraStartFailed(try CameraStartFailed(r))
    case .camera_interrupted: self = .cameraInterrupted(try CameraInterruption(r))
    case .camera_interruption_ended: self = .cameraInterruptionEnded(try CameraInterruption(r))
    case .camera_flipped: self = .cameraFlipped(try CameraFlipped(r))
    case .preview_stats: self = .previewStats(try PreviewStats(r))
    case .frame_scalars: self = .frameScalars(try FrameScalars(r))
    case .device_motion: self = .deviceMotion(try DeviceMotion(r))
    case .white_balance: self = .whiteBalance(try WhiteBalance(r))
    case .ref_registration: self = .refRegistration(try RefRegistration(r))
    case .thermal: self = .thermal(try Thermal(r))
    case .voiceover: self = .voiceover(try VoiceOver(r))
    case .network: self = .network(try Network(r))
    case .free_space: self = .freeSpace(try FreeSpace(r))
    case .photo_auth: self = .photoAuth(try PhotoAuth(r))
    case .entitlement: self = .entitlement(try Entitlement(r))
    case .ui_scene: self = .uiScene(try UIScene(r))
    case .shutter_tap: self = .shutterTap
    case .prompt_action: self = .promptAction(try PromptAction(r))
    case .prompt_close: self = .promptClose(try PromptClose(r))
    case .viewer_open: self = .viewerOpen(try ItemTap(r))
    case .viewer_close: self = .viewerClose(try ItemTap(r))
    case .viewer_page: self = .viewerPage(try ItemTap(r))
    case .like_toggle: self = .likeToggle(try LikeToggle(r))
    case .reset_session_tap: self = .resetSessionTap
    case .praise_feedback: self = .praiseFeedback(try PraiseFeedback(r))
    case .quiet_mode: self = .quietMode(try QuietMode(r))
    case .praise_expand: self = .praiseExpand
    case .subject_tap: self = .subjectTap(try SubjectTap(r))
    case .ref_pick: self = .refPick(try RefPick(r))
    case .ref_analysis: self = .refAnalysis(try RefAnalysis(r))
    case .ref_switch: self = .refSwitch(try RefSwitch(r))
    case .inspiration_open: self = .inspirationOpen
    case .inspiration_close: self = .inspirationClose
    case .odr_tap: self = .odrTap(try OdrTap(r))
    case .odr_retry_tap: self = .odrRetryTap
    case .wrap_open: self = .wrapOpen
    case .wrap_export: self = .wrapExport
    case .down_reasons_open: self = .downReasonsOpen
    case .down_reason_select: self = .downReasonSelect(try DownReasonSelect(r))
    case .rebuild_thumb_tap: self = .rebuildThumbTap(try ItemTap(r))
    case .resume_engine: self = .resumeEngine
    case .photo_data: self = .photoData(try PhotoData(r))
    case .photo_capture_error: self = .photoCaptureError(try PhotoCaptureError(r))
    case .photokit_write_result: self = .photokitWriteResult(try PhotoKitWriteResult(r))
    case .asset_fetch_result: self = .assetFetchResult(try AssetFetchResult(r))
    case .album_add_result: self = .albumAddResult(try AlbumAddResult(r))
    case .thumb_result: self = .thumbResult(try ThumbResult(r))
    case .favorite_sync_result: self = .favoriteSyncResult(try FavoriteSyncResult(r))
    case .odr_result: self = .odrResult(try OdrResult(r))
    case .purchase_result: self = .purchaseResult(try StoreResult(r))
    case .restore_result: self = .restoreResult(try StoreResult(r))
    case .pending_write_failed: self = .pendingWriteFailed(try PendingWriteFailed(r))
    case .label: self = .label(try Label(r))
    }
  }

  /// The kind of this event.
  public var kind: EventKind {
    switch self {
    case .appLaunch: .app_launch
    case .posespecReload: .posespec_reload
    case .appLifecycle: .app_lifecycle
    case .memoryWarning: .memory_warning
    case .rotation: .rotation
    case .systemDialog: .system_dialog
    case .cameraAuth: .camera_auth
    case .cameraPermissionResult: .camera_permission_result
    case .cameraReady: .camera_ready
    case .cameraStartFailed: .camera_start_failed
    case .cameraInterrupted: .camera_interrupted
    case .cameraInterruptionEnded: .camera_interruption_ended
    case .cameraFlipped: .camera_flipped
    case .previewStats: .preview_stats
    case .landmarks: .landmarks
    case .luma: .luma
    case .frameScalars: .frame_scalars
    case .deviceMotion: .device_motion
    case .whiteBalance: .white_balance
    case .refRegistration: .ref_registration
    case .thermal: .thermal
    case .voiceover: .voiceover
    case .network: .network
    case .freeSpace: .free_space
    case .photoAuth: .photo_auth
    case .entitlement: .entitlement
    case .uiScene: .ui_scene
    case .shutterTap: .shutter_tap
    case .promptAction: .prompt_action
    case .promptClose: .prompt_close
    case .viewerOpen: .viewer_open
    case .viewerClose: .viewer_close
    case .viewerPage: .viewer_page
    case .likeToggle: .like_toggle
    case .resetSessionTap: .reset_session_tap
    case .praiseFeedback: .praise_feedback
    case .quietMode: .quiet_mode
    case .praiseExpand: .praise_expand
    case .subjectTap: .subject_tap
    case .refPick: .ref_pick
    case .refAnalysis: .ref_analysis
    case .refSwitch: .ref_switch
    case .inspirationOpen: .inspiration_open
    case .inspirationClose: .inspiration_close
    case .odrTap: .odr_tap
    case .odrRetryTap: .odr_retry_tap
    case .wrapOpen: .wrap_open
    case .wrapExport: .wrap_export
    case .downReasonsOpen: .down_reasons_open
    case .downReasonSelect: .down_reason_select
    case .rebuildThumbTap: .rebuild_thumb_tap
    case .resumeEngine: .resume_engine
    case .photoData: .photo_data
    case .photoCaptureError: .photo_capture_error
    case .photokitWriteResult: .photokit_write_result
    case .assetFetchResult: .asset_fetch_result
    case .albumAddResult: .album_add_result
    case .thumbResult: .thumb_result
    case .favoriteSyncResult: .favorite_sync_result
    case .odrResult: .odr_result
    case .purchaseResult: .purchase_result
    case .restoreResult: .restore_result
    case .pendingWriteFailed: .pending_write_failed
    case .label: .label
    }
  }
}

// MARK: Payloads, one per kind with fields (docs/FORMAT.md "All other kinds")

extension CoachEvent {
  /// `app_launch`: a cold start; `store` is a persisted store recorded on the event
  /// (`{"session": …, "install_flags": […]}`), which wins over the replayer's.
  public struct AppLaunch: Sendable, Equatable {
    static let definition = EventDefinition(.app_launch, .device, [.optional(.store, JSONObject.self)])
    public var store: StoreSnapshot?
    init(_ r: EventReader) throws(EventDecodingError) {
      let o: JSONObject? = try r.optional(.store)
      store = o.map { StoreSnapshot(json: .object($0)) }
    }
  }

  /// `posespec_reload`: an inline spec (validated by the engine) or a path (the shell's business).
  public struct PoseSpecReload: Sendable, Equatable {
    static let definition = EventDefinition(
      .posespec_reload, .device,
      [.required(.sha256, String.self), .optional(.spec, JSONObject.self), .optional(.path, String.self)])
    public var sha256: String
    public var spec: JSONObject?
    public var path: String?
    init(_ r: EventReader) throws(EventDecodingError) {
      sha256 = try r(.sha256)
      spec = try r.optional(.spec)
      path = try r.optional(.path)
    }
  }

  public struct AppLifecycle: Sendable, Equatable {
    public enum State: String, EventEnum { case active, inactive, background, terminated }
    static let definition = EventDefinition(.app_lifecycle, .device, [.required(.state, State.self)])
    public var state: State
    init(_ r: EventReader) throws(EventDecodingError) { state = try r(.state) }
  }

  public struct Rotation: Sendable, Equatable {
    static let definition = EventDefinition(.rotation, .device, [.required(.orientation, String.self)])
    public var orientation: String
    init(_ r: EventReader) throws(EventDecodingError) { orientation = try r(.orientation) }
  }

  public struct SystemDialog: Sendable, Equatable {
    static let definition = EventDefinition(.system_dialog, .device, [.required(.open, Bool.self)])
    public var open: Bool
    init(_ r: EventReader) throws(EventDecodingError) { open = try r(.open) }
  }

  public struct CameraAuth: Sendable, Equatable {
    public enum Status: String, EventEnum { case not_determined, authorized, denied, restricted }
    static let definition = EventDefinition(.camera_auth, .device, [.required(.status, Status.self)])
    public var status: Status
    init(_ r: EventReader) throws(EventDecodingError) { status = try r(.status) }
  }

  public struct CameraPermissionResult: Sendable, Equatable {
    static let definition = EventDefinition(.camera_permission_result, .device, [.required(.granted, Bool.self)])
    public var granted: Bool
    init(_ r: EventReader) throws(EventDecodingError) { granted = try r(.granted) }
  }

  public struct CameraStartFailed: Sendable, Equatable {
    public enum Reason: String, EventEnum { case camera_in_use, hardware_unavailable, unknown }
    static let definition = EventDefinition(.camera_start_failed, .device, [.required(.reason, Reason.self)])
    public var reason: Reason
    init(_ r: EventReader) throws(EventDecodingError) { reason = try r(.reason) }
  }

  /// `camera_interrupted` / `camera_interruption_ended`, with the system's reason when recorded.
  public struct CameraInterruption: Sendable, Equatable {
    static func definition(_ kind: EventKind) -> EventDefinition {
      EventDefinition(kind, .device, [.optional(.reason, String.self)])
    }
    public var reason: String?
    init(_ r: EventReader) throws(EventDecodingError) { reason = try r.optional(.reason) }
  }

  public struct CameraFlipped: Sendable, Equatable {
    public enum Facing: String, EventEnum { case back, front }
    static let definition = EventDefinition(.camera_flipped, .device, [.required(.facing, Facing.self)])
    public var facing: Facing
    init(_ r: EventReader) throws(EventDecodingError) { facing = try r(.facing) }
  }

  public struct PreviewStats: Sendable, Equatable {
    static let definition = EventDefinition(
      .preview_stats, .device,
      [.optional(.window_ms, Int64.self), .required(.dropped_frames, Int64.self), .optional(.avg_fps, Double.self)])
    public var windowMs: Int64?
    public var droppedFrames: Int64
    public var avgFps: Double?
    init(_ r: EventReader) throws(EventDecodingError) {
      windowMs = try r.optional(.window_ms)
      droppedFrames = try r(.dropped_frames)
      avgFps = try r.optional(.avg_fps)
    }
  }

  /// `frame_scalars`: metric values measured on the device for a frame; they override the
  /// engine's T1 values (§2.11).
  public struct FrameScalars: Sendable, Equatable {
    static let definition = EventDefinition(
      .frame_scalars, .pixels, [.optional(.frame, Int64.self), .required(.values, JSONObject.self)])
    public var frame: Int64?
    /// Metric name → value, in recorded order.
    public var values: [(name: String, value: Double)]
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
    public static func == (a: FrameScalars, b: FrameScalars) -> Bool {
      a.frame == b.frame && a.values.elementsEqual(b.values) { $0.name == $1.name && $0.value == $1.value }
    }
  }

  public struct DeviceMotion: Sendable, Equatable {
    static let definition = EventDefinition(.device_motion, .sensors, [.required(.rms, Double.self)])
    public var rms: Double
    init(_ r: EventReader) throws(EventDecodingError) { rms = try r(.rms) }
  }

  public struct WhiteBalance: Sendable, Equatable {
    static let definition = EventDefinition(
      .white_balance, .sensors,
      [.required(.temp_k, Double.self), .optional(.left_k, Double.self), .optional(.right_k, Double.self)])
    public var tempK: Double
    public var leftK: Double?
    public var rightK: Double?
    init(_ r: EventReader) throws(EventDecodingError) {
      tempK = try r(.temp_k)
      leftK = try r.optional(.left_k)
      rightK = try r.optional(.right_k)
    }
  }

  public struct RefRegistration: Sendable, Equatable {
    static let definition = EventDefinition(
      .ref_registration, .sensors,
      [
        .required(.offset_x, Double.self), .required(.offset_y, Double.self), .required(.rotation_deg, Double.self),
        .required(.scale, Double.self),
      ])
    public var offsetX: Double
    public var offsetY: Double
    public var rotationDeg: Double
    public var scale: Double
    init(_ r: EventReader) throws(EventDecodingError) {
      offsetX = try r(.offset_x)
      offsetY = try r(.offset_y)
      rotationDeg = try r(.rotation_deg)
      scale = try r(.scale)
    }
  }

  public struct Thermal: Sendable, Equatable {
    public enum State: String, EventEnum { case nominal, fair, serious, critical }
    static let definition = EventDefinition(.thermal, .device, [.required(.state, State.self)])
    public var state: State
    init(_ r: EventReader) throws(EventDecodingError) { state = try r(.state) }
  }

  public struct VoiceOver: Sendable, Equatable {
    static let definition = EventDefinition(.voiceover, .device, [.required(.enabled, Bool.self)])
    public var enabled: Bool
    init(_ r: EventReader) throws(EventDecodingError) { enabled = try r(.enabled) }
  }

  public struct Network: Sendable, Equatable {
    public enum Status: String, EventEnum { case satisfied, unsatisfied }
    static let definition = EventDefinition(.network, .device, [.required(.status, Status.self)])
    public var status: Status
    init(_ r: EventReader) throws(EventDecodingError) { status = try r(.status) }
  }

  public struct FreeSpace: Sendable, Equatable {
    static let definition = EventDefinition(.free_space, .device, [.required(.mb, Int64.self)])
    /// Free space in MB (floor of bytes / 2²⁰).
    public var mb: Int64
    init(_ r: EventReader) throws(EventDecodingError) { mb = try r(.mb) }
  }

  public struct PhotoAuth: Sendable, Equatable {
    public enum Status: String, EventEnum { case not_determined, authorized, limited, denied, restricted }
    static let definition = EventDefinition(.photo_auth, .device, [.required(.status, Status.self)])
    public var status: Status
    init(_ r: EventReader) throws(EventDecodingError) { status = try r(.status) }
  }

  public struct Entitlement: Sendable, Equatable {
    public enum State: String, EventEnum { case active, trial, expired, noEntitlement = "none" }
    static let definition = EventDefinition(.entitlement, .device, [.required(.state, State.self)])
    public var state: State
    init(_ r: EventReader) throws(EventDecodingError) { state = try r(.state) }
  }

  public struct UIScene: Sendable, Equatable {
    public enum Scene: String, EventEnum { case cafe, outdoor }
    static let definition = EventDefinition(.ui_scene, .ui, [.required(.scene, Scene.self)])
    public var scene: Scene
    init(_ r: EventReader) throws(EventDecodingError) { scene = try r(.scene) }
  }

  /// `prompt_action`: a button of prompt `key`; `item` names the item an item-level action is
  /// for (the Viewer's item when absent).
  public struct PromptAction: Sendable, Equatable {
    static let definition = EventDefinition(
      .prompt_action, .ui,
      [.required(.key, String.self), .required(.action_id, String.self), .optional(.item, Int64.self)])
    public var key: String
    public var actionId: String
    public var item: Int64?
    init(_ r: EventReader) throws(EventDecodingError) {
      key = try r(.key)
      actionId = try r(.action_id)
      item = try r.optional(.item)
    }
  }

  public struct PromptClose: Sendable, Equatable {
    static let definition = EventDefinition(.prompt_close, .ui, [.required(.key, String.self)])
    public var key: String
    init(_ r: EventReader) throws(EventDecodingError) { key = try r(.key) }
  }

  /// `viewer_open` / `viewer_close` / `viewer_page` / `rebuild_thumb_tap`: an item by its shotSeq.
  public struct ItemTap: Sendable, Equatable {
    static func definition(_ kind: EventKind) -> EventDefinition {
      EventDefinition(kind, .ui, [.required(.item, Int64.self)])
    }
    public var item: Int64
    init(_ r: EventReader) throws(EventDecodingError) { item = try r(.item) }
  }

  public struct LikeToggle: Sendable, Equatable {
    static let definition = EventDefinition(
      .like_toggle, .ui, [.required(.item, Int64.self), .required(.liked, Bool.self)])
    public var item: Int64
    public var liked: Bool
    init(_ r: EventReader) throws(EventDecodingError) {
      item = try r(.item)
      liked = try r(.liked)
    }
  }

  /// `praise_feedback` (ENGINE §1.5 calls the field `kind`, which would collide with the event kind).
  public struct PraiseFeedback: Sendable, Equatable {
    public enum Vote: String, EventEnum { case up, down }
    static let definition = EventDefinition(.praise_feedback, .ui, [.required(.vote, Vote.self)])
    public var vote: Vote
    init(_ r: EventReader) throws(EventDecodingError) { vote = try r(.vote) }
  }

  public struct QuietMode: Sendable, Equatable {
    static let definition = EventDefinition(.quiet_mode, .ui, [.required(.on, Bool.self)])
    public var on: Bool
    init(_ r: EventReader) throws(EventDecodingError) { on = try r(.on) }
  }

  public struct SubjectTap: Sendable, Equatable {
    static let definition = EventDefinition(.subject_tap, .ui, [.required(.face_index, Int64.self)])
    public var faceIndex: Int64
    init(_ r: EventReader) throws(EventDecodingError) { faceIndex = try r(.face_index) }
  }

  public struct RefPick: Sendable, Equatable {
    public enum Source: String, EventEnum { case user, odr }
    static let definition = EventDefinition(
      .ref_pick, .ui, [.required(.ref_id, String.self), .required(.source, Source.self)])
    public var refId: String
    public var source: Source
    init(_ r: EventReader) throws(EventDecodingError) {
      refId = try r(.ref_id)
      source = try r(.source)
    }
  }

  public struct RefSwitch: Sendable, Equatable {
    public enum Direction: String, EventEnum { case next, prev }
    static let definition = EventDefinition(.ref_switch, .ui, [.required(.dir, Direction.self)])
    public var dir: Direction
    init(_ r: EventReader) throws(EventDecodingError) { dir = try r(.dir) }
  }

  public struct OdrTap: Sendable, Equatable {
    static let definition = EventDefinition(.odr_tap, .ui, [.required(.tag, String.self)])
    public var tag: String
    init(_ r: EventReader) throws(EventDecodingError) { tag = try r(.tag) }
  }

  public struct DownReasonSelect: Sendable, Equatable {
    static let definition = EventDefinition(.down_reason_select, .ui, [.required(.reason, String.self)])
    public var reason: String
    init(_ r: EventReader) throws(EventDecodingError) { reason = try r(.reason) }
  }

  // MARK: Effect results

  public struct PhotoData: Sendable, Equatable {
    public enum Ext: String, EventEnum { case heic, jpg }
    static let definition = EventDefinition(
      .photo_data, .effects, [.required(.shot, Int64.self), .required(.bytes, Int64.self), .required(.ext, Ext.self)])
    public var shot: Int64
    public var bytes: Int64
    public var ext: Ext
    init(_ r: EventReader) throws(EventDecodingError) {
      shot = try r(.shot)
      bytes = try r(.bytes)
      ext = try r(.ext)
    }
  }

  public struct PhotoCaptureError: Sendable, Equatable {
    static let definition = EventDefinition(
      .photo_capture_error, .effects, [.required(.shot, Int64.self), .required(.error, JSONValue.self)])
    public var shot: Int64
    public var error: JSONValue
    init(_ r: EventReader) throws(EventDecodingError) {
      shot = try r(.shot)
      error = try r(.error)
    }
  }

  public struct PhotoKitWriteResult: Sendable, Equatable {
    static let definition = EventDefinition(
      .photokit_write_result, .effects,
      [
        .required(.shot, Int64.self), .required(.attempt, Int64.self), .required(.ok, Bool.self),
        .optional(.asset_id, String.self), .optional(.error, JSONObject.self),
      ])
    public var shot: Int64
    public var attempt: Int64
    public var ok: Bool
    public var assetId: String?
    public var error: EffectError?
    init(_ r: EventReader) throws(EventDecodingError) {
      shot = try r(.shot)
      attempt = try r(.attempt)
      ok = try r(.ok)
      assetId = try r.optional(.asset_id)
      error = (try r.optional(.error) as JSONObject?).map(EffectError.init)
    }
  }

  public struct AssetFetchResult: Sendable, Equatable {
    static let definition = EventDefinition(
      .asset_fetch_result, .effects,
      [.required(.asset_id, String.self), .required(.attempt, Int64.self), .required(.count, Int64.self)])
    public var assetId: String
    public var attempt: Int64
    public var count: Int64
    init(_ r: EventReader) throws(EventDecodingError) {
      assetId = try r(.asset_id)
      attempt = try r(.attempt)
      count = try r(.count)
    }
  }

  public struct AlbumAddResult: Sendable, Equatable {
    static let definition = EventDefinition(
      .album_add_result, .effects,
      [
        .required(.asset_id, String.self), .required(.attempt, Int64.self), .required(.ok, Bool.self),
        .optional(.error, JSONObject.self),
      ])
    public var assetId: String
    public var attempt: Int64
    public var ok: Bool
    public var error: EffectError?
    init(_ r: EventReader) throws(EventDecodingError) {
      assetId = try r(.asset_id)
      attempt = try r(.attempt)
      ok = try r(.ok)
      error = (try r.optional(.error) as JSONObject?).map(EffectError.init)
    }
  }

  public struct ThumbResult: Sendable, Equatable {
    static let definition = EventDefinition(
      .thumb_result, .effects, [.required(.shot, Int64.self), .required(.ok, Bool.self)])
    public var shot: Int64
    public var ok: Bool
    init(_ r: EventReader) throws(EventDecodingError) {
      shot = try r(.shot)
      ok = try r(.ok)
    }
  }

  public struct FavoriteSyncResult: Sendable, Equatable {
    public enum Result: String, EventEnum {
      case success, skipped_not_full_access, skipped_missing_asset, failed
    }
    static let definition = EventDefinition(
      .favorite_sync_result, .effects, [.required(.item, Int64.self), .required(.result, Result.self)])
    public var item: Int64
    public var result: Result
    init(_ r: EventReader) throws(EventDecodingError) {
      item = try r(.item)
      result = try r(.result)
    }
  }

  public struct OdrResult: Sendable, Equatable {
    static let definition = EventDefinition(
      .odr_result, .effects,
      [
        .required(.tag, String.self), .required(.attempt, Int64.self), .required(.ok, Bool.self),
        .optional(.error, JSONValue.self),
      ])
    public var tag: String
    public var attempt: Int64
    public var ok: Bool
    public var error: JSONValue?
    init(_ r: EventReader) throws(EventDecodingError) {
      tag = try r(.tag)
      attempt = try r(.attempt)
      ok = try r(.ok)
      error = try r.optional(.error)
    }
  }

  /// `purchase_result` / `restore_result`.
  public struct StoreResult: Sendable, Equatable {
    static func definition(_ kind: EventKind) -> EventDefinition {
      EventDefinition(kind, .effects, [.required(.ok, Bool.self), .optional(.error, JSONValue.self)])
    }
    public var ok: Bool
    public var error: JSONValue?
    init(_ r: EventReader) throws(EventDecodingError) {
      ok = try r(.ok)
      error = try r.optional(.error)
    }
  }

  public struct PendingWriteFailed: Sendable, Equatable {
    static let definition = EventDefinition(.pending_write_failed, .effects, [.required(.shot, Int64.self)])
    public var shot: Int64
    init(_ r: EventReader) throws(EventDecodingError) { shot = try r(.shot) }
  }

  /// A scenario's declared ground truth (scorers only; the replayer never hands it over).
  public struct Label: Sendable, Equatable {
    static let definition = EventDefinition(
      .label, .label, [.required(.cue_id, String.self), .required(.holds, Bool.self), .optional(.since, Int64.self)])
    public var cueId: String
    public var holds: Bool
    public var since: Int64?
    init(_ r: EventReader) throws(EventDecodingError) {
      cueId = try r(.cue_id)
      holds = try r(.holds)
      since = try r.optional(.since)
    }
  }
}

/// The `error` object of a PhotoKit or album result as the device recorded it
/// (`{domain, code, desc?, kind?, underlying?: {domain, code}}`): an NSError's parts. It is the
/// system's record, not the project's, so members of another type count as absent and further
/// members are kept unread in ``raw``.
public struct EffectError: Sendable, Equatable {
  public var domain: String?
  public var code: Int64?
  /// `desc`, else `description`.
  public var desc: String?
  /// The album adapter's classification (`asset_not_found`, …).
  public var kind: String?
  public var underlyingDomain: String?
  public var underlyingCode: Int64?
  public var raw: JSONObject

  public init(_ o: JSONObject) {
    raw = o
    domain = o["domain"]?.stringValue
    code = o["code"]?.int64Value
    desc = o["desc"]?.stringValue ?? o["description"]?.stringValue
    kind = o["kind"]?.stringValue
    let u = o["underlying"]?.objectValue
    underlyingDomain = u?["domain"]?.stringValue
    underlyingCode = u?["code"]?.int64Value
  }
}
