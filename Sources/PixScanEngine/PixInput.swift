import CanonicalJSON

/// The kinds of input PixScan reacts to: one event kind each in a recording.
public enum PixInputKind: String, CaseIterable, Sendable {
  /// The app starts (first launch or after a kill).
  case appLaunch = "app_launch"
  /// The system kills the app: everything not in the store is lost.
  case appKill = "app_kill"
  /// The photo library as the fetch returns it.
  case librarySnapshot = "library_snapshot"
  /// A tap on the "allow access" button.
  case permissionTap = "permission_tap"
  /// The answer to a permission request (an effect result).
  case permissionResult = "permission_result"
  /// A swipe on the current photo.
  case swipe
  /// The undo button.
  case undo
  /// The filter switch.
  case filterMode = "filter_mode"
  /// A text recognition's result (an effect result).
  case ocrResult = "ocr_result"
  /// An action on the delete-review sheet.
  case deleteSheet = "delete_sheet"
  /// A delete batch's result (an effect result).
  case deleteResult = "delete_result"
  /// A user action during onboarding.
  case onboarding

  /// Where the input comes from: `device` (system and library), `ui` (the user's touches) or
  /// `effects` (the answer to an effect the engine asked for).
  public var channel: String {
    switch self {
    case .appLaunch, .appKill, .librarySnapshot: "device"
    case .permissionTap, .swipe, .undo, .filterMode, .deleteSheet, .onboarding: "ui"
    case .permissionResult, .ocrResult, .deleteResult: "effects"
    }
  }

  /// Whether the input answers an effect request (`PixEffectRequest.resultKind`).
  public var isEffectResult: Bool { channel == "effects" }

  /// The fields an event of this kind may carry (required ones first), for messages and docs.
  public var fields: [String] {
    switch self {
    case .appLaunch: ["permission", "store"]
    case .appKill, .permissionTap, .undo: []
    case .librarySnapshot: ["assets"]
    case .permissionResult: ["status"]
    case .swipe: ["direction"]
    case .filterMode: ["mode"]
    case .ocrResult: ["photo", "ok", "text", "error"]
    case .deleteSheet: ["action", "photo"]
    case .deleteResult: ["batch", "outcome", "error"]
    case .onboarding: ["action", "direction", "icon"]
    }
  }
}

/// An input event that cannot be used: the kind, the field and what was expected.
public struct PixDecodeError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The event kind (as written).
  public var kind: String
  /// The field (a path such as `assets[3].id`), nil for the kind itself.
  public var field: String?
  /// What was expected and what was found.
  public var message: String

  /// An error.
  public init(kind: String, field: String?, _ message: String) {
    self.kind = kind
    self.field = field
    self.message = message
  }

  /// `swipe.direction: expected one of right, left, down, up, found "sideways"`.
  public var description: String { kind + (field.map { ".\($0)" } ?? "") + ": " + message }
}

/// One input to the engine, typed.
public enum PixInput: Equatable, Sendable {
  /// The app starts; `permission` is what the system reports; `store` is what the device
  /// already held (nil: nothing). After a kill the harness passes its own store to
  /// `PixScanEngine.relaunch`, which wins over this one.
  case appLaunch(permission: PixPermission, store: PixStore?)
  /// The app is killed.
  case appKill
  /// The library the fetch returns (any order; the engine sorts it).
  case librarySnapshot([PixAsset])
  /// A tap on "allow access".
  case permissionTap
  /// The system's answer to the permission request (never `not_determined`).
  case permissionResult(PixPermission)
  /// A swipe on the current photo.
  case swipe(PixDirection)
  /// Back one photo.
  case undo
  /// Switch the filter.
  case filterMode(PixFilter)
  /// A text recognition's result for `photo`.
  case ocrResult(photo: String, outcome: PixOCROutcome)
  /// An action on the delete-review sheet.
  case deleteSheet(PixSheetAction)
  /// The result of delete batch `batch`.
  case deleteResult(batch: Int64, outcome: PixDeleteOutcome)
  /// An onboarding action.
  case onboarding(PixOnboardingAction)

  /// The event kind.
  public var kind: PixInputKind {
    switch self {
    case .appLaunch: .appLaunch
    case .appKill: .appKill
    case .librarySnapshot: .librarySnapshot
    case .permissionTap: .permissionTap
    case .permissionResult: .permissionResult
    case .swipe: .swipe
    case .undo: .undo
    case .filterMode: .filterMode
    case .ocrResult: .ocrResult
    case .deleteSheet: .deleteSheet
    case .deleteResult: .deleteResult
    case .onboarding: .onboarding
    }
  }

  /// The event's kind name and fields (`decode(kind:fields:)` gives the same input back).
  public func encode() -> (kind: String, fields: JSONObject) {
    var f = JSONObject()
    switch self {
    case .appLaunch(let p, let store):
      f["permission"] = .string(p.rawValue)
      if let store { f["store"] = .object(store.json()) }
    case .appKill, .permissionTap, .undo: break
    case .librarySnapshot(let assets): f["assets"] = .array(assets.map { .object($0.json()) })
    case .permissionResult(let p): f["status"] = .string(p.rawValue)
    case .swipe(let d): f["direction"] = .string(d.rawValue)
    case .filterMode(let m): f["mode"] = .string(m.rawValue)
    case .ocrResult(let photo, let outcome):
      f["photo"] = .string(photo)
      switch outcome {
      case .text(let s):
        f["ok"] = true
        f["text"] = .string(s)
      case .failed(let e):
        f["ok"] = false
        if let e { f["error"] = .string(e) }
      }
    case .deleteSheet(let a):
      f["action"] = .string(a.name)
      if case .select(let p) = a { f["photo"] = .string(p) }
      if case .deselect(let p) = a { f["photo"] = .string(p) }
    case .deleteResult(let batch, let outcome):
      f["batch"] = .number(Double(batch))
      switch outcome {
      case .ok: f["outcome"] = "ok"
      case .cancelled: f["outcome"] = "cancelled"
      case .error(let e):
        f["outcome"] = "error"
        if let e { f["error"] = .string(e) }
      }
    case .onboarding(let a):
      f["action"] = .string(a.name)
      if case .practiceSwipe(let d) = a { f["direction"] = .string(d.rawValue) }
      if case .tapIcon(let i) = a { f["icon"] = .string(i.rawValue) }
    }
    return (kind.rawValue, f)
  }

  /// The input of kind `kind` with `fields` (without `t` and `kind`): an unknown kind, an
  /// unknown, missing or mistyped field, a value out of its set or past a `PixLimits` bound is
  /// an error naming the field and the expectation.
  public static func decode(kind: String, fields: JSONObject) throws(PixDecodeError) -> PixInput {
    guard let k = PixInputKind(rawValue: kind) else {
      throw PixDecodeError(
        kind: kind, field: nil,
        "unknown input kind; expected one of \(PixInputKind.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    let r = try PixFieldReader(kind: kind, fields: fields, allowed: k.fields)
    switch k {
    case .appLaunch:
      let store: PixStore?
      if let o = try r.optionalObject("store") {
        do { store = try PixStore(json: o) } catch { throw PixDecodeError(kind: kind, field: "store", error.description) }
      } else {
        store = nil
      }
      return .appLaunch(permission: try r.choice("permission", PixPermission.self), store: store)
    case .appKill: return .appKill
    case .permissionTap: return .permissionTap
    case .undo: return .undo
    case .librarySnapshot: return .librarySnapshot(try r.assets("assets"))
    case .permissionResult:
      let p = try r.choice("status", PixPermission.self)
      guard p != .notDetermined else { throw r.error("status", "expected denied, limited or authorized, found \"not_determined\"") }
      return .permissionResult(p)
    case .swipe: return .swipe(try r.choice("direction", PixDirection.self))
    case .filterMode: return .filterMode(try r.choice("mode", PixFilter.self))
    case .ocrResult: return try decodeOCR(r)
    case .deleteSheet: return try decodeSheet(r)
    case .deleteResult: return try decodeDeleteResult(r)
    case .onboarding: return try decodeOnboarding(r)
    }
  }

  static func decodeOCR(_ r: PixFieldReader) throws(PixDecodeError) -> PixInput {
    let photo = try r.id("photo")
    if try r.bool("ok") {
      try r.forbid("error", because: "ok is true")
      return .ocrResult(photo: photo, outcome: .text(try r.text("text")))
    }
    try r.forbid("text", because: "ok is false")
    return .ocrResult(photo: photo, outcome: .failed(error: try r.optionalText("error")))
  }

  static func decodeSheet(_ r: PixFieldReader) throws(PixDecodeError) -> PixInput {
    let action = try r.string("action")
    switch action {
    case "select": return .deleteSheet(.select(try r.id("photo")))
    case "deselect": return .deleteSheet(.deselect(try r.id("photo")))
    case "open", "close", "delete_selected", "delete_all":
      try r.forbid("photo", because: "action is \(action)")
      let a: PixSheetAction =
        switch action {
        case "open": .open
        case "close": .close
        case "delete_selected": .deleteSelected
        default: .deleteAll
        }
      return .deleteSheet(a)
    default:
      throw r.error("action", "expected one of \(PixSheetAction.names.joined(separator: ", ")), found \"\(action)\"")
    }
  }

  static func decodeDeleteResult(_ r: PixFieldReader) throws(PixDecodeError) -> PixInput {
    let batch = try r.int("batch", min: 1, max: PixLimits.batchMax, bound: "PixLimits.batchMax")
    let outcome = try r.string("outcome")
    switch outcome {
    case "ok", "cancelled":
      try r.forbid("error", because: "outcome is \(outcome)")
      return .deleteResult(batch: batch, outcome: outcome == "ok" ? .ok : .cancelled)
    case "error": return .deleteResult(batch: batch, outcome: .error(try r.optionalText("error")))
    default: throw r.error("outcome", "expected one of ok, cancelled, error, found \"\(outcome)\"")
    }
  }

  static func decodeOnboarding(_ r: PixFieldReader) throws(PixDecodeError) -> PixInput {
    let action = try r.string("action")
    switch action {
    case "next":
      try r.forbid("direction", because: "action is next")
      try r.forbid("icon", because: "action is next")
      return .onboarding(.next)
    case "practice_swipe":
      try r.forbid("icon", because: "action is practice_swipe")
      return .onboarding(.practiceSwipe(try r.choice("direction", PixDirection.self)))
    case "tap_icon":
      try r.forbid("direction", because: "action is tap_icon")
      return .onboarding(.tapIcon(try r.choice("icon", PixIcon.self)))
    default: throw r.error("action", "expected one of next, practice_swipe, tap_icon, found \"\(action)\"")
    }
  }
}
