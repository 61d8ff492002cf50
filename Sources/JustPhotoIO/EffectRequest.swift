/// The kind of an effect request (ENGINE §1.6): the `kind` of its trace line.
public enum EffectKind: String, CaseIterable, Sendable, Equatable {
  case start_camera, request_camera_permission, capture_photo, photokit_write, fetch_asset, album_add
  case generate_thumb, favorite_sync, odr_request
  /// Actions that leave the app (prompt buttons, §4.7); no result is expected.
  case open_settings, open_limited_picker, open_storage_settings, open_network_settings
  case open_manage_subscriptions
}

/// A request from the engine to the platform (ENGINE §1.6): vocabulary, like the input events
/// that answer it. The engine emits it as `EngineOutput.effect`; the results of those that
/// expect one come back as input events, correlated by the request's key fields (`Replay`'s
/// `EffectRule`).
public enum EffectRequest: Equatable, Sendable {
  /// Start the camera session; no result event answers it (`camera_ready` or `camera_start_failed` report the outcome).
  case startCamera
  /// Show the system camera permission dialog; answered by `camera_permission_result`.
  case requestCameraPermission
  /// Take the photo of shot `shot` (the item's 1-based shotSeq); answered by `photo_data` or
  /// `photo_capture_error` carrying the same `shot`.
  case capturePhoto(shot: Int)
  /// Write shot `shot` to the photo library; `attempt` counts from 1 per item. Answered by
  /// `photokit_write_result` with the same `shot` and `attempt`.
  case photokitWrite(shot: Int, attempt: Int)
  /// Check that the written asset exists (ENGINE §5.7); answered by `asset_fetch_result` with the same key.
  case fetchAsset(assetId: String, attempt: Int)
  /// Add the asset to the app's album, `attempt` from 1; answered by `album_add_result` with the same key.
  case albumAdd(assetId: String, attempt: Int)
  /// Make the thumbnail of shot `shot`; answered by `thumb_result` with the same `shot`, attempts in request order.
  case generateThumb(shot: Int, attempt: Int)
  /// Mirror the like state of the item with shotSeq `item` to the library; answered by `favorite_sync_result`.
  case favoriteSync(item: Int)
  /// Fetch the on-demand resource `tag`; `attempt` counts the requests for that tag only, from 1.
  /// Answered by `odr_result` with the same `tag` and `attempt`.
  case odrRequest(tag: String, attempt: Int)
  /// A prompt action that leaves the app (`open_settings`, …).
  case leaveApp(EffectKind)

  /// The kind of this request, as written in the `kind` field of its `effect` trace line.
  public var kind: EffectKind {
    switch self {
    case .startCamera: .start_camera
    case .requestCameraPermission: .request_camera_permission
    case .capturePhoto: .capture_photo
    case .photokitWrite: .photokit_write
    case .fetchAsset: .fetch_asset
    case .albumAdd: .album_add
    case .generateThumb: .generate_thumb
    case .favoriteSync: .favorite_sync
    case .odrRequest: .odr_request
    case .leaveApp(let k): k
    }
  }

}
