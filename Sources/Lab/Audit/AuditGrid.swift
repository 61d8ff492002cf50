import Foundation

/// One point of the audit grid: a short, noise-free (unless `noisy`) scenario of the parametric
/// subject (Sources/Scenarios), written as the YAML a user can `jpreplay record`.
public struct AuditPoint: Sendable {
  /// A stable name: `<axis>-<value>-<scene>-fix<on|off>` (also the repro file name).
  public var name: String
  public var axis: String
  public var scene: String
  public var angleFix: Bool
  /// `subject:` members in YAML flow syntax (`x: 0.7`), baseline over the model defaults.
  public var subject: [String]
  /// `references:` subject of a withRef run (nil: noRef).
  public var reference: [String]?
  /// Where the subject is relative to the neutral pose: image x offset, y offset, scale.
  public var dx = 0.0
  public var dy = 0.0
  public var scale = 1.0
  public var noisy: Bool { noiseProfile != nil }
  /// The detector profile of a noisy run (`detector: {profile: …}`, docs/CORPUS.md); nil: noise-free.
  public var noiseProfile: String? = nil
  /// `timeline:` entries in YAML flow syntax (`{at: 1000, subject: {conf: 0.3}}`).
  public var timeline: [String] = []
  public var durationMs: Int64 = 4000

  /// The scenario file text (`record` accepts it as `<name>.scenario.yaml`).
  public var yaml: String {
    var lines = [
      "# jpreplay spec audit grid point \(axis) (\(scene), angleFix \(angleFix ? "on" : "off")).",
      "# Regenerate the recording: jpreplay record <this file>",
      "name: \(name)", "scene: \(scene)", noiseProfile == nil ? "fps: 15" : "detector: {profile: \(noiseProfile!)}",
      "duration_ms: \(durationMs)", "seed: 7",
      "options: {angleFix: \"\(angleFix ? "on" : "off")\"}",
      "initial: {camera_auth: authorized, voiceover: false, thermal: nominal, camera_facing: back}",
      "subject: {\(subject.joined(separator: ", "))}",
      "luma: {every: 5}",
    ]
    if !timeline.isEmpty { lines += ["timeline:"] + timeline.map { "  - \($0)" } }
    if let reference {
      lines += ["references:", "  - {at: 0, ref_id: ref-audit, subject: {\(reference.joined(separator: ", "))}}"]
    }
    return lines.joined(separator: "\n") + "\n"
  }
}

/// The designed grid: one factor at a time away from a neutral pose (so the smallest scenario
/// that shows a hazard is the single-factor point), in both scenes, angleFix off and on;
/// withRef runs with references drawn from the same grid; long noisy runs for flip-flop.
public enum AuditGrid {
  /// The neutral subject: centred, level, upright, whole body in frame, even face light.
  public static let neutral = ["eye_conf: 0.9"]

  /// The neutral members overridden by `subject`'s (one member per key).
  static func merged(_ subject: [String], base: [String] = neutral) -> [String] {
    func key(_ m: String) -> Substring { m.prefix { $0 != ":" } }
    return base.filter { n in !subject.contains { key($0) == key(n) } } + subject
  }

  /// withRef poses: a face large enough for the reference gates (ENGINE §3.14, as S16).
  static let referenceBase = neutral + ["face_w: 0.14", "face_h: 0.18", "chin_gap: 0.08"]

  /// The subject scaled by `s` about the body centre y (0.56), as YAML members.
  static func scaled(_ s: Double, dy: Double = 0) -> [String] {
    let c = 0.56
    func y(_ v: Double) -> String { fmt(c + (v - c) * s + dy) }
    return [
      "top: \(y(0.30))", "hip: \(y(0.66))", "ankle: \(y(0.90))", "nose: \(y(0.22))",
      "half: \(fmt(0.075 * s))", "face_w: \(fmt(0.1 * s))", "face_h: \(fmt(0.13 * s))",
      "chin_gap: \(fmt(0.06 * s))",
    ]
  }

  static func fmt(_ v: Double) -> String {
    let r = (v * 10_000).rounded() / 10_000
    return r == r.rounded() ? String(format: "%.1f", r) : String(r)
  }

  /// (axis, subject members, dx, dy, scale) of the single-factor poses.
  static var poses: [(String, [String], Double, Double, Double)] {
    var p: [(String, [String], Double, Double, Double)] = [("neutral", [], 0, 0, 1)]
    for x in [0.15, 0.3, 0.4, 0.6, 0.7, 0.85] { p.append(("x-\(fmt(x))", ["x: \(fmt(x))"], x - 0.5, 0, 1)) }
    for d in [-0.3, -0.2, -0.1, 0.1, 0.2] { p.append(("dy-\(fmt(d))", scaled(1, dy: d), 0, d, 1)) }
    for s in [0.4, 0.6, 0.8, 1.2, 1.35, 1.5] { p.append(("scale-\(fmt(s))", scaled(s), 0, 0, s)) }
    // Feet cut off: a close subject whose ankles leave the frame (dropped, ENGINE §2.4).
    // The shoulder tilt keeps a shoulders-only box from having zero height (noise-free grid).
    p.append(("feet-cropped", scaled(1.35, dy: 0.1) + ["shoulder_tilt: 0.01"], 0, 0.1, 1.35))
    p.append(("head-cropped", scaled(1.2, dy: -0.3) + ["shoulder_tilt: 0.01"], 0, -0.3, 1.2))
    // Tall in the frame, feet still in: bboxHeight 0.93 and 0.97 (DIST_STEP_BACK).
    p.append(("tall-0.93", scaled(1.55, dy: -0.12), 0, -0.12, 1.55))
    p.append(("tall-0.97", scaled(1.62, dy: -0.125), 0, -0.125, 1.62))
    p.append(("closeup", scaled(2.36, dy: 0.11) + ["shoulder_tilt: 0.01"], 0, 0.11, 2.36))
    for v in [-0.04, -0.02, 0.02, 0.04] { p.append(("shoulder_tilt-\(fmt(v))", ["shoulder_tilt: \(fmt(v))"], 0, 0, 1)) }
    for v in [-0.04, 0.04] { p.append(("hip_tilt-\(fmt(v))", ["hip_tilt: \(fmt(v))"], 0, 0, 1)) }
    for v in [-15.0, -8, 8, 15] { p.append(("eye_tilt-\(fmt(v))", ["eye_tilt: \(fmt(v))"], 0, 0, 1)) }
    for v in [-0.15, -0.08, -0.03, 0.03, 0.08, 0.15] { p.append(("lean-\(fmt(v))", ["lean: \(fmt(v))"], 0, 0, 1)) }
    for v in [0.03, 0.045, 0.075, 0.09] { p.append(("chin_gap-\(fmt(v))", ["chin_gap: \(fmt(v))"], 0, 0, 1)) }
    p.append(("hands-at-face", ["joints: {leftWrist: [0.54, 0.25], rightWrist: [0.46, 0.25]}"], 0, 0, 1))
    p.append(("hand-on-face", ["joints: {leftWrist: [0.51, 0.23], rightWrist: [0.45, 0.4]}"], 0, 0, 1))
    p.append(("feet-centred", ["joints: {leftAnkle: [0.54, 0.9], rightAnkle: [0.46, 0.9]}"], 0, 0, 1))
    p.append(("hands-at-chest", ["joints: {leftWrist: [0.53, 0.36], rightWrist: [0.47, 0.36]}"], 0, 0, 1))
    p.append(("arms-folded", ["joints: {leftWrist: [0.5, 0.46], rightWrist: [0.5, 0.46]}"], 0, 0, 1))
    for n in [0.27, 0.29] { p.append(("shrug-\(fmt(n))", ["nose: \(fmt(n))"], 0, 0, 1)) }
    p.append(("narrow-shoulders", ["half: 0.045", "hip_ratio: 1.2"], 0, 0, 1))
    p.append(("absent", ["absent: true"], 0, 0, 1))
    for n in [2, 3, 4, 5] { p.append(("people-\(n)", ["people: \(n)"], 0, 0, 1)) }
    for c in [0.3, 0.5, 0.58] { p.append(("conf-\(fmt(c))", ["conf: \(fmt(c))"], 0, 0, 1)) }
    for c in [0.3, 0.44, 0.46, 0.5, 0.6] { p.append(("landmark_conf-\(fmt(c))", ["landmark_conf: \(fmt(c))", "eye_conf: \(fmt(c))"], 0, 0, 1)) }
    for c in [0.4, 0.6] { p.append(("face_conf-\(fmt(c))", ["face_conf: \(fmt(c))"], 0, 0, 1)) }
    for e in [0.05, 0.12, 0.2, 0.3] { p.append(("eye_ar-\(fmt(e))", ["eye_ar: \(fmt(e))"], 0, 0, 1)) }
    for l in [0.1, 0.25, 0.8, 0.95] { p.append(("face_luma-\(fmt(l))", ["face_luma: \(fmt(l))"], 0, 0, 1)) }
    for l in [0.1, 0.95] { p.append(("bg_luma-\(fmt(l))", ["bg_luma: \(fmt(l))"], 0, 0, 1)) }
    for d in [0.0, 0.2, 0.4] { p.append(("face_half_diff-\(fmt(d))", ["face_half_diff: \(fmt(d))"], 0, 0, 1)) }
    return p
  }

  /// The references of the withRef part (drawn from the poses above).
  static let referenceAxes = ["neutral", "x-0.3", "lean-0.03", "eye_tilt-8.0", "shoulder_tilt-0.02"]

  /// Every grid point, in a fixed order.
  public static func points() -> [AuditPoint] {
    var out: [AuditPoint] = []
    let all = poses
    for scene in ["cafe", "outdoor"] {
      for fix in [false, true] {
        func point(_ axis: String, _ subject: [String], _ dx: Double, _ dy: Double, _ s: Double) -> AuditPoint {
          var p = AuditPoint(
            name: "audit-\(axis)-\(scene)-fix\(fix ? "on" : "off")", axis: axis, scene: scene, angleFix: fix,
            subject: merged(subject))
          (p.dx, p.dy, p.scale) = (dx, dy, s)
          return p
        }
        for (axis, subject, dx, dy, s) in all { out.append(point(axis, subject, dx, dy, s)) }
        // G-54: an active cue whose input loses confidence requests the fallback cue.
        var drop = point("conf-drop", ["x: 0.7"], 0.2, 0, 1)
        drop.timeline = ["{at: 1000, subject: {conf: 0.3}}"]
        out.append(drop)
        // withRef: each reference against itself (the most favourable live pose) and neutral.
        for ref in referenceAxes {
          guard let r = all.first(where: { $0.0 == ref }) else { continue }
          for live in Set([ref, "neutral"]).sorted() {
            guard let l = all.first(where: { $0.0 == live }) else { continue }
            var p = point("ref-\(ref)-live-\(live)", l.1, l.2, l.3, l.4)
            p.subject = merged(l.1, base: referenceBase)
            p.reference = merged(r.1, base: referenceBase)
            p.durationMs = 4000
            out.append(p)
          }
        }
        // Flip-flop: the detector profiles (docs/CORPUS.md) on poses near thresholds, 30 s each.
        for profile in ["daylight", "poor_light"] {
          for axis in ["neutral", "x-0.6", "shoulder_tilt-0.02"] {
            guard let l = all.first(where: { $0.0 == axis }) else { continue }
            var p = point("noise-\(profile)-\(axis)", l.1, l.2, l.3, l.4)
            p.noiseProfile = profile
            p.durationMs = 30_000
            out.append(p)
          }
        }
      }
    }
    return out
  }
}
