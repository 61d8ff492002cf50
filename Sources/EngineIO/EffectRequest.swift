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
  case startCamera
  case requestCameraPermission
  case capturePhoto(shot: Int)
  case photokitWrite(shot: Int, attempt: Int)
  case fetchAsset(assetId: String, attempt: Int)
  case albumAdd(assetId: String, attempt: Int)
  case generateThumb(shot: Int, attempt: Int)
  case favoriteSync(item: Int)
  case odrRequest(tag: String, attempt: Int)
  /// A prompt action that leaves the app (`open_settings`, …).
  case leaveApp(EffectKind)

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
