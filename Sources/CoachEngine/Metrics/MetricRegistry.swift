import PoseSpec

/// The bbox metrics of ENGINE §2.10 the engine computes so far (composition cues).
///
/// Each is recognised by name **and** by the shape of its formula in the spec, with `#`
/// standing for a number taken from the spec (e.g. the 0.52 of `centerYOffset`). A cue whose
/// formula has another shape is not evaluated until the expression compiler exists: the
/// engine never runs a formula other than the one written in the PoseSpec.
enum BBoxMetric: String, CaseIterable, Sendable {
  case centerXOffset, centerYOffset, bboxHeight, headroom, bottomMargin

  /// The formula's right-hand side with spaces removed; `#` matches a number literal.
  var shape: String {
    switch self {
    case .centerXOffset: "center(bbox(bodyPoints)).x-#"
    case .centerYOffset: "center(bbox(bodyPoints)).y-#"
    case .bboxHeight: "bbox(bodyPoints).h"
    case .headroom: "bbox(bodyPoints).y"
    case .bottomMargin: "#-bbox(bodyPoints).maxY"
    }
  }

  /// Fewest kept points for a valid perCue box: `bottomMargin` needs one, the others two
  /// with a height (§2.10).
  var minPoints: Int { self == .bottomMargin ? 1 : 2 }

  /// The metric of `box`; `params` are the numbers matched by `#` in `shape`, in order.
  func value(_ box: BBox, _ params: [Double]) -> Double {
    switch self {
    case .centerXOffset: box.center.x - params[0]
    case .centerYOffset: box.center.y - params[0]
    case .bboxHeight: box.height
    case .headroom: box.minY
    case .bottomMargin: params[0] - box.maxY
    }
  }
}

/// How the engine computes a cue's noRef error. New metric families add cases here; the
/// expression compiler will add a `.compiled` case.
enum MetricBinding: Equatable, Sendable {
  /// A bbox metric over the cue's body points, with the constants read from its formula.
  case bbox(BBoxMetric, params: [Double])
  /// Not evaluated yet; the text says why (listed in `cue_eval`).
  case unsupported(String)
}

/// Binds cues to implemented metrics, keyed by the name their noRef error resolves to
/// (ENGINE §3.2 error source order).
enum MetricRegistry {
  static let byName: [String: BBoxMetric] = Dictionary(
    uniqueKeysWithValues: BBoxMetric.allCases.map { ($0.rawValue, $0) })

  static func bind(_ cue: PoseSpecCue, formulaFirst: Bool) -> MetricBinding {
    guard let (expression, _) = cue.noRefError(formulaFirst: formulaFirst) else {
      return .unsupported(cue.trigger.noRef == nil ? "no noRef trigger" : "no noRef error expression")
    }
    guard CueFormula.isIdentifier(expression) else {
      return .unsupported("error expression '\(expression)' needs the formula compiler")
    }
    guard let metric = byName[expression] else { return .unsupported("metric \(expression) not implemented") }
    guard let rhs = cue.formula.expression(of: expression) else {
      return .unsupported("formula does not assign \(expression)")
    }
    guard let params = match(metric.shape, rhs) else {
      return .unsupported("formula '\(expression) = \(rhs)' is not the implemented shape '\(metric.shape)'")
    }
    return .bbox(metric, params: params)
  }

  /// Matches `text` (spaces ignored) against `shape`; returns the numbers at the `#` holes.
  static func match(_ shape: String, _ text: String) -> [Double]? {
    let s = Array(shape.utf8)
    let t = Array(text.utf8.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") })
    var i = 0
    var j = 0
    var params: [Double] = []
    while i < s.count {
      if s[i] == UInt8(ascii: "#") {
        let start = j
        if j < t.count, t[j] == UInt8(ascii: "-") || t[j] == UInt8(ascii: "+") { j += 1 }
        while j < t.count, isNumberByte(t[j], previous: j > 0 ? t[j - 1] : 0) { j += 1 }
        guard let d = Double(String(decoding: t[start..<j], as: UTF8.self)), d.isFinite else { return nil }
        params.append(d)
        i += 1
      } else {
        guard j < t.count, t[j] == s[i] else { return nil }
        i += 1
        j += 1
      }
    }
    return j == t.count ? params : nil
  }

  static func isNumberByte(_ c: UInt8, previous: UInt8) -> Bool {
    if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) || c == UInt8(ascii: ".") { return true }
    if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") { return true }
    // A sign only inside an exponent (1e-3).
    return (c == UInt8(ascii: "-") || c == UInt8(ascii: "+"))
      && (previous == UInt8(ascii: "e") || previous == UInt8(ascii: "E"))
  }
}
