/// Why a Match dimension has no data: the `withref_fallback` payload of ENGINE §3.13g.
///
/// `reason` uses the §3.13g vocabulary (`no_pose`, `no_face`, `low_confidence_shoulders`,
/// `low_confidence_hips`, `missing_eyeROI`, `missing_faceROI`, `bbox_invalid`, `missing_target`);
/// `missing` lists the missing names (`body.leftHip`, `eyeROI`, `target.hipAngleDeg`, …),
/// sorted by byte order without duplicates.
public struct MatchMissingInfo: Equatable, Sendable {
  public var reason: String
  public var missing: [String]

  public init(reason: String, missing: [String] = []) {
    self.reason = reason
    self.missing = MatchOrder.sortedUnique(missing)
  }

  /// `missing` joined with commas, as the A.13 payload writes it ("" when empty).
  public var missingJoined: String { missing.joined(separator: ",") }

  /// A missing target `target.<metric>`.
  public static func missingTarget(_ metric: String) -> MatchMissingInfo {
    MatchMissingInfo(reason: "missing_target", missing: ["target.\(metric)"])
  }

  /// Maps an engine unavailability reason (§3.4.1: `missing_input:no_pose`,
  /// `missing_input:leftHip=low_conf|rightHip=low_conf`, `missing_input:face.leftEyeCenter`,
  /// `bbox_invalid:insufficientPoints`, `missing_target:target.hipAngleDeg`, `low_confidence`,
  /// …) to the §3.13g vocabulary. [D] choices, since the spec lists reasons but no mapping:
  /// - a missing joint names `body.<joint>` ([C] aliases such as `lHip` are expanded); the reason
  ///   is `low_confidence_<group>` of the first joint (shoulders, hips, elbows, …) whatever its
  ///   drop reason (low_conf, out_of_range or not reported);
  /// - a missing eye centre is `missing_eyeROI` / `eyeROI` (an eye that fails the keep rule
  ///   leaves the eyeROI unavailable, §2.7); another face point is `missing_faceROI`;
  /// - a missing or empty ROI `R` is `missing_R` / `R`;
  /// - the confidence gate (`low_confidence`) is `low_confidence_shoulders` when the cue's
  ///   landmarks list a shoulder, else `low_confidence_hips` for a hip, else
  ///   `low_confidence_face` for face points, with no names (the gate averages all points);
  /// - anything else keeps the text before `:` as the reason and names the metric.
  public static func classify(detail: String, metric: String, landmarks: [String] = []) -> MatchMissingInfo {
    let head: Substring
    let tail: Substring
    if let colon = detail.firstIndex(of: ":") {
      head = detail[..<colon]
      tail = detail[detail.index(after: colon)...]
    } else {
      head = detail[...]
      tail = ""
    }
    switch head {
    case "missing_input":
      return classifyMissingInput(String(tail), metric: metric)
    case "bbox_invalid":
      return MatchMissingInfo(reason: "bbox_invalid")
    case "missing_target":
      return MatchMissingInfo(reason: "missing_target", missing: [tail.isEmpty ? "target.\(metric)" : String(tail)])
    case "roi_empty":
      return roi(String(tail))
    case "low_confidence":
      if landmarks.contains(where: { $0.hasPrefix("body.") && $0.hasSuffix("Shoulder") }) {
        return MatchMissingInfo(reason: "low_confidence_shoulders")
      }
      if landmarks.contains(where: { $0.hasPrefix("body.") && $0.hasSuffix("Hip") }) {
        return MatchMissingInfo(reason: "low_confidence_hips")
      }
      if landmarks.contains(where: { $0.hasPrefix("face.") }) {
        return MatchMissingInfo(reason: "low_confidence_face")
      }
      return MatchMissingInfo(reason: "low_confidence")
    default:
      return MatchMissingInfo(reason: head.isEmpty ? "unavailable" : String(head), missing: [metric])
    }
  }

  static func classifyMissingInput(_ tail: String, metric: String) -> MatchMissingInfo {
    switch tail {
    case "no_pose": return MatchMissingInfo(reason: "no_pose")
    case "no_face": return MatchMissingInfo(reason: "no_face")
    case "face.leftEyeCenter", "face.rightEyeCenter":
      return MatchMissingInfo(reason: "missing_eyeROI", missing: ["eyeROI"])
    default: break
    }
    if tail.hasPrefix("face.") { return MatchMissingInfo(reason: "missing_faceROI", missing: [tail]) }
    if tail.hasSuffix("ROI") || tail.hasSuffix("Frame") { return roi(tail) }
    if tail.contains("=") {
      // "leftHip=low_conf|rightHip=low_conf": every listed joint, reason from the first.
      let joints = tail.split(separator: "|").map { part in
        canonicalJoint(String(part.split(separator: "=", maxSplits: 1).first ?? part))
      }
      let reason = joints.first.map { "low_confidence_" + jointGroup($0) } ?? "missing_input"
      return MatchMissingInfo(reason: reason, missing: joints.map { "body.\($0)" })
    }
    return MatchMissingInfo(reason: "missing_input", missing: [tail.isEmpty ? metric : tail])
  }

  static func roi(_ name: String) -> MatchMissingInfo {
    MatchMissingInfo(reason: "missing_\(name)", missing: [name])
  }

  /// [C] binding aliases (`lHip`) → PoseSpec joint names (`leftHip`); others unchanged.
  static func canonicalJoint(_ name: String) -> String {
    let short = name.hasPrefix("body.") ? String(name.dropFirst(5)) : name
    if short.count > 1, let first = short.first, first == "l" || first == "r" {
      let second = short[short.index(after: short.startIndex)]
      if second.isUppercase { return (first == "l" ? "left" : "right") + short.dropFirst() }
    }
    return short
  }

  /// `leftShoulder` → `shoulders`, `rightHip` → `hips`, `nose` → `nose`.
  static func jointGroup(_ joint: String) -> String {
    var base = Substring(joint)
    if base.hasPrefix("left") { base = base.dropFirst(4) } else if base.hasPrefix("right") { base = base.dropFirst(5) }
    guard base.count < joint.count, let first = base.first else { return joint }
    return first.lowercased() + base.dropFirst() + "s"
  }
}

/// Byte-order comparisons, so that no locale or Unicode normalization reaches a result.
enum MatchOrder {
  static func less(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

  static func sortedUnique(_ names: [String]) -> [String] {
    var out: [String] = []
    for n in names.sorted(by: less) where out.last != n { out.append(n) }
    return out
  }
}
