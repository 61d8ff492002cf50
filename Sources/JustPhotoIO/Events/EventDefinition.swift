import CanonicalJSON
import EngineIO

// The event vocabulary (docs/FORMAT.md, "Events"): for every kind one definition — its fields
// with their types and optionality, and its `.jprec` channel. Everything else follows from it:
// the JSONL import checks (`Recording`'s `EventKind.schema`), the JSONL writer's key order, the
// channel a kind is stored in, and the typed payload the engine receives (`CoachEvent`), whose
// decoder reads each field through the definition. A field name lives in one place (`EventField`):
// a kind without a definition, a definition without a payload, or a payload the engine does not
// route is a compile error (exhaustive switches, no `default:`).

/// Every field name an event of a generic kind may carry (besides `t` and `kind`).
package enum EventField: String, CaseIterable, Sendable {
  // lifecycle, device
  case store, sha256, spec, path, state, orientation, open, status, granted, reason, facing
  case window_ms, dropped_frames, avg_fps, enabled, mb
  // pixels, sensors
  case frame, values, rms, temp_k, left_k, right_k, offset_x, offset_y, rotation_deg, scale
  // UI
  case scene, key, action_id, item, liked, vote, on, face_index, ref_id, source, dir, tag
  // ref_analysis (a landmarks-like reference, checked like a landmarks event)
  case body, faces, people, coords, frame_scalars, luma
  // effect results (§1.6)
  case shot, bytes, ext, error, attempt, ok, asset_id, count, result
  // label
  case cue_id, holds, since
}

/// The `.jprec` channel of a kind, one per event family (DESIGN §3). Raw values are stored.
package enum EventChannel: String, CaseIterable, Sendable {
  case landmarks, pixels, sensors, device, ui, effects, label
}

/// The JSON type of a field's value.
package typealias EventValueType = EventFieldInfo.ValueType

/// One field of a kind: its name, type, whether it must be present (and not null), the strings
/// it allows when it is an enumeration, and the value that stands for it when it is absent.
package struct EventFieldSpec: Sendable {
  package var field: EventField
  package var type: EventValueType
  package var required: Bool
  /// Allowed string values, when the field is an enumeration.
  package var oneOf: [String]?
  /// What an absent (or null) optional field means, when the reader is given a value for it;
  /// nil = absence is kept as absence (an optional payload member).
  package var defaultValue: JSONValue?

  package var name: String { field.rawValue }

  init(_ field: EventField, _ type: EventValueType, required: Bool, oneOf: [String]?, defaultValue: JSONValue? = nil) {
    self.field = field
    self.type = type
    self.required = required
    self.oneOf = oneOf
    self.defaultValue = defaultValue
  }

  /// A field every event of the kind carries.
  static func required<T: EventValue>(_ field: EventField, _: T.Type) -> EventFieldSpec {
    EventFieldSpec(field, T.eventType, required: true, oneOf: T.allowedStrings)
  }
  /// A field that may be absent or null (then the payload member is nil).
  static func optional<T: EventValue>(_ field: EventField, _: T.Type) -> EventFieldSpec {
    EventFieldSpec(field, T.eventType, required: false, oneOf: T.allowedStrings)
  }
  /// A field that may be absent or null, standing for `value` then.
  static func optional<T: EventValue>(_ field: EventField, _: T.Type, default value: T) -> EventFieldSpec {
    EventFieldSpec(field, T.eventType, required: false, oneOf: T.allowedStrings, defaultValue: value.eventJSON)
  }
}

/// The definition of one event kind: its channel and its fields, in the order the JSONL writer
/// puts them (docs/FORMAT.md).
package struct EventDefinition: Sendable {
  package var kind: EventKind
  package var channel: EventChannel
  package var fields: [EventFieldSpec]

  init(_ kind: EventKind, _ channel: EventChannel, _ fields: [EventFieldSpec] = []) {
    self.kind = kind
    self.channel = channel
    self.fields = fields
  }

  /// The spec of `name`, nil when the kind has no such field.
  package func spec(_ name: String) -> EventFieldSpec? { fields.first { $0.name == name } }

  /// "a, b, c" or "no fields besides t and kind", for messages.
  package var expectedFieldList: String {
    fields.isEmpty ? "no fields besides t and kind" : fields.map(\.name).joined(separator: ", ")
  }
}

extension EventKind {
  /// This kind's definition (fields, channel). `landmarks` and `luma` list none: their own
  /// decoders check them (docs/FORMAT.md has their tables).
  package var definition: EventDefinition {
    switch self {
    case .landmarks: EventDefinition(.landmarks, .landmarks)
    case .luma: EventDefinition(.luma, .pixels)
    case .app_launch: CoachEvent.AppLaunch.definition
    case .posespec_reload: CoachEvent.PoseSpecReload.definition
    case .app_lifecycle: CoachEvent.AppLifecycle.definition
    case .memory_warning: EventDefinition(self, .device)
    case .rotation: CoachEvent.Rotation.definition
    case .system_dialog: CoachEvent.SystemDialog.definition
    case .camera_auth: CoachEvent.CameraAuth.definition
    case .camera_permission_result: CoachEvent.CameraPermissionResult.definition
    case .camera_ready: EventDefinition(self, .device)
    case .camera_start_failed: CoachEvent.CameraStartFailed.definition
    case .camera_interrupted: CoachEvent.CameraInterruption.definition(.camera_interrupted)
    case .camera_interruption_ended: CoachEvent.CameraInterruption.definition(.camera_interruption_ended)
    case .camera_flipped: CoachEvent.CameraFlipped.definition
    case .preview_stats: CoachEvent.PreviewStats.definition
    case .frame_scalars: CoachEvent.FrameScalars.definition
    case .device_motion: CoachEvent.DeviceMotion.definition
    case .white_balance: CoachEvent.WhiteBalance.definition
    case .ref_registration: CoachEvent.RefRegistration.definition
    case .thermal: CoachEvent.Thermal.definition
    case .voiceover: CoachEvent.VoiceOver.definition
    case .network: CoachEvent.Network.definition
    case .free_space: CoachEvent.FreeSpace.definition
    case .photo_auth: CoachEvent.PhotoAuth.definition
    case .entitlement: CoachEvent.Entitlement.definition
    case .ui_scene: CoachEvent.UIScene.definition
    case .shutter_tap, .reset_session_tap, .praise_expand, .inspiration_open, .inspiration_close, .odr_retry_tap,
      .wrap_open, .wrap_export, .down_reasons_open, .resume_engine:
      EventDefinition(self, .ui)
    case .prompt_action: CoachEvent.PromptAction.definition
    case .prompt_close: CoachEvent.PromptClose.definition
    case .viewer_open, .viewer_close, .viewer_page, .rebuild_thumb_tap: CoachEvent.ItemTap.definition(self)
    case .like_toggle: CoachEvent.LikeToggle.definition
    case .praise_feedback: CoachEvent.PraiseFeedback.definition
    case .quiet_mode: CoachEvent.QuietMode.definition
    case .subject_tap: CoachEvent.SubjectTap.definition
    case .ref_pick: CoachEvent.RefPick.definition
    case .ref_analysis: CoachEvent.RefAnalysis.definition
    case .ref_switch: CoachEvent.RefSwitch.definition
    case .odr_tap: CoachEvent.OdrTap.definition
    case .down_reason_select: CoachEvent.DownReasonSelect.definition
    case .photo_data: CoachEvent.PhotoData.definition
    case .photo_capture_error: CoachEvent.PhotoCaptureError.definition
    case .photokit_write_result: CoachEvent.PhotoKitWriteResult.definition
    case .asset_fetch_result: CoachEvent.AssetFetchResult.definition
    case .album_add_result: CoachEvent.AlbumAddResult.definition
    case .thumb_result: CoachEvent.ThumbResult.definition
    case .favorite_sync_result: CoachEvent.FavoriteSyncResult.definition
    case .odr_result: CoachEvent.OdrResult.definition
    case .purchase_result, .restore_result: CoachEvent.StoreResult.definition(self)
    case .pending_write_failed: CoachEvent.PendingWriteFailed.definition
    case .label: CoachEvent.Label.definition
    }
  }

  /// The `.jprec` channel that stores this kind (DESIGN §3), from its definition.
  package var eventChannel: EventChannel { definition.channel }
}

// MARK: Values

/// A type a field's value decodes to.
package protocol EventValue: Sendable {
  /// The JSON type the definition states.
  static var eventType: EventValueType { get }
  /// The allowed strings of an enumeration; nil for any other type.
  static var allowedStrings: [String]? { get }
  /// The value of a present, non-null field; nil when it has another type or value.
  init?(eventJSON: JSONValue)
  /// The value as JSON (for a definition's stated default).
  var eventJSON: JSONValue { get }
}

extension EventValue {
  package static var allowedStrings: [String]? { nil }
}

extension Int64: EventValue {
  package static var eventType: EventValueType { .integer }
  package init?(eventJSON v: JSONValue) {
    guard let i = v.int64Value else { return nil }
    self = i
  }
  package var eventJSON: JSONValue { .number(Double(self)) }
}

extension Double: EventValue {
  package static var eventType: EventValueType { .number }
  package init?(eventJSON v: JSONValue) {
    guard let d = v.doubleValue else { return nil }
    self = d
  }
  package var eventJSON: JSONValue { .number(self) }
}

extension String: EventValue {
  package static var eventType: EventValueType { .string }
  package init?(eventJSON v: JSONValue) {
    guard let s = v.stringValue else { return nil }
    self = s
  }
  package var eventJSON: JSONValue { .string(self) }
}

extension Bool: EventValue {
  package static var eventType: EventValueType { .bool }
  package init?(eventJSON v: JSONValue) {
    guard let b = v.boolValue else { return nil }
    self = b
  }
  package var eventJSON: JSONValue { .bool(self) }
}

extension JSONObject: EventValue {
  package static var eventType: EventValueType { .object }
  package init?(eventJSON v: JSONValue) {
    guard let o = v.objectValue else { return nil }
    self = o
  }
  package var eventJSON: JSONValue { .object(self) }
}

extension JSONValue: EventValue {
  package static var eventType: EventValueType { .any }
  package init?(eventJSON v: JSONValue) { self = v }
  package var eventJSON: JSONValue { self }
}

/// A string enumeration field: its cases are the allowed strings.
package protocol EventEnum: EventValue, RawRepresentable<String>, CaseIterable {}

extension EventEnum {
  package static var eventType: EventValueType { .string }
  package static var allowedStrings: [String]? { allCases.map(\.rawValue) }
  package init?(eventJSON v: JSONValue) {
    guard let s = v.stringValue else { return nil }
    self.init(rawValue: s)
  }
  package var eventJSON: JSONValue { .string(rawValue) }
}

// MARK: Reading

extension EventDecodingError {
  /// The Just Photo kind, when the name is one.
  public var kind: EventKind? { EventKind(rawValue: kindName) }

  /// A refusal of an event of the Just Photo kind `kind`.
  public init(kind: EventKind, field: String?, _ problem: String) {
    self.init(kindName: kind.rawValue, field: field, problem)
  }
}

/// The fields of one event, read through its kind's definition.
package struct EventReader {
  package let definition: EventDefinition
  package let fields: JSONObject

  package init(_ definition: EventDefinition, _ fields: JSONObject) {
    self.definition = definition
    self.fields = fields
  }

  var kind: EventKind { definition.kind }

  /// The spec of `field`; a payload reading a field its definition lacks (or with another
  /// type or optionality) is a defect of this module, reported like bad input rather than a trap.
  func spec<T: EventValue>(_ field: EventField, _: T.Type, required: Bool?) throws(EventDecodingError) -> EventFieldSpec {
    guard let s = definition.spec(field.rawValue), s.type == T.eventType,
      required.map({ s.required == $0 }) ?? (s.required || s.defaultValue != nil)
    else {
      throw EventDecodingError(
        kind: kind, field: field.rawValue,
        "field \"\(field.rawValue)\" is read as \(T.eventType.rawValue)\(required == true ? " (required)" : "") but the definition says otherwise"
      )
    }
    return s
  }

  /// A required field, or an optional one with a stated default.
  package func callAsFunction<T: EventValue>(_ field: EventField) throws(EventDecodingError) -> T {
    let s = try spec(field, T.self, required: nil)
    guard let v = fields[s.name], !v.isNull else {
      if !s.required, let d = s.defaultValue, let value = T(eventJSON: d) { return value }
      throw EventDecodingError(kind: kind, field: s.name, "missing field \"\(s.name)\" (\(Self.expected(s)))")
    }
    return try decode(v, s)
  }

  /// An optional field without a default: nil when absent or null.
  package func optional<T: EventValue>(_ field: EventField) throws(EventDecodingError) -> T? {
    let s = try spec(field, T.self, required: false)
    guard let v = fields[s.name], !v.isNull else { return nil }
    return try decode(v, s)
  }

  func decode<T: EventValue>(_ v: JSONValue, _ s: EventFieldSpec) throws(EventDecodingError) -> T {
    guard let value = T(eventJSON: v) else {
      throw EventDecodingError(
        kind: kind, field: s.name,
        "field \"\(s.name)\": expected \(Self.expected(s)), found \(Self.describe(v))")
    }
    return value
  }

  /// Every field of the event is in the definition.
  package func checkNoUnknownFields() throws(EventDecodingError) {
    for m in fields.members where definition.spec(m.key) == nil {
      throw EventDecodingError(
        kind: kind, field: m.key, "unknown field \"\(m.key)\" (expected \(definition.expectedFieldList))")
    }
  }

  /// "an integer", "one of "a", "b"", … (the import messages' wording, EngineIO's).
  package static func expected(_ spec: EventFieldSpec) -> String {
    EventFieldInfo.expectation(spec.type, oneOf: spec.oneOf)
  }

  /// A value as messages quote it (strings cut at 40 characters).
  package static func describe(_ v: JSONValue) -> String { EventFieldInfo.found(v) }
}
