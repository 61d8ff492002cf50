import CanonicalJSON
import Foundation
import JustPhotoPlugin
import PoseSpec

/// Spec mutants for `jpreplay faults --mutants` (issue 24): one small edit of one cue of the
/// PoseSpec each — a threshold moved, the exit put on warn, persistence, hold or cooldown
/// changed, warn and hard swapped, the error's sign flipped. A mutant that changes a trace on
/// the recordings with rules should break one of their rules.
package enum SpecMutants {
  /// The mutation operators, in report order.
  package enum Operator: String, CaseIterable, Sendable {
    case warnHarder = "warn-harder"
    case warnEasier = "warn-easier"
    case exitOnWarn = "exit-on-warn"
    case persistPlus3 = "persist+3"
    case holdTripled = "hold-x3"
    case cooldownZero = "cooldown-0"
    case levelsSwapped = "warn-hard-swapped"
    case signFlipped = "sign-flipped"
  }

  /// Mutants of the cues `cues` (spec order) of the spec whose JSON is `root`: each a name
  /// (`CUE:operator`), a summary and the validated spec. Edits that do not apply to a cue
  /// (no cooldown to zero, no exit) or that the validator refuses are left out.
  package static func variants(specJSON root: JSONValue, cues: Set<String>) -> [FaultRun.Variant] {
    guard let all = root["cues"]?.arrayValue else { return [] }
    var out: [FaultRun.Variant] = []
    for (i, cue) in all.enumerated() {
      guard let id = cue["id"]?.stringValue, cues.contains(id), let obj = cue.objectValue else { continue }
      for op in Operator.allCases {
        guard var edited = mutate(obj, op), edited != obj else { continue }
        edited["id"] = .string(id)
        var r = root.objectValue ?? JSONObject()
        var list = all
        list[i] = .object(edited)
        r["cues"] = .array(list)
        let bytes = Array(JSONWriter.write(.object(r)).utf8)
        guard let spec = try? Harness.validateSpec(bytes: bytes, path: "mutant \(id):\(op.rawValue)") else { continue }
        out.append(FaultRun.Variant(name: "\(id):\(op.rawValue)", summary: describe(op), spec: spec))
      }
    }
    return out
  }

  static func describe(_ op: Operator) -> String {
    switch op {
    case .warnHarder: "warn threshold moved half its size away (harder to reach)"
    case .warnEasier: "warn threshold moved half its size closer (easier to reach)"
    case .exitOnWarn: "exit threshold put on the warn threshold (no dead band)"
    case .persistPlus3: "persistFrames + 3"
    case .holdTripled: "minHoldMs × 3 (1000 when 0)"
    case .cooldownZero: "cooldownMs 0"
    case .levelsSwapped: "warn and hard thresholds swapped"
    case .signFlipped: "the noRef error's sign flipped"
    }
  }

  static func mutate(_ cue: JSONObject, _ op: Operator) -> JSONObject? {
    var c = cue
    var trigger = c["trigger"]?.objectValue ?? JSONObject()
    guard var noRef = trigger["noRef"]?.objectValue else { return nil }
    func commit() -> JSONObject {
      trigger["noRef"] = .object(noRef)
      c["trigger"] = .object(trigger)
      return c
    }
    func jitter(_ key: String, _ f: (Double) -> Double?) -> JSONObject? {
      var aj = c["antiJitter"]?.objectValue ?? JSONObject()
      guard let v = aj[key]?.doubleValue, let n = f(v), n != v else { return nil }
      aj[key] = .number(n)
      c["antiJitter"] = .object(aj)
      return c
    }
    switch op {
    case .warnHarder, .warnEasier:
      guard let warn = noRef["warn"]?.objectValue, let (k, v) = warn.members.first.map({ ($0.key, $0.value.doubleValue) }), let v else { return nil }
      let away = k.contains(">") ? 1.0 : -1.0  // > and abs> grow harder upward, < downward
      let step = max(abs(v) * 0.5, 0.01) * (op == .warnHarder ? away : -away)
      noRef["warn"] = .object([k: .number(v + step)])
      return commit()
    case .exitOnWarn:
      guard let warn = noRef["warn"]?.objectValue, let (k, v) = warn.members.first.map({ ($0.key, $0.value.doubleValue) }), let v,
        noRef["exit"] != nil, k != "between"
      else { return nil }
      let flipped = ["<": ">=", "<=": ">", ">": "<=", ">=": "<", "abs>": "abs<=", "abs>=": "abs<", "abs<": "abs>=", "abs<=": "abs>"][k]
      guard let flipped else { return nil }
      noRef["exit"] = .object([flipped: .number(v)])
      return commit()
    case .persistPlus3: return jitter("persistFrames") { $0 + 3 }
    case .holdTripled: return jitter("minHoldMs") { $0 == 0 ? 1000 : $0 * 3 }
    case .cooldownZero: return jitter("cooldownMs") { $0 > 0 ? 0 : nil }
    case .levelsSwapped:
      guard let w = noRef["warn"], let h = noRef["hard"], w != .null, h != .null else { return nil }
      (noRef["warn"], noRef["hard"]) = (h, w)
      return commit()
    case .signFlipped:
      var metric = c["metric"]?.objectValue ?? JSONObject()
      let formula = metric["formula"]?.stringValue ?? ""
      if let r = formula.range(of: "error =", options: .backwards) {
        // `error = expr` (to the end of the statement: `;`, `#` or the end).
        let rest = formula[r.upperBound...]
        let end = rest.firstIndex { $0 == ";" || $0 == "#" } ?? rest.endIndex
        let expr = rest[..<end].trimmingCharacters(in: .whitespaces)
        guard !expr.isEmpty else { return nil }
        metric["formula"] = .string(formula[..<r.upperBound] + " -(\(expr))" + (end < rest.endIndex ? " " + rest[end...] : ""))
        c["metric"] = .object(metric)
        return c
      }
      guard let e = noRef["error"]?.stringValue, !e.isEmpty else { return nil }
      noRef["error"] = .string("-(\(e))")
      return commit()
    }
  }
}
