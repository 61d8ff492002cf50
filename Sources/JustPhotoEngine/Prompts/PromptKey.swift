import PoseSpec

/// Every prompt key the engine emits (ENGINE §4.5): the catalogue rows in table order, then the
/// PoseSpec modals of §2.3 (built from the failed validation, `Engine.poseSpecPromptDefinition`).
/// Raw values are the rendered names (trace `key`, A.13 payload `key`, `prompt_id`, session
/// flags), so typing them changes no output; a misspelt key is a compile error. Keys arriving
/// in events (`prompt_action`, `prompt_close`) are looked up by name: one the engine never
/// shows matches no visible prompt.
public enum PromptKey: String, CaseIterable, Sendable, Comparable {
  case subject_lost, session_count_15, session_full_20, camera_permission_denied, camera_init_failed
  case reset_session_confirm, capture_failed, write_failed, blocked_by_write_failed, album_add_failed
  case thumb_failed, viewer_load_failed, permission_upgrade_required, favorite_sync_failed, ref_first_save_notice
  case ref_reject_not_suitable, ref_copy_failed, odr_unavailable, purchase_failed, restore_failed, low_space_warn
  case low_space_blocking, session_recover_prune, in_flight_saving, write_failed_block, camera_occupied
  case camera_denied_banner, camera_restricted_banner, camera_permission_preprompt, asset_unreadable
  case capture_failed_toast, camera_abnormal, nothing_to_clear, feedback_recorded, wrap_not_enough_photos
  case wrap_save_failed, wrap_no_space, wrap_generate_failed, next_ref_hint, album_retry_empty, album_retry_result
  case workset_clear_unliked_done, ref_limit_reached
  // PoseSpec validation modals (§2.3)
  case posespec_invalid_modal, posespec_version_mismatch_modal, posespec_binding_missing_modal, posespec_rois_missing_modal

  public static func < (a: PromptKey, b: PromptKey) -> Bool { a.rawValue < b.rawValue }

  /// The key of a PoseSpec validation modal (`PoseSpecPrompt.key` is one of its four keys;
  /// `PromptKeyTests` checks each maps to its own case).
  public init(poseSpec p: PoseSpecPrompt) {
    self = PromptKey(rawValue: p.key) ?? .posespec_invalid_modal
  }

  /// One of the PoseSpec validation modals (their `retry` re-runs the validation, §2.3).
  public var isPoseSpecModal: Bool {
    [.posespec_invalid_modal, .posespec_version_mismatch_modal, .posespec_binding_missing_modal, .posespec_rois_missing_modal]
      .contains(self)
  }
}
