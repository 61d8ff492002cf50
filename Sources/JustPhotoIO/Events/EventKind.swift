/// Every input event kind of ENGINE §1.5 (plus `label`, ground truth the engine never sees).
///
/// Raw values are the `kind` strings of the JSONL interchange. Where a kind is stored
/// (`channel`, the `.jprec` channels) and which fields `import` checks (`schema`) belong to the
/// container and live in `Recording`.
///
/// `label` stays in this list although only containers and scorers use it: a recording is one
/// time-ordered stream, and a label sits in it between the inputs of its `t` (file order is
/// part of the format). Readers hand it out through the same `EventSource.next()` as the
/// inputs, the replayer counts and skips it (`isEngineInput`), and the ground-truth tools read
/// it back from the same stream. Moving it into `Recording` would need a second stream type
/// (or an `InputEvent` that is not an input) for every reader and consumer.
public enum EventKind: String, CaseIterable, Sendable {
  // Clock / app lifecycle
  case app_launch, posespec_reload, app_lifecycle, memory_warning, rotation, system_dialog
  // Camera
  case camera_auth, camera_permission_result, camera_ready, camera_start_failed
  case camera_interrupted, camera_interruption_ended, camera_flipped, preview_stats
  // Frames (T0) and pixels / sensors (T1)
  case landmarks, luma, frame_scalars, device_motion, white_balance, ref_registration
  // Device state
  case thermal, voiceover, network, free_space, photo_auth, entitlement
  // UI / user actions
  case ui_scene, shutter_tap, prompt_action, prompt_close, viewer_open, viewer_close, viewer_page
  case like_toggle, reset_session_tap, praise_feedback, quiet_mode, praise_expand, subject_tap
  case ref_pick, ref_analysis, ref_switch, inspiration_open, inspiration_close, odr_tap
  case odr_retry_tap, wrap_open, wrap_export, down_reasons_open, down_reason_select
  case rebuild_thumb_tap, resume_engine
  // Effect results (§1.6)
  case photo_data, photo_capture_error, photokit_write_result, asset_fetch_result
  case album_add_result, thumb_result, favorite_sync_result, odr_result, purchase_result
  case restore_result, pending_write_failed
  // Generator ground truth (never given to the engine)
  case label

  /// Whether the engine receives this kind (labels are for scoring only).
  public var isEngineInput: Bool { self != .label }
}
