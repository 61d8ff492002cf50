import CanonicalJSON

/// Engine options of ENGINE §1.8. A recording's header carries them (`options`), so a golden
/// is valid for exactly one option set; `replay --set key=value` overrides them.
public struct EngineOptions: Equatable, Sendable {
  /// Every option with its allowed values; the first value is the default.
  public static let catalogue: [(name: String, values: [String])] = [
    ("bodyPointsScope", ["perCue", "allJoints"]),
    ("matchEvalCadence", ["t0", "t1"]),
    ("mirrorMode", ["scalar", "points"]),
    ("missingTargetPolicy", ["block", "exclude"]),
    ("angleFix", ["off", "on"]),
    ("useStabilityLayer", ["false", "true"]),
    ("t1MaxHz", ["2"]),
    ("retractPraiseOnInstability", ["false", "true"]),
    ("promptGlobalWindowScope", ["slot", "all"]),
    ("errorSource", ["formulaFirst", "outputsFirst"]),
    ("strictEffects", ["true", "false"]),
    ("bboxRequiresAllListed", ["false", "true"]),
    ("writeFailReasonStrings", ["a10", "c41"]),
    ("captureFailedText", ["prd", "code"]),
    ("traceEvaluations", ["false", "true"]),
  ]

  /// Current values by name (always complete: every catalogue option has a value).
  public private(set) var values: [String: String]

  public init() {
    values = Dictionary(uniqueKeysWithValues: Self.catalogue.map { ($0.name, $0.values[0]) })
  }

  /// Options from a header `options` object; absent options keep their defaults.
  public init(json: JSONObject) throws(EngineOptionsError) {
    self.init()
    for m in json.members {
      let text: String
      switch m.value {
      case .string(let s): text = s
      case .bool(let b): text = b ? "true" : "false"
      case .number(let d): text = JSONValueText.number(d)
      default: throw EngineOptionsError(option: m.key, message: "expected a string, number or boolean, found \(m.value.typeName)")
      }
      try set(m.key, text)
    }
  }

  /// Sets one option, checking name and value.
  public mutating func set(_ name: String, _ value: String) throws(EngineOptionsError) {
    guard let entry = Self.catalogue.first(where: { $0.name == name }) else {
      throw EngineOptionsError(
        option: name,
        message: "unknown engine option; known options: \(Self.catalogue.map(\.name).joined(separator: ", "))")
    }
    if name == "t1MaxHz" {
      guard let hz = Int(value), hz >= 1, hz <= 30 else {
        throw EngineOptionsError(option: name, message: "expected an integer 1…30, found '\(value)'")
      }
    } else if !entry.values.contains(value) {
      throw EngineOptionsError(
        option: name, message: "expected one of \(entry.values.joined(separator: " / ")), found '\(value)'")
    }
    values[name] = value
  }

  public subscript(name: String) -> String { values[name] ?? "" }

  /// The options as a JSON object in catalogue order (for headers and reports).
  public var json: JSONObject {
    JSONObject(Self.catalogue.map { JSONMember($0.name, .string(values[$0.name]!)) })
  }
  /// Only the options that differ from their defaults, in catalogue order.
  public var nonDefault: JSONObject {
    JSONObject(
      Self.catalogue.compactMap { entry in
        let v = values[entry.name]!
        return v == entry.values[0] ? nil : JSONMember(entry.name, .string(v))
      })
  }

  public var bodyPointsPerCue: Bool { self["bodyPointsScope"] == "perCue" }
  public var angleFix: Bool { self["angleFix"] == "on" }
  public var useStabilityLayer: Bool { self["useStabilityLayer"] == "true" }
  public var bboxRequiresAllListed: Bool { self["bboxRequiresAllListed"] == "true" }
  public var errorSourceFormulaFirst: Bool { self["errorSource"] == "formulaFirst" }
  public var strictEffects: Bool { self["strictEffects"] == "true" }
  public var t1MaxHz: Int { Int(self["t1MaxHz"]) ?? 2 }
  /// `traceEvaluations=true`: every T0 evaluation and T1 tick leaves a compact `eval` line, so
  /// a golden can show *when* the engine evaluated (ENGINE §3.11: no T1 tick while degraded,
  /// landmarks accepted ≥ 121 ms apart at 8 Hz) — evidence that `tier` lines alone cannot give.
  public var traceEvaluations: Bool { self["traceEvaluations"] == "true" }
}

/// A bad engine option in a header or on the command line.
public struct EngineOptionsError: Error, Equatable, CustomStringConvertible, Sendable {
  public var option: String
  public var message: String
  public var description: String { "engine option '\(option)': \(message)" }
}

enum JSONValueText {
  static func number(_ d: Double) -> String {
    if d.rounded() == d, abs(d) < 1e15 { return String(Int64(d)) }
    return String(d)
  }
}
