import CanonicalJSON
import EngineIO
import JustPhotoIO

// Data model of the prompt system (ENGINE §4.1–4.3, §4.7–4.8; PRD Appendix A.2).

/// Prompt level (ENGINE §4.1): L1 toast, L2 banner, L3 modal (and the Viewer blocking bar).
public enum PromptLevel: String, Sendable, CaseIterable, Equatable {
  case L1, L2, L3
}

/// The seven surfaces of A.2.1 (ENGINE §4.1).
public enum PromptSurface: String, Sendable, CaseIterable, Equatable {
  case cameraToastBottom, cameraBannerTop, cameraModalCenter, viewerBannerTop, viewerBlockingBarTop,
    sheetBannerTop, sheetModalCenter

  /// Surface → slot (A.4.1; the PRD mapping, not [C]'s level-only one).
  public var slot: PromptSlot {
    switch self {
    case .cameraToastBottom: .toast
    case .cameraBannerTop, .viewerBannerTop, .sheetBannerTop: .banner
    case .cameraModalCenter, .sheetModalCenter: .modal
    case .viewerBlockingBarTop: .viewerBlockingBar
    }
  }
}

/// The four slots of A.4.1, in display order; at most one prompt each.
public enum PromptSlot: String, Sendable, CaseIterable, Equatable, Comparable {
  case toast = "slotToast"
  case banner = "slotBanner"
  case modal = "slotModal"
  case viewerBlockingBar = "slotViewerBlockingBar"

  var index: Int { Self.allCases.firstIndex(of: self)! }
  public static func < (a: PromptSlot, b: PromptSlot) -> Bool { a.index < b.index }
  /// The auto-dismiss timer of this slot (one prompt per slot, so one timer per slot).
  public var timerID: TimerID { EngineTimer.promptAutoDismiss(self).id }
}

/// A.2.1 / A.5.1 frequency gates.
public enum FrequencyGate: String, Sendable, Equatable {
  case none, sessionOnce, installOnce, stateOnly
}

/// A.2.1 dismiss reasons (`prompt_dismissed.dismissReason`).
public enum DismissReason: String, Sendable, Equatable {
  case auto, close, action, preempt
}

/// Why an emission was not shown (trace `drop_reason`, ENGINE §1.7).
public enum PromptDropReason: String, Sendable, Equatable {
  case gate, throttle, suppressed
  case lowerPriority = "lower_priority"
}

/// A.3.2 throttle rule, in milliseconds.
public struct ThrottleRule: Sendable, Equatable {
  public var perKeyMinIntervalMs: Millis
  public var globalWindowMs: Millis
  public var globalMaxCountInWindow: Int
  public var suppressAfterDismissMs: Millis
  public init(perKeyMs: Millis, windowMs: Millis, maxInWindow: Int, suppressMs: Millis) {
    perKeyMinIntervalMs = perKeyMs
    globalWindowMs = windowMs
    globalMaxCountInWindow = maxInWindow
    suppressAfterDismissMs = suppressMs
  }
  /// From the catalogue's "perKey/globalWin/globalMax/suppress" seconds.
  public init(_ perKeySec: Double, _ windowSec: Double, _ maxInWindow: Int, _ suppressSec: Double) {
    self.init(
      perKeyMs: Millis((perKeySec * 1000).rounded()), windowMs: Millis((windowSec * 1000).rounded()),
      maxInWindow: maxInWindow, suppressMs: Millis((suppressSec * 1000).rounded()))
  }
  /// A.3.2 defaults per level.
  public static let l1 = ThrottleRule(2, 10, 3, 0)
  public static let l2 = ThrottleRule(10, 20, 2, 60)
  public static let l3 = ThrottleRule(10, 60, 1, 30)
  public static func `default`(for level: PromptLevel) -> ThrottleRule {
    switch level {
    case .L1: l1
    case .L2: l2
    case .L3: l3
    }
  }
}

/// The catalogue's "auto" column.
public enum AutoDismiss: Sendable, Equatable {
  /// "none": stays until closed, acted on, preempted or its condition ends.
  case never
  /// "def": the A.3.1 default of the level (L1 4.0 s / L2 6.0 s; VoiceOver 6.0 s / 8.0 s).
  case standard
  /// An explicit base duration; VoiceOver raises it to at least the VoiceOver constant ([C]).
  case seconds(Double)
}

/// ENGINE §4.3 timing constants (PRD §A.3.1).
public enum PromptTimings {
  public static let l1ToastMs: Millis = 4000
  public static let voiceOverL1ToastMs: Millis = 6000
  public static let l2BannerMs: Millis = 6000
  public static let voiceOverL2BannerMs: Millis = 8000

  /// The auto-dismiss delay of `def` under the A.3.1 rules, or nil when it never auto-dismisses:
  /// L1 always; L2 only without a primary button (G-19); L3 and the Viewer bar never.
  public static func autoDismissMs(_ def: PromptDefinition, voiceOver: Bool) -> Millis? {
    let base: Millis
    let voiceOverMin: Millis
    switch def.level {
    case .L1:
      base = l1ToastMs
      voiceOverMin = voiceOverL1ToastMs
    case .L2:
      guard def.actions.isEmpty else { return nil }
      base = l2BannerMs
      voiceOverMin = voiceOverL2BannerMs
    case .L3:
      return nil
    }
    switch def.autoDismiss {
    case .never:
      // A.3.1: an L1 toast always auto-dismisses.
      if def.level == .L1 { return voiceOver ? voiceOverMin : base }
      return nil
    case .standard:
      return voiceOver ? voiceOverMin : base
    case .seconds(let s):
      let ms = Millis((s * 1000).rounded())
      return voiceOver ? max(ms, voiceOverMin) : ms
    }
  }
}

/// One button of a prompt: action id, zh label, English gloss.
public struct PromptButton: Sendable, Equatable {
  public var id: String
  public var zh: String
  public var en: String
  public init(_ id: String, _ zh: String, _ en: String) {
    self.id = id
    self.zh = zh
    self.en = en
  }
}

/// A.2.2 prompt definition (a catalogue row). Texts are templates with `{placeholder}`s.
public struct PromptDefinition: Sendable, Equatable {
  public var key: PromptKey
  public var level: PromptLevel
  public var surface: PromptSurface
  /// Higher wins (A.4.3).
  public var priority: Int
  public var blocksShutter: Bool
  public var gate: FrequencyGate
  public var autoDismiss: AutoDismiss
  public var throttle: ThrottleRule
  public var titleZh: String?
  public var titleEn: String?
  public var messageZh: String
  public var messageEn: String
  /// Primary, secondary, tertiary (, quaternary) buttons in order.
  public var actions: [PromptButton]
  /// The placeholders the templates use (`reason`, `count`, `scene`, `seconds`, `mb`).
  public var placeholders: [String]
  /// "catalogue" (§4.5 table), "D" (an engine key marked [D]) or "C" (a [C] key kept for parity).
  public var origin: String

  public init(
    key: PromptKey, level: PromptLevel, surface: PromptSurface, priority: Int, blocksShutter: Bool = false,
    gate: FrequencyGate = .none, autoDismiss: AutoDismiss = .never, throttle: ThrottleRule? = nil,
    titleZh: String? = nil, titleEn: String? = nil, messageZh: String, messageEn: String,
    actions: [PromptButton] = [], origin: String = "catalogue"
  ) {
    self.key = key
    self.level = level
    self.surface = surface
    self.priority = priority
    self.blocksShutter = blocksShutter
    self.gate = gate
    self.autoDismiss = autoDismiss
    self.throttle = throttle ?? .default(for: level)
    self.titleZh = titleZh
    self.titleEn = titleEn
    self.messageZh = messageZh
    self.messageEn = messageEn
    self.actions = actions
    self.origin = origin
    self.placeholders = PromptText.placeholders(in: [titleZh ?? "", messageZh])
  }

  public var slot: PromptSlot { surface.slot }
  /// A.2.2 `isClosable`: only L2 banners carry a ×.
  public var isClosable: Bool { level == .L2 && slot == .banner }
  public var primaryAction: PromptButton? { actions.first }
}

/// A typed prompt payload value (A.2.2 `payload`; [C] `PromptPayloadValue`).
public enum PromptPayloadValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
  ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral
{
  case string(String)
  case int(Int)
  case double(Double)
  case bool(Bool)
  public init(stringLiteral value: String) { self = .string(value) }
  public init(integerLiteral value: Int) { self = .int(value) }
  public init(floatLiteral value: Double) { self = .double(value) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }

  /// `{"int":15,"type":"int"}` — the tagged encoding of §4.10 (keys sorted).
  var tagged: JSONValue {
    switch self {
    case .string(let s): .object(["string": .string(s), "type": "string"])
    case .int(let i): .object(["int": .number(Double(i)), "type": "int"])
    case .double(let d): .object(["double": .number(d), "type": "double"])
    case .bool(let b): .object(["bool": .bool(b), "type": "bool"])
    }
  }
  /// Plain text for a template placeholder.
  var text: String {
    switch self {
    case .string(let s): s
    case .int(let i): String(i)
    case .double(let d): JSONWriter.shortest(d)
    case .bool(let b): b ? "true" : "false"
    }
  }
}

/// WriteFailReason (A.2.1) with both zh phrase sets of ENGINE §4.8 (option `writeFailReasonStrings`).
public enum WriteFailReason: String, Sendable, CaseIterable {
  case no_permission, no_space, photo_lib_unavailable, system_pressure
  public var a10: (zh: String, en: String) {
    switch self {
    case .no_permission: ("没拿到相册权限", "No photo library permission")
    case .no_space: ("手机空间不够", "Phone storage is full")
    case .photo_lib_unavailable: ("系统相册暂时不可用", "System library temporarily unavailable")
    case .system_pressure: ("系统太忙", "System too busy")
    }
  }
  public var c41: (zh: String, en: String) {
    switch self {
    case .no_permission: ("权限不足", "Insufficient permission")
    case .no_space: ("空间不足", "Not enough space")
    case .photo_lib_unavailable: ("系统相册不可用", "System library unavailable")
    case .system_pressure: ("系统繁忙", "System busy")
    }
  }
}

/// RefRejectReason (A.2.1) with the {reason} texts of ENGINE §3.14.
public enum RefRejectReason: String, Sendable, CaseIterable {
  case multi_person, face_too_small, eyes_not_visible, upper_body_incomplete
  public var text: (zh: String, en: String) {
    switch self {
    case .multi_person: ("画面里有多个人", "There are several people in the frame")
    case .face_too_small: ("脸太小", "Face too small")
    case .eyes_not_visible: ("看不到眼睛", "Eyes not visible")
    case .upper_body_incomplete: ("上半身不全", "Upper body incomplete")
    }
  }
}

/// The action library of ENGINE §4.7 (PRD §A.9), plus the few ids the catalogue's [C]/[D] rows
/// need (`later`, `go_wrap`, `continue`, `retry_wrap`).
public enum PromptActionKind: String, Sendable, CaseIterable, Equatable {
  case dismiss, resume_engine, open_filmstrip, clear_unliked, retry_camera_init, retry_capture,
    retry_write, abandon_item, open_first_write_failed, retry_album_add, retry_viewer_load,
    open_limited_picker, open_settings, pick_ref_again, retry_purchase, retry_restore,
    open_manage_subscriptions, open_network_settings, open_storage_settings, reset_session
  /// [C] "稍后" (album banner, G-28): behaves like `dismiss` and starts suppression.
  case later
  /// [C] 20‑limit modal "去拼图" (G-29).
  case go_wrap
  /// [C] camera pre‑prompt "继续" (DIAG record 2): ask for camera permission.
  case `continue`
  /// [D] wrap generation failure "重试".
  case retry_wrap

  /// The §1.6 effect an action that leaves the app (or asks the system) turns into.
  public var effect: EffectRequest? {
    switch self {
    case .open_settings: .leaveApp(.open_settings)
    case .open_limited_picker: .leaveApp(.open_limited_picker)
    case .open_storage_settings: .leaveApp(.open_storage_settings)
    case .open_network_settings: .leaveApp(.open_network_settings)
    case .open_manage_subscriptions: .leaveApp(.open_manage_subscriptions)
    case .continue: .requestCameraPermission
    default: nil
    }
  }
}

/// A button tap handed back to the caller (ENGINE §4.7): the engine executes it.
public struct PromptAction: Sendable, Equatable {
  public var key: PromptKey
  public var actionId: String
  /// nil for an id outside the library (never the case for catalogue prompts).
  public var kind: PromptActionKind?
  /// True for `dismiss`/`later` and buttons titled 取消/稍后/知道了: starts suppression (§4.4).
  public var isDismissal: Bool
  /// The prompt's payload, in emission order (e.g. `reason` of write_failed).
  public var payload: [(key: String, value: PromptPayloadValue)]
  public var effect: EffectRequest? { kind?.effect }
  public static func == (a: PromptAction, b: PromptAction) -> Bool {
    a.key == b.key && a.actionId == b.actionId && a.kind == b.kind && a.isDismissal == b.isDismissal
      && a.payload.map(\.key) == b.payload.map(\.key) && a.payload.map(\.value) == b.payload.map(\.value)
  }
}

/// Everything a prompt operation needs from outside: A.13 line context and VoiceOver.
public struct PromptContext: Sendable, Equatable {
  /// Recording header `wall_start_ms` (wall = wallStartMs + t).
  public var wallStartMs: Int64
  public var sessionId: String
  /// `cafe` / `outdoor`.
  public var scene: String
  /// `voiceover {enabled}` (ENGINE §4.3, S41).
  public var voiceOver: Bool
  /// Planted faults (``PlantedFault``); empty in every real run.
  public var faults = PlantedFaults()
  public init(wallStartMs: Int64, sessionId: String, scene: String, voiceOver: Bool = false) {
    self.wallStartMs = wallStartMs
    self.sessionId = sessionId
    self.scene = scene
    self.voiceOver = voiceOver
  }
}

/// Template rendering (ENGINE §4.2 placeholders).
public enum PromptText {
  static let known = ["reason", "count", "scene", "seconds", "mb"]

  /// Placeholder names used in `templates`, in first-appearance order.
  static func placeholders(in templates: [String]) -> [String] {
    var out: [String] = []
    for t in templates {
      var rest = Substring(t)
      while let open = rest.firstIndex(of: "{") {
        let after = rest[rest.index(after: open)...]
        guard let close = after.firstIndex(of: "}") else { break }
        let name = String(after[..<close])
        if !out.contains(name) { out.append(name) }
        rest = after[after.index(after: close)...]
      }
    }
    return out
  }

  /// Fills `{name}` from `values`; missing → "", then removes empty brackets and surplus spaces.
  static func render(_ template: String, _ values: [String: String]) -> String {
    var out = ""
    var rest = Substring(template)
    while let open = rest.firstIndex(of: "{") {
      out += rest[..<open]
      let after = rest[rest.index(after: open)...]
      guard let close = after.firstIndex(of: "}") else {
        rest = after
        break
      }
      out += values[String(after[..<close])] ?? ""
      rest = after[after.index(after: close)...]
    }
    out += rest
    return clean(out)
  }

  /// Never show `{x}`: drop empty bracket pairs left by missing values, collapse spaces, trim.
  static func clean(_ s: String) -> String {
    var text = s
    for pair in ["（）", "()", "[]", "【】", "「」", "( )", "（ ）"] {
      text = text.replacingAll(pair, with: "")
    }
    while text.contains("  ") { text = text.replacingAll("  ", with: " ") }
    return text.trimmingSpaces()
  }

  /// `{seconds}`: one decimal.
  static func oneDecimal(_ d: Double) -> String {
    let tenths = Int64((d * 10).rounded(.toNearestOrAwayFromZero))
    let sign = tenths < 0 ? "-" : ""
    let a = abs(tenths)
    return "\(sign)\(a / 10).\(a % 10)"
  }
}

extension String {
  fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
    replacing(target, with: replacement)
  }
  fileprivate func trimmingSpaces() -> String {
    var s = Substring(self)
    while s.first == " " { s = s.dropFirst() }
    while s.last == " " { s = s.dropLast() }
    return String(s)
  }
}
