import CanonicalJSON
import Foundation
import JustPhotoPlugin
import PoseSpec
import Recording
import Yams

/// One value a tuned parameter can take: a number (PoseSpec thresholds, frames, ms), or a
/// boolean / string (engine options).
package enum TuneValue: Hashable, Sendable, CustomStringConvertible {
  case number(Double)
  case bool(Bool)
  case string(String)
  /// A conditional parameter whose `when:` is false in this trial: not sampled, not applied,
  /// not part of the point (stored as JSON null, shown as `-`).
  case inactive

  package var description: String {
    switch self {
    case .number(let d): JSONWriter.shortest(d)
    case .bool(let b): b ? "true" : "false"
    case .string(let s): s
    case .inactive: "-"
    }
  }

  package var json: JSONValue {
    switch self {
    case .number(let d): .number(d)
    case .bool(let b): .bool(b)
    case .string(let s): .string(s)
    case .inactive: .null
    }
  }

  package init?(json: JSONValue) {
    switch json {
    case .number(let d): self = .number(d)
    case .bool(let b): self = .bool(b)
    case .string(let s): self = .string(s)
    case .null: self = .inactive
    default: return nil
    }
  }
}

/// `when: "PATH == VALUE"` (or `!=`) on a parameter: it is active only when the earlier
/// parameter PATH (as written in the space) has (or has not) VALUE, and PATH is itself active.
package struct TuneCondition: Sendable, Equatable {
  /// The index of the parameter read (always before the conditional one).
  package var parent: Int
  package var equal: Bool
  package var value: TuneValue
  /// As written, for messages.
  package var text: String

  package func holds(_ values: [TuneValue]) -> Bool {
    guard parent < values.count, values[parent] != .inactive else { return false }
    return (values[parent] == value) == equal
  }
}

/// The values a parameter ranges over.
package enum TuneDomain: Sendable, Equatable {
  /// A finite list (`[2..6]`, `[a, b, c]`, `{min, max, step}`): every sampler can use it.
  case choices([TuneValue])
  /// `{min, max}`: a continuous range, values rounded to `quantum` (random and TPE only).
  case range(min: Double, max: Double, quantum: Double)

  /// The number of grid points (nil for a continuous range).
  package var count: Int? {
    if case .choices(let c) = self { return c.count }
    return nil
  }
}

/// One tuned parameter: a path pattern as written, its domain, and the places it sets.
package struct TuneParameter: Sendable {
  package var path: String
  package var domain: TuneDomain
  package var line: Int
  package var target: TuneTarget
  /// `when:` — nil for a parameter that is always active.
  package var condition: TuneCondition? = nil
}

/// Bounds of a search space file.
package enum TuneLimits {
  package static let spaceBytesMax = 256 * 1024
  package static let parametersMax = 64
  package static let choicesMax = 10_000
  package static let trialsMax = 1_000_000
}

/// A search space file (YAML): parameter paths with domains, plus optional settings.
///
/// ```yaml
/// sampler: tpe                  # grid | random | tpe | nsga2 (default random; --sampler overrides)
/// seed: 7                       # default 1
/// trials: 1000                  # default: the grid size for grid, else 100
/// objective: flicker_per_min    # what TPE minimises (default flicker_per_min)
/// objectives: [flicker_per_min, latency_p90_ms]   # what nsga2 minimises (default: objective)
/// constraints: {budget_violations: 0, expectation_failures: 0}   # objective ≤ value, else infeasible
/// validation: "val-*"          # recordings judged apart from the fit (default: val-* if any; none)
/// generalise: {latency_p90_ms: 1000}   # validation budgets a promoted trial must keep
/// tolerate: {latency_p50_ms: 200}       # non-inferiority margins: worse by at most this is no worse
/// cues[*].antiJitter.persistFrames: [2..6]
/// defaults.antiJitter.minHoldMs: {min: 1500, max: 4000, step: 250}
/// cues[FRAME_MOVE_*].trigger.noRef.exit: {min: 0.02, max: 0.06}
/// options.useStabilityLayer: [false, true]
/// options.oneEuroBeta: {min: 0, max: 30, when: "options.landmarkFilter == oneEuro"}
/// ```
package struct TuneSpace: Sendable {
  package static let settingKeys = ["sampler", "seed", "trials", "objective", "objectives", "constraints", "validation", "generalise", "tolerate"]
  package static let defaultConstraints: [(String, Double)] = [("budget_violations", 0), ("expectation_failures", 0)]

  package var file: String
  package var text: String
  package var parameters: [TuneParameter] = []
  package var sampler: String?
  package var seed: UInt64?
  package var trials: Int?
  package var objective: String?
  /// `objectives: [a, b]`: what the nsga2 sampler minimises (default: `objective`).
  package var objectives: [String]?
  package var constraints: [(name: String, max: Double)] = TuneSpace.defaultConstraints
  /// Globs of the validation recordings: nil when the file does not say (the `val-*`
  /// recordings when any exist), empty for `validation: none`.
  package var validation: [String]?
  /// Where `validation:` is written (`file:line:column`), for messages about its globs.
  package var validationPlace: String?
  /// Validation budgets (`generalise:`): a trial whose validation objective exceeds one does
  /// not generalise.
  package var generalise: [(name: String, max: Double)] = []
  /// Non-inferiority margins (`tolerate:`, ≥ 0, in the objective's units): a trial's paired
  /// difference with the shipped spec counts as worse only past its objective's margin (0 for
  /// an objective not listed), in `tune promote`'s gate and in "generalises". A declared price:
  /// an anti-jitter measure that waits one more evaluation costs 100 ms at 10 fps by design.
  package var tolerate: [(name: String, max: Double)] = []
  /// Notes for the user (shadowed paths), in parameter order.
  package var warnings: [String] = []

  /// Parses `text` and resolves every path against `spec` (the PoseSpec JSON). Any problem is
  /// exit 2 naming `file:line:column`.
  /// `spec` nil: parameters are not resolved (their targets are empty; `tune export` needs only
  /// the domains and conditions).
  package static func parse(text: String, file: String, spec: JSONValue?) throws(HarnessFailure) -> TuneSpace {
    guard text.utf8.count <= TuneLimits.spaceBytesMax else {
      throw .badInput("\(file): \(text.utf8.count) bytes, more than spaceBytesMax = \(TuneLimits.spaceBytesMax)")
    }
    var space = TuneSpace(file: file, text: text)
    let root: Node
    do {
      guard let r = try Yams.compose(yaml: text) else { throw HarnessFailure.badInput("\(file): empty search space") }
      root = r
    } catch let e as HarnessFailure { throw e } catch {
      throw .badInput("\(file): YAML syntax: \(Excerpt.short("\(error)"))")
    }
    guard case .mapping(let members) = root else {
      throw .badInput("\(place(file, root)): expected a mapping of parameter paths to domains, found \(kind(root))")
    }
    for (k, v) in members {
      guard case .scalar(let ks) = k else { throw .badInput("\(place(file, k)): keys must be plain strings") }
      if settingKeys.contains(ks.string) {
        try space.setting(ks.string, v)
      } else {
        guard space.parameters.count < TuneLimits.parametersMax else {
          throw .badInput("\(place(file, k)): more than parametersMax = \(TuneLimits.parametersMax) parameters")
        }
        let domain = try parseDomain(v, file: file, key: ks.string)
        var target = TuneTarget.spec([])
        if let spec {
          do { target = try TuneTarget.resolve(ks.string, in: spec, domain: domain) } catch {
            throw .badInput("\(place(file, k)): \(ks.string): \(error.message)")
          }
        }
        var parameter = TuneParameter(path: ks.string, domain: domain, line: (k.mark?.line ?? 0), target: target)
        if case .mapping(let m) = v, let w = m.first(where: { $0.key.scalar?.string == "when" }) {
          parameter.condition = try space.condition(w.value, key: ks.string)
        }
        space.parameters.append(parameter)
      }
    }
    guard !space.parameters.isEmpty else { throw .badInput("\(file): no parameters (a key like cues[*].antiJitter.persistFrames: [2..6])") }
    guard let spec else { return space }
    try space.checkOverlaps()
    space.warnings = space.parameters.compactMap { ShadowCheck.warning(for: $0, in: spec) }
    return space
  }

  /// Two parameters that set the same place (a literal of the spec, or one engine option)
  /// would let the later one silently win in trials and splice both into the same bytes in
  /// `promote`: refused, naming both lines and the place.
  func checkOverlaps() throws(HarnessFailure) {
    var seen: [String: TuneParameter] = [:]
    for p in parameters {
      let keys: [(String, String)]
      switch p.target {
      case .option(let name): keys = [("option " + name, "options.\(name)")]
      case .spec(let places):
        keys = places.map { place in
          var steps = place.steps
          if let c = place.comparator { steps.append(.key(c)) }
          return (JSONTextScanner.key(steps), place.display + (place.comparator.map { " \($0)" } ?? ""))
        }
      }
      for (k, shown) in keys {
        if let other = seen[k], other.line != p.line || other.path != p.path {
          throw .badInput(
            "\(file):\(p.line): \(p.path) sets \(shown), which \(file):\(other.line) (\(other.path)) sets too; give each place one parameter")
        }
        seen[k] = p
      }
    }
  }

  mutating func setting(_ key: String, _ v: Node) throws(HarnessFailure) {
    let at = Self.place(file, v)
    switch key {
    case "sampler":
      guard let s = v.scalar?.string, TuneSamplerKind(rawValue: s) != nil else {
        throw .badInput("\(at): sampler: expected grid, random, tpe or nsga2")
      }
      sampler = s
    case "seed":
      guard let s = v.scalar?.string, let n = UInt64(s) else { throw .badInput("\(at): seed: expected an integer ≥ 0") }
      seed = n
    case "trials":
      guard let s = v.scalar?.string, let n = Int(s), n >= 1, n <= TuneLimits.trialsMax else {
        throw .badInput("\(at): trials: expected an integer in 1…\(TuneLimits.trialsMax)")
      }
      trials = n
    case "objective":
      guard let s = v.scalar?.string, TrialObjectives.keys.contains(s) else {
        throw .badInput("\(at): objective: expected one of \(TrialObjectives.keys.joined(separator: ", "))")
      }
      objective = s
    case "objectives":
      guard case .sequence(let seq) = v, !seq.isEmpty else {
        throw .badInput("\(at): objectives: expected a list of objectives (\(TrialObjectives.keys.joined(separator: ", ")))")
      }
      var out: [String] = []
      for item in seq {
        guard let s = item.scalar?.string, TrialObjectives.keys.contains(s) else {
          throw .badInput("\(Self.place(file, item)): objectives: expected one of \(TrialObjectives.keys.joined(separator: ", "))")
        }
        guard !out.contains(s) else { throw .badInput("\(Self.place(file, item)): objectives: \(s) is listed twice") }
        out.append(s)
      }
      objectives = out
    case "validation":
      validation = try Self.globs(v, at: at, file: file)
      validationPlace = at
    case "generalise":
      generalise = try objectiveBounds(v, key: key, meaning: "the largest allowed validation value")
    case "tolerate":
      tolerate = try objectiveBounds(v, key: key, meaning: "the largest paired difference with the shipped spec taken as no worse")
      if let negative = tolerate.first(where: { $0.max < 0 }) {
        throw .badInput("\(at): tolerate.\(negative.name): expected a margin of 0 or more, found \(JSONWriter.shortest(negative.max))")
      }
    default:
      constraints = try objectiveBounds(v, key: key, meaning: "the largest allowed value")
    }
  }

  /// `when: "PATH == VALUE"` or `"PATH != VALUE"`: PATH is a parameter written before this one
  /// (so a point is drawn in order), VALUE one of its values.
  func condition(_ v: Node, key: String) throws(HarnessFailure) -> TuneCondition {
    let at = Self.place(file, v)
    guard let text = v.scalar?.string else { throw .badInput("\(at): \(key).when: expected \"PATH == VALUE\" or \"PATH != VALUE\"") }
    let op: String
    if text.contains("!=") { op = "!=" } else if text.contains("==") { op = "==" } else {
      throw .badInput("\(at): \(key).when: expected \"PATH == VALUE\" or \"PATH != VALUE\", found \"\(text.prefix(80))\"")
    }
    let parts = text.components(separatedBy: op)
    guard parts.count == 2 else { throw .badInput("\(at): \(key).when: expected one \(op), found \"\(text.prefix(80))\"") }
    let path = parts[0].trimmingCharacters(in: .whitespaces)
    let valueText = parts[1].trimmingCharacters(in: .whitespaces)
    guard let parent = parameters.firstIndex(where: { $0.path == path }) else {
      let known = parameters.map(\.path).joined(separator: ", ")
      throw .badInput(
        "\(at): \(key).when: \(path.prefix(80)) is not a parameter written before this one\(known.isEmpty ? "" : " (\(known.prefix(300)))")")
    }
    let value = Self.scalarValue(Node.Scalar(valueText, .implicit, .plain))
    switch parameters[parent].domain {
    case .choices(let c):
      guard c.contains(value) else {
        throw .badInput(
          "\(at): \(key).when: \(valueText.prefix(80)) is not a value of \(path) (\(c.prefix(20).map(\.description).joined(separator: ", ")))")
      }
    case .range(let lo, let hi, _):
      guard case .number(let d) = value, d >= lo, d <= hi else {
        throw .badInput("\(at): \(key).when: \(valueText.prefix(80)) is outside \(path)'s range \(JSONWriter.shortest(lo))…\(JSONWriter.shortest(hi))")
      }
    }
    return TuneCondition(parent: parent, equal: op == "==", value: value, text: text)
  }

  /// `validation:` — `none`, one glob or a list of globs.
  static func globs(_ v: Node, at: String, file: String) throws(HarnessFailure) -> [String] {
    if let s = v.scalar?.string {
      guard !s.isEmpty else { throw .badInput("\(at): validation: expected a glob of recording names, a list of them, or none") }
      return s == "none" ? [] : [s]
    }
    guard case .sequence(let seq) = v, !seq.isEmpty else {
      throw .badInput("\(at): validation: expected a glob of recording names, a list of them, or none")
    }
    var out: [String] = []
    for item in seq {
      guard let s = item.scalar?.string, !s.isEmpty else { throw .badInput("\(place(file, item)): validation: expected a glob of recording names") }
      out.append(s)
    }
    return out
  }

  /// A mapping `objective: max` (`constraints:`, `generalise:`).
  func objectiveBounds(_ v: Node, key: String, meaning: String) throws(HarnessFailure) -> [(name: String, max: Double)] {
    guard case .mapping(let m) = v else { throw .badInput("\(Self.place(file, v)): \(key): expected a mapping objective: max") }
    var out: [(name: String, max: Double)] = []
    for (ck, cv) in m {
      guard let name = ck.scalar?.string, TrialObjectives.keys.contains(name) else {
        throw .badInput("\(Self.place(file, ck)): \(key): expected an objective (\(TrialObjectives.keys.joined(separator: ", ")))")
      }
      guard let s = cv.scalar?.string, let d = Double(s), d.isFinite else {
        throw .badInput("\(Self.place(file, cv)): \(key).\(name): expected a number (\(meaning))")
      }
      out.append((name, d))
    }
    return out
  }

  /// `{min, max, step}`, `{min, max}`, `[2..6]` or a list of values.
  static func parseDomain(_ v: Node, file: String, key: String) throws(HarnessFailure) -> TuneDomain {
    let at = place(file, v)
    switch v {
    case .sequence(let seq):
      let items = Array(seq)
      if items.count == 1, let s = items[0].scalar?.string, s.contains("..") {
        let parts = s.components(separatedBy: "..")
        guard parts.count == 2, let a = Int(parts[0].trimmingCharacters(in: .whitespaces)),
          let b = Int(parts[1].trimmingCharacters(in: .whitespaces)), a <= b
        else { throw .badInput("\(at): \(key): expected an integer range like [2..6], found [\(s.prefix(80))]") }
        // The span is computed without overflow (Int.min...Int.max is refused, not a trap).
        let (span, overflow) = b.subtractingReportingOverflow(a)
        guard !overflow, span < TuneLimits.choicesMax else {
          throw .badInput("\(at): \(key): more than choicesMax = \(TuneLimits.choicesMax) values")
        }
        return .choices((a...b).map { .number(Double($0)) })
      }
      guard !items.isEmpty, items.count <= TuneLimits.choicesMax else {
        throw .badInput("\(at): \(key): expected 1…\(TuneLimits.choicesMax) values")
      }
      var values: [TuneValue] = []
      for item in items {
        guard let s = item.scalar else { throw .badInput("\(place(file, item)): \(key): expected a scalar value") }
        values.append(scalarValue(s))
      }
      return .choices(values)
    case .mapping(let m):
      // `{values: [...], when: ...}`: a list with a condition (`when:` is read by the caller).
      if let values = m.first(where: { $0.key.scalar?.string == "values" }) {
        for (mk, _) in m where !["values", "when"].contains(mk.scalar?.string ?? "") {
          throw .badInput("\(place(file, mk)): \(key): a {values: [...]} domain takes only values and when")
        }
        guard case .sequence = values.value else { throw .badInput("\(place(file, values.value)): \(key).values: expected a list of values or [a..b]") }
        return try parseDomain(values.value, file: file, key: key)
      }
      var fields: [String: Double] = [:]
      for (mk, mv) in m {
        if mk.scalar?.string == "when" { continue }
        guard let name = mk.scalar?.string, ["min", "max", "step"].contains(name) else {
          throw .badInput("\(place(file, mk)): \(key): expected keys min, max, optionally step and when")
        }
        guard let s = mv.scalar?.string, let d = Double(s), d.isFinite else {
          throw .badInput("\(place(file, mv)): \(key).\(name): expected a number")
        }
        fields[name] = d
      }
      guard let lo = fields["min"], let hi = fields["max"], lo <= hi else {
        throw .badInput("\(at): \(key): expected min ≤ max")
      }
      // A span past the largest double would collapse every value to one (issue 23.5).
      guard (hi - lo).isFinite else { throw .badInput("\(at): \(key): max − min is too large to sample (overflows a double)") }
      guard let step = fields["step"] else {
        let span = hi - lo
        let quantum = span > 0 ? pow(10, (log10(span)).rounded(.down) - 3) : 1
        return .range(min: lo, max: hi, quantum: quantum)
      }
      guard step > 0, (hi - lo) / step < Double(TuneLimits.choicesMax) else {
        throw .badInput("\(at): \(key): step must be > 0 and give at most \(TuneLimits.choicesMax) values")
      }
      let n = Int(((hi - lo) / step + 1e-9).rounded(.down))
      return .choices((0...n).map { .number(roundTo(lo + Double($0) * step, quantum: step)) })
    default:
      throw .badInput("\(at): \(key): expected [a..b], a list of values or {min, max[, step]}, found \(kind(v))")
    }
  }

  static func scalarValue(_ s: Node.Scalar) -> TuneValue {
    if s.style == .plain {
      if s.string == "true" { return .bool(true) }
      if s.string == "false" { return .bool(false) }
      if let d = Double(s.string), d.isFinite { return .number(d) }
    }
    return .string(s.string)
  }

  /// `value` rounded to the decimal digits of `quantum` (so 0.1 + 0.2 prints 0.3).
  static func roundTo(_ value: Double, quantum: Double) -> Double {
    var digits = 0
    var q = quantum
    while digits < 12, (q - q.rounded()).magnitude > 1e-9 {
      q *= 10
      digits += 1
    }
    let scale = pow(10, Double(digits))
    return (value * scale).rounded() / scale
  }

  static func place(_ file: String, _ n: Node) -> String {
    guard let m = n.mark else { return file }
    return "\(file):\(m.line):\(m.column)"
  }

  static func kind(_ n: Node) -> String {
    switch n {
    case .mapping: "a mapping"
    case .sequence: "a list"
    case .scalar: "a scalar"
    case .alias: "an alias"
    }
  }
}
