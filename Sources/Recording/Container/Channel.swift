import EngineIO

/// The channels of a `.jprec` file, one per event family (DESIGN §3). Raw values are stored.
package enum Channel: String, CaseIterable, Sendable {
  case landmarks, pixels, sensors, device, ui, effects, label
}

extension EventKind {
  /// The `.jprec` channel that stores this kind (DESIGN §3).
  package var channel: Channel {
    switch self {
    case .landmarks: .landmarks
    case .luma, .frame_scalars: .pixels
    case .device_motion, .white_balance, .ref_registration: .sensors
    case .app_launch, .posespec_reload, .app_lifecycle, .memory_warning, .rotation,
      .system_dialog, .camera_auth, .camera_permission_result, .camera_ready,
      .camera_start_failed, .camera_interrupted, .camera_interruption_ended, .camera_flipped,
      .preview_stats, .thermal, .voiceover, .network, .free_space, .photo_auth, .entitlement:
      .device
    case .photo_data, .photo_capture_error, .photokit_write_result, .asset_fetch_result,
      .album_add_result, .thumb_result, .favorite_sync_result, .odr_result, .purchase_result,
      .restore_result, .pending_write_failed:
      .effects
    case .label: .label
    default: .ui
    }
  }
}
