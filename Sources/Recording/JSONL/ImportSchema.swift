import EngineIO

/// The JSONL import schema: what `import` checks of each kind's fields (docs/FORMAT.md).
extension EventKind {
  /// The fields of this kind (besides `t` and `kind`) that `import` checks.
  /// Fields not listed are kept as they are and passed to the engine.
  package var schema: [FieldSpec] { Self.schemas[self] ?? [] }

  /// The schema of every kind, one row each (a test checks that no kind is missing).
  static let schemas: [EventKind: [FieldSpec]] = [
    .app_launch: [.init("store", .object, required: false)],
    .posespec_reload: [.init("sha256", .string), .init("spec", .object, required: false),
      .init("path", .string, required: false)],
    .app_lifecycle: [.init("state", .string, oneOf: ["active", "inactive", "background", "terminated"])],
    .memory_warning: [],
    .camera_ready: [],
    .shutter_tap: [],
    .reset_session_tap: [],
    .praise_expand: [],
    .inspiration_open: [],
    .inspiration_close: [],
    .odr_retry_tap: [],
    .wrap_open: [],
    .wrap_export: [],
    .down_reasons_open: [],
    .resume_engine: [],
    .rotation: [.init("orientation", .string)],
    .system_dialog: [.init("open", .bool)],
    .camera_auth: [.init("status", .string, oneOf: ["not_determined", "authorized", "denied", "restricted"])],
    .camera_permission_result: [.init("granted", .bool)],
    .camera_start_failed: [.init("reason", .string, oneOf: ["camera_in_use", "hardware_unavailable", "unknown"])],
    .camera_interrupted: [.init("reason", .string, required: false)],
    .camera_interruption_ended: [.init("reason", .string, required: false)],
    .camera_flipped: [.init("facing", .string, oneOf: ["back", "front"])],
    .preview_stats: [.init("window_ms", .integer, required: false), .init("dropped_frames", .integer),
      .init("avg_fps", .number, required: false)],
    .landmarks: [],  // typed; validated by their own decoders
    .luma: [],  // typed; validated by their own decoders
    .frame_scalars: [.init("frame", .integer, required: false), .init("values", .object)],
    .device_motion: [.init("rms", .number)],
    .white_balance: [.init("temp_k", .number), .init("left_k", .number, required: false),
      .init("right_k", .number, required: false)],
    .ref_registration: [.init("offset_x", .number), .init("offset_y", .number), .init("rotation_deg", .number),
      .init("scale", .number)],
    .thermal: [.init("state", .string, oneOf: ["nominal", "fair", "serious", "critical"])],
    .voiceover: [.init("enabled", .bool)],
    .network: [.init("status", .string, oneOf: ["satisfied", "unsatisfied"])],
    .free_space: [.init("mb", .integer)],
    .photo_auth: [.init("status", .string,
        oneOf: ["not_determined", "authorized", "limited", "denied", "restricted"])],
    .entitlement: [.init("state", .string, oneOf: ["active", "trial", "expired", "none"])],
    .ui_scene: [.init("scene", .string, oneOf: ["cafe", "outdoor"])],
    .prompt_action: [.init("key", .string), .init("action_id", .string)],
    .prompt_close: [.init("key", .string)],
    .viewer_open: [.init("item", .integer)],
    .viewer_close: [.init("item", .integer)],
    .viewer_page: [.init("item", .integer)],
    .rebuild_thumb_tap: [.init("item", .integer)],
    .like_toggle: [.init("item", .integer), .init("liked", .bool)],
    .praise_feedback: [.init("vote", .string, oneOf: ["up", "down"])],
    .quiet_mode: [.init("on", .bool)],
    .subject_tap: [.init("face_index", .integer)],
    .ref_pick: [.init("ref_id", .string), .init("source", .string, oneOf: ["user", "odr"])],
    .ref_analysis: [.init("ref_id", .string)],
    .ref_switch: [.init("dir", .string, oneOf: ["next", "prev"])],
    .odr_tap: [.init("tag", .string)],
    .down_reason_select: [.init("reason", .string)],
    .photo_data: [.init("shot", .integer), .init("bytes", .integer), .init("ext", .string, oneOf: ["heic", "jpg"])],
    .photo_capture_error: [.init("shot", .integer), .init("error", .any)],
    .photokit_write_result: [.init("shot", .integer), .init("attempt", .integer), .init("ok", .bool),
      .init("asset_id", .string, required: false), .init("error", .object, required: false)],
    .asset_fetch_result: [.init("asset_id", .string), .init("attempt", .integer), .init("count", .integer)],
    .album_add_result: [.init("asset_id", .string), .init("attempt", .integer), .init("ok", .bool),
      .init("error", .object, required: false)],
    .thumb_result: [.init("shot", .integer), .init("ok", .bool)],
    .favorite_sync_result: [.init("item", .integer),
      .init("result", .string,
        oneOf: ["success", "skipped_not_full_access", "skipped_missing_asset", "failed"])],
    .odr_result: [.init("tag", .string), .init("attempt", .integer), .init("ok", .bool),
      .init("error", .any, required: false)],
    .purchase_result: [.init("ok", .bool), .init("error", .any, required: false)],
    .restore_result: [.init("ok", .bool), .init("error", .any, required: false)],
    .pending_write_failed: [.init("shot", .integer)],
    .label: [.init("cue_id", .string), .init("holds", .bool), .init("since", .integer, required: false)],
  ]
}

/// One field of an event kind's schema.
package struct FieldSpec: Sendable {
  package enum ValueType: String, Sendable {
    case integer, number, string, bool = "boolean", object, array, any
  }
  package var name: String
  package var type: ValueType
  package var required: Bool
  /// Allowed string values, when the field is an enumeration.
  package var oneOf: [String]?
  package init(_ name: String, _ type: ValueType, required: Bool = true, oneOf: [String]? = nil) {
    self.name = name
    self.type = type
    self.required = required
    self.oneOf = oneOf
  }
}
