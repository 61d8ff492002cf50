import EngineIO

/// The JSONL import schema: what `import` checks of each kind's fields (docs/FORMAT.md).
extension EventKind {
  /// The fields of this kind (besides `t` and `kind`) that `import` checks.
  /// Fields not listed are kept as they are and passed to the engine.
  public var schema: [FieldSpec] {
    switch self {
    case .app_launch: [.init("store", .object, required: false)]
    case .posespec_reload:
      [.init("sha256", .string), .init("spec", .object, required: false),
       .init("path", .string, required: false)]
    case .app_lifecycle:
      [.init("state", .string, oneOf: ["active", "inactive", "background", "terminated"])]
    case .memory_warning, .camera_ready, .shutter_tap, .reset_session_tap, .praise_expand,
      .inspiration_open, .inspiration_close, .odr_retry_tap, .wrap_open, .wrap_export,
      .down_reasons_open, .resume_engine:
      []
    case .rotation: [.init("orientation", .string)]
    case .system_dialog: [.init("open", .bool)]
    case .camera_auth:
      [.init("status", .string, oneOf: ["not_determined", "authorized", "denied", "restricted"])]
    case .camera_permission_result: [.init("granted", .bool)]
    case .camera_start_failed:
      [.init("reason", .string, oneOf: ["camera_in_use", "hardware_unavailable", "unknown"])]
    case .camera_interrupted, .camera_interruption_ended:
      [.init("reason", .string, required: false)]
    case .camera_flipped: [.init("facing", .string, oneOf: ["back", "front"])]
    case .preview_stats:
      [.init("window_ms", .integer, required: false), .init("dropped_frames", .integer),
       .init("avg_fps", .number, required: false)]
    case .landmarks, .luma: []  // typed; validated by their own decoders
    case .frame_scalars: [.init("frame", .integer, required: false), .init("values", .object)]
    case .device_motion: [.init("rms", .number)]
    case .white_balance:
      [.init("temp_k", .number), .init("left_k", .number, required: false),
       .init("right_k", .number, required: false)]
    case .ref_registration:
      [.init("offset_x", .number), .init("offset_y", .number), .init("rotation_deg", .number),
       .init("scale", .number)]
    case .thermal:
      [.init("state", .string, oneOf: ["nominal", "fair", "serious", "critical"])]
    case .voiceover: [.init("enabled", .bool)]
    case .network: [.init("status", .string, oneOf: ["satisfied", "unsatisfied"])]
    case .free_space: [.init("mb", .integer)]
    case .photo_auth:
      [.init("status", .string,
             oneOf: ["not_determined", "authorized", "limited", "denied", "restricted"])]
    case .entitlement: [.init("state", .string, oneOf: ["active", "trial", "expired", "none"])]
    case .ui_scene: [.init("scene", .string, oneOf: ["cafe", "outdoor"])]
    case .prompt_action: [.init("key", .string), .init("action_id", .string)]
    case .prompt_close: [.init("key", .string)]
    case .viewer_open, .viewer_close, .viewer_page, .rebuild_thumb_tap: [.init("item", .integer)]
    case .like_toggle: [.init("item", .integer), .init("liked", .bool)]
    case .praise_feedback: [.init("vote", .string, oneOf: ["up", "down"])]
    case .quiet_mode: [.init("on", .bool)]
    case .subject_tap: [.init("face_index", .integer)]
    case .ref_pick:
      [.init("ref_id", .string), .init("source", .string, oneOf: ["user", "odr"])]
    case .ref_analysis: [.init("ref_id", .string)]
    case .ref_switch: [.init("dir", .string, oneOf: ["next", "prev"])]
    case .odr_tap: [.init("tag", .string)]
    case .down_reason_select: [.init("reason", .string)]
    case .photo_data:
      [.init("shot", .integer), .init("bytes", .integer), .init("ext", .string, oneOf: ["heic", "jpg"])]
    case .photo_capture_error: [.init("shot", .integer), .init("error", .any)]
    case .photokit_write_result:
      [.init("shot", .integer), .init("attempt", .integer), .init("ok", .bool),
       .init("asset_id", .string, required: false), .init("error", .object, required: false)]
    case .asset_fetch_result:
      [.init("asset_id", .string), .init("attempt", .integer), .init("count", .integer)]
    case .album_add_result:
      [.init("asset_id", .string), .init("attempt", .integer), .init("ok", .bool),
       .init("error", .object, required: false)]
    case .thumb_result: [.init("shot", .integer), .init("ok", .bool)]
    case .favorite_sync_result:
      [.init("item", .integer),
       .init("result", .string,
             oneOf: ["success", "skipped_not_full_access", "skipped_missing_asset", "failed"])]
    case .odr_result:
      [.init("tag", .string), .init("attempt", .integer), .init("ok", .bool),
       .init("error", .any, required: false)]
    case .purchase_result, .restore_result:
      [.init("ok", .bool), .init("error", .any, required: false)]
    case .pending_write_failed: [.init("shot", .integer)]
    case .label:
      [.init("cue_id", .string), .init("holds", .bool)]
    }
  }
}

/// One field of an event kind's schema.
public struct FieldSpec: Sendable {
  public enum ValueType: String, Sendable {
    case integer, number, string, bool = "boolean", object, array, any
  }
  public var name: String
  public var type: ValueType
  public var required: Bool
  /// Allowed string values, when the field is an enumeration.
  public var oneOf: [String]?
  public init(_ name: String, _ type: ValueType, required: Bool = true, oneOf: [String]? = nil) {
    self.name = name
    self.type = type
    self.required = required
    self.oneOf = oneOf
  }
}
