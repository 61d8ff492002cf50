import CanonicalJSON

/// The definitions of an engine that declares no typed kinds: every event of its recordings is
/// a named event (header `engine`), which its own vocabulary checks. It declares no kind, so an
/// event read through it as a typed kind is refused, never guessed.
///
/// Example: a reader that only needs a recording's header, or a plug-in without typed kinds,
/// passes `NoEventDefinitions.self`.
public enum NoEventDefinitions: EventDefinitions {
  /// Never: there is no typed kind.
  ///
  /// - Parameters:
  ///   - kind: the kind name.
  ///   - fields: the event's fields.
  /// - Returns: nothing; throws that `kind` is not a typed kind of this engine.
  public static func decode(kind: String, fields: JSONObject) throws(EventDecodingError) -> Never {
    throw EventDecodingError(kindName: kind, field: nil, "not a typed event kind of this engine (its events are named events)")
  }

  /// nil: no kind is declared.
  ///
  /// - Parameter kind: the kind name.
  /// - Returns: nil.
  public static func fields(of kind: String) -> [EventFieldInfo]? { nil }

  /// nil: no kind is declared.
  ///
  /// - Parameter kind: the kind name.
  /// - Returns: nil.
  public static func channel(of kind: String) -> String? { nil }

  /// nil: every recording holds named events.
  public static var typedEngine: String? { nil }

  /// The 64 names every recording of named events has started its kind table with since the
  /// first of them was written (the first engine's kinds of that day, now only codes): kept so
  /// that a recording written today is byte for byte the one written before. A named kind
  /// that shares one of these names is stored under its index; any other is appended.
  public static let kindTable: [String] = [
    "app_launch", "posespec_reload", "app_lifecycle", "memory_warning", "rotation", "system_dialog",
    "camera_auth", "camera_permission_result", "camera_ready", "camera_start_failed", "camera_interrupted",
    "camera_interruption_ended", "camera_flipped", "preview_stats", "landmarks", "luma", "frame_scalars",
    "device_motion", "white_balance", "ref_registration", "thermal", "voiceover", "network", "free_space",
    "photo_auth", "entitlement", "ui_scene", "shutter_tap", "prompt_action", "prompt_close", "viewer_open",
    "viewer_close", "viewer_page", "like_toggle", "reset_session_tap", "praise_feedback", "quiet_mode",
    "praise_expand", "subject_tap", "ref_pick", "ref_analysis", "ref_switch", "inspiration_open",
    "inspiration_close", "odr_tap", "odr_retry_tap", "wrap_open", "wrap_export", "down_reasons_open",
    "down_reason_select", "rebuild_thumb_tap", "resume_engine", "photo_data", "photo_capture_error",
    "photokit_write_result", "asset_fetch_result", "album_add_result", "thumb_result", "favorite_sync_result",
    "odr_result", "purchase_result", "restore_result", "pending_write_failed", "label"
  ]
}
