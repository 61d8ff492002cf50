import CanonicalJSON

/// Engine options of ENGINE §1.8. A recording's header carries them (`options`), so a golden
/// is valid for exactly one option set; `replay --set key=value` overrides them.
public struct EngineOptions: Equatable, Sendable {
  /// Every option with its allowed values; the first value is the default.
  public static let catalogue: [(name: String, values: [String])] = EngineOption.allCases.map { ($0.rawValue, $0.values) }

  /// The numeric options (a number within a range, not a list of choices); their catalogue
  /// entry lists only the default. A value is stored in its shortest text (`1.50` → `1.5`), so
  /// the same number is the same option set however it was written.
  public static let numeric: [String: NumericRange] = [
    "oneEuroMinCutoff": .oneEuroCutoffHz,
    "oneEuroBeta": .oneEuroBeta,
    "oneEuroDCutoff": .oneEuroCutoffHz,
    "noiseGateRatio": .noiseGateRatio,
    "noiseGateMargin": .noiseGateMargin,
  ]

  /// The integer options with their allowed ranges; their catalogue entry lists only the default.
  public static let integers: [String: ClosedRange<Int>] = [
    "t1MaxHz": 1...30,
    "activateFrames": 1...EngineOptions.activateFramesMax,
    "noiseGate": 0...EngineOptions.noiseGateMax,
  ]

  /// The most consecutive activating evaluations `activateFrames` may ask for (a cue evaluated at
  /// 15 Hz then waits two thirds of a second before it can be shown at all).
  public static let activateFramesMax = 10

  /// The most frame-to-frame changes `noiseGate` may weigh (two seconds at 15 Hz); the engine
  /// keeps that many per cue, allocated once.
  public static let noiseGateMax = 30

  /// Current values by name (always complete: every catalogue option has a value).
  public private(set) var values: [String: String]

  /// Every option at its default (the first value of its ``catalogue`` entry).
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

  /// What is wrong with a recording header's `options` (`header: "options": angleFix:
  /// expected one of off / on, found 'maybe'`); nil when the header has none or every option
  /// reads. What Just Photo's readers refuse a header for (`import`, generated recordings); the
  /// `Recording` readers check only that `options` is an object, the options being the engine's.
  ///
  /// - Parameter header: a recording header.
  /// - Returns: the problem, worded for a `RecordingError` naming the file and line; nil when fine.
  public static func headerProblem(_ header: JSONObject) -> String? {
    guard let options = header["options"]?.objectValue else { return nil }
    do { _ = try EngineOptions(json: options) } catch { return "header: \"options\": \(error.description)" }
    return nil
  }

  /// Sets one option, checking name and value.
  public mutating func set(_ name: String, _ value: String) throws(EngineOptionsError) {
    guard let entry = Self.catalogue.first(where: { $0.name == name }) else {
      throw EngineOptionsError(
        option: name,
        message: "unknown engine option; known options: \(Self.catalogue.map(\.name).joined(separator: ", "))")
    }
    if let range = Self.integers[name] {
      guard let n = Int(value), range.contains(n) else {
        throw EngineOptionsError(
          option: name, message: "expected an integer \(range.lowerBound)…\(range.upperBound), found '\(value)'")
      }
      values[name] = String(n)
      return
    } else if let range = Self.numeric[name] {
      guard let d = NumericRange.decimal(value), range.contains(d) else {
        throw EngineOptionsError(
          option: name, message: "expected \(range.name) in \(range.description), found '\(value)'")
      }
      values[name] = JSONWriter.shortest(d)
      return
    } else if !entry.values.contains(value) {
      throw EngineOptionsError(
        option: name, message: "expected one of \(entry.values.joined(separator: " / ")), found '\(value)'")
    }
    values[name] = value
  }

  /// The current value of option `name` as text; empty for a name that is not in the catalogue.
  public subscript(name: String) -> String { values[name] ?? "" }

  /// Every option and what it takes, default first, for help texts: `angleFix=off|on`,
  /// `t1MaxHz=2 (an integer 1…30)`, `oneEuroBeta=0 (a speed coefficient … in [0, 1000])`.
  package static var catalogueSummary: String {
    catalogue.map { entry in
      if let range = numeric[entry.name] {
        return "\(entry.name)=\(entry.values[0]) (\(range.name) in \(range.description))"
      }
      if let range = integers[entry.name] {
        return "\(entry.name)=\(entry.values[0]) (an integer \(range.lowerBound)…\(range.upperBound))"
      }
      return "\(entry.name)=\(entry.values.joined(separator: "|"))"
    }.joined(separator: ", ")
  }

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

  /// `bodyPointsScope=perCue` (default): a cue's body box is built from its own `body.*` joints
  /// that pass the 0.5 confidence rule; `allJoints` boxes every kept joint, as the app does.
  public var bodyPointsPerCue: Bool { self[.bodyPointsScope] == "perCue" }
  /// `angleFix=on`: line angles folded to (−90°, 90°], angle differences wrapped to
  /// (−180°, 180°] and the y-down signs corrected; `off` (default) computes them as the app does.
  public var angleFix: Bool { self[.angleFix] == "on" }
  /// `useStabilityLayer=true`: cue levels pass through a stability layer before the
  /// anti-jitter gate (default false: straight to the gate).
  public var useStabilityLayer: Bool { self[.useStabilityLayer] == "true" }
  /// `bboxRequiresAllListed=true`: a bbox metric is available only when every joint it lists
  /// was kept (default false: enough kept joints suffice).
  public var bboxRequiresAllListed: Bool { self[.bboxRequiresAllListed] == "true" }
  /// `errorSource=formulaFirst` (default): a cue's noRef error is the formula's `error = …`
  /// expression before its single `outputs` name; `outputsFirst` takes the output first.
  public var errorSourceFormulaFirst: Bool { self[.errorSource] == "formulaFirst" }
  /// `strictEffects=true` (default): an effect result with no pending request, or a request never
  /// answered before the end, is a harness error; `false` lets the replayer answer with a success.
  public var strictEffects: Bool { self[.strictEffects] == "true" }
  /// The T1 (pixel/sensor) evaluation rate cap in Hz, an integer 1…30 (default 2: one tick per 500 ms).
  public var t1MaxHz: Int { Int(self[.t1MaxHz]) ?? 2 }
  /// `activateFrames=N`: an inactive cue turns active only after N consecutive evaluations at
  /// warn, hard or enter (default 1: the first one activates it, as the app does). A proposed
  /// app change against the one-frame outlier (ENGINE §3.5, G-56).
  public var activateFrames: Int { Int(self[.activateFrames]) ?? 1 }
  /// `noiseGate=N` (N ≥ 1): a T0 cue whose error moved, in the median of its last N
  /// frame-to-frame changes, by more than `noiseGateRatio` times its hysteresis band (the
  /// distance from its activating threshold to its exit threshold) is unavailable (`noisy`):
  /// a measurement that noisy cannot tell a pose from the detector's noise. 0 (default) is off,
  /// the app's behaviour. A proposed app change against a noisy detector (ENGINE §3.4.7, G-57).
  public var noiseGate: Int { Int(self[.noiseGate]) ?? 0 }
  /// `noiseGateRatio`: the multiple of a cue's hysteresis band that ``noiseGate`` allows.
  public var noiseGateRatio: Double { number(.noiseGateRatio) }
  /// `noiseGateMargin` k: with ``noiseGate`` on, an inactive cue's warn, hard or enter counts
  /// only when its error is past the activating threshold by more than k median changes (0,
  /// the default: any amount, as the spec).
  public var noiseGateMargin: Double { number(.noiseGateMargin) }
  /// `traceEvaluations=true`: every T0 evaluation and T1 tick leaves a compact `eval` line, so
  /// a golden can show *when* the engine evaluated (ENGINE §3.11: no T1 tick while degraded,
  /// landmarks accepted ≥ 121 ms apart at 8 Hz) — evidence that `tier` lines alone cannot give.
  public var traceEvaluations: Bool { self[.traceEvaluations] == "true" }
  /// `landmarkFilter=oneEuro`: a causal One Euro filter on every landmark coordinate before the
  /// metrics (a proposed app change, docs/TUNING.md), with `oneEuroMinCutoff` (Hz),
  /// `oneEuroBeta` (per canonical unit per second) and `oneEuroDCutoff` (Hz).
  public var landmarkFilterOneEuro: Bool { self[.landmarkFilter] == "oneEuro" }
  /// A numeric option's value (its default when the name is not numeric: never after `set`).
  public func number(_ name: String) -> Double { Double(self[name]) ?? 0 }
}

/// The allowed values of a numeric engine option: an interval, open or closed at either end.
public struct NumericRange: Equatable, Sendable {
  /// What the value is, for messages ("a cutoff frequency (Hz)").
  public var name: String
  /// The lower end of the interval.
  public var min: Double
  /// Whether ``min`` itself is allowed (`[`) or not (`(`).
  public var minInclusive: Bool
  /// The upper end of the interval.
  public var max: Double
  /// Whether ``max`` itself is allowed (`]`) or not (`)`).
  public var maxInclusive: Bool

  /// A One Euro cutoff frequency (`oneEuroMinCutoff`, `oneEuroDCutoff`): (0, 100] Hz.
  public static let oneEuroCutoffHz = NumericRange(
    name: "a cutoff frequency (Hz)", min: 0, minInclusive: false, max: 100, maxInclusive: true)
  /// The One Euro speed coefficient (`oneEuroBeta`): [0, 1000], per canonical unit per second.
  public static let oneEuroBeta = NumericRange(
    name: "a speed coefficient (per canonical unit/s)", min: 0, minInclusive: true, max: 1000, maxInclusive: true)

  /// The noise gate's allowance (`noiseGateRatio`): (0, 10], times a cue's hysteresis band.
  public static let noiseGateRatio = NumericRange(
    name: "a multiple of the cue's hysteresis band", min: 0, minInclusive: false, max: 10, maxInclusive: true)

  /// The noise gate's activation margin (`noiseGateMargin`): [0, 10] median changes.
  public static let noiseGateMargin = NumericRange(
    name: "a number of median changes", min: 0, minInclusive: true, max: 10, maxInclusive: true)

  /// Whether `d` lies in the interval; NaN and the infinities never do.
  public func contains(_ d: Double) -> Bool {
    d.isFinite && (minInclusive ? d >= min : d > min) && (maxInclusive ? d <= max : d < max)
  }

  /// `(0, 100]`.
  public var description: String {
    "\(minInclusive ? "[" : "(")\(JSONWriter.shortest(min)), \(JSONWriter.shortest(max))\(maxInclusive ? "]" : ")")"
  }

  /// A decimal number as written in a header or on the command line (`1`, `-0.5`, `2.5e-3`);
  /// nil for anything else (`inf`, `nan`, hexadecimal, blanks), which `Double(_:)` would take.
  public static func decimal(_ text: String) -> Double? {
    guard !text.isEmpty, text.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == 46 || $0 == 45 || $0 == 43 || $0 == 101 || $0 == 69 }),
      let d = Double(text), d.isFinite
    else { return nil }
    return d
  }
}

/// A bad engine option in a header or on the command line.
public struct EngineOptionsError: Error, Equatable, CustomStringConvertible, Sendable {
  /// The option name as given (it may be one the catalogue does not know).
  public var option: String
  /// What was wrong and what would have been accepted.
  public var message: String
  /// `engine option '<name>': <message>`.
  public var description: String { "engine option '\(option)': \(message)" }
}

enum JSONValueText {
  static func number(_ d: Double) -> String {
    if d.rounded() == d, abs(d) < 1e15 { return String(Int64(d)) }
    return String(d)
  }
}
