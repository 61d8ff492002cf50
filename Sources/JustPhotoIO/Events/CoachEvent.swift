import CanonicalJSON
import EngineIO

/// An input event as the coaching engine receives it: one case per ``EventKind``, each carrying
/// its typed fields (ENGINE §1.5–1.6). Decoded once from an ``InputEvent`` (`init(decoding:)`);
/// an event whose fields do not match its kind's ``EventDefinition`` is refused with an
/// ``EventDecodingError`` naming the field and what was expected.
package enum CoachEvent: Sendable, Equatable {
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
  /// `consuming`: the payload moves into the typed event (a frame's arrays are not retained).
  package init(decoding event: consuming InputEvent) throws(EventDecodingError) {
    let payload = (consume event).payload
    switch consume payload {
    case .landmarks(let f): self = .landmarks(f)
    case .luma(let l): self = .luma(l)
    case .typed(let e):
      switch e.decoded {
      case .success(let typed): self = typed
      case .failure(let error): throw error
      }
    case .named(let n):
      throw EventDecodingError(kindName: n.kind, field: nil, "not a Just Photo event kind (another engine's event in a Just Photo recording)")
    }
  }

  /// The typed form of `event` (decoded when it was made).
  package init(decoding event: JustPhotoEvent) throws(EventDecodingError) {
    switch event.decoded {
    case .success(let typed): self = typed
    case .failure(let error): throw error
    }
  }

  /// The typed form of an event of `kind` with `fields`: every field is in its kind's definition,
  /// every field the definition requires is there, and each has the stated type.
  package init(decoding kind: EventKind, fields: JSONObject) throws(EventDecodingError) {
    let r = EventReader(kind.definition, fields)
    try r.checkNoUnknownFields()
    switch kind {
    case .landmarks, .luma:
      throw EventDecodingError(kind: kind, field: nil, "expected a typed \(kind.rawValue) payload, found generic fields")
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
  package var kind: EventKind {
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

/// The `error` object of a PhotoKit or album result as the device recorded it
/// (`{domain, code, desc?, kind?, underlying?: {domain, code}}`): an NSError's parts. It is the
/// system's record, not the project's, so members of another type count as absent and further
/// members are kept unread in ``raw``.
package struct EffectError: Sendable, Equatable {
  package var domain: String?
  package var code: Int64?
  /// `desc`, else `description`.
  package var desc: String?
  /// The album adapter's classification (`asset_not_found`, …).
  package var kind: String?
  package var underlyingDomain: String?
  package var underlyingCode: Int64?
  package var raw: JSONObject

  package init(_ o: JSONObject) {
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
