import Foundation
import PoseSpec

/// One point of the audit grid: a short, noise-free (unless `noisy`) scenario of the parametric
/// subject (Sources/JustPhotoScenarios), written as the YAML a user can `jpreplay record`.
package struct AuditPoint: Sendable {
  /// A stable name: `<axis>-<value>-<scene>-fix<on|off>` (also the repro file name).
  package var name: String
  package var axis: String
  package var scene: String
  package var angleFix: Bool
  /// `subject:` members in YAML flow syntax (`x: 0.7`), baseline over the model defaults.
  package var subject: [String]
  /// `references:` subject of a withRef run (nil: noRef).
  package var reference: [String]?
  /// Where the subject is relative to the neutral pose: image x offset, y offset, scale.
  package var dx = 0.0
  package var dy = 0.0
  package var scale = 1.0
  package var noisy: Bool { noiseProfile != nil }
  /// The detector profile of a noisy run (`detector: {profile: …}`, docs/CORPUS.md); nil: noise-free.
  package var noiseProfile: String? = nil
  /// `timeline:` entries in YAML flow syntax (`{at: 1000, subject: {conf: 0.3}}`).
  package var timeline: [String] = []
  package var durationMs: Int64 = 4000
  /// The numeric axis this point sits on and its value there (`x`, 0.7), when it is one of
  /// ``AuditGrid/numericAxes``: the threshold probes interpolate along it.
  package var family: String? = nil
  package var value: Double? = nil

  /// The scenario file text (`record` accepts it as `<name>.scenario.yaml`).
  package var yaml: String {
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
package enum AuditGrid {
  /// The neutral subject: centred, level, upright, whole body in frame, even face light.
  package static let neutral = ["eye_conf: 0.9"]

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

  /// The axes whose points differ in one number: the subject members at a value, and where
  /// the point sits relative to the neutral pose. The threshold probes place a noisy subject
  /// between two of their points (``probes(spec:results:)``).
  static func members(_ family: String, _ v: Double) -> (subject: [String], dx: Double, dy: Double, scale: Double)? {
    switch family {
    case "x": (["x: \(fmt(v))"], v - 0.5, 0, 1)
    case "dy": (scaled(1, dy: v), 0, v, 1)
    case "scale": (scaled(v), 0, 0, v)
    case "landmark_conf": (["landmark_conf: \(fmt(v))", "eye_conf: \(fmt(v))"], 0, 0, 1)
    case "shrug": (["nose: \(fmt(v))"], 0, 0, 1)
    case "shoulder_tilt", "hip_tilt", "eye_tilt", "lean", "chin_gap", "conf", "face_conf", "eye_ar", "face_luma", "bg_luma",
      "face_half_diff":
      (["\(family): \(fmt(v))"], 0, 0, 1)
    default: nil
    }
  }

  /// (axis, subject members, dx, dy, scale) of the single-factor poses.
  static var poses: [(String, [String], Double, Double, Double)] {
    var p: [(String, [String], Double, Double, Double)] = [("neutral", [], 0, 0, 1)]
    func add(_ family: String, _ values: [Double]) {
      for v in values {
        guard let m = members(family, v) else { continue }
        p.append(("\(family)-\(fmt(v))", m.subject, m.dx, m.dy, m.scale))
      }
    }
    add("x", [0.15, 0.3, 0.4, 0.6, 0.7, 0.85])
    add("dy", [-0.3, -0.2, -0.1, 0.1, 0.2])
    add("scale", [0.4, 0.6, 0.8, 1.2, 1.35, 1.5])
    // Feet cut off: a close subject whose ankles leave the frame (dropped, ENGINE §2.4).
    // The shoulder tilt keeps a shoulders-only box from having zero height (noise-free grid).
    p.append(("feet-cropped", scaled(1.35, dy: 0.1) + ["shoulder_tilt: 0.01"], 0, 0.1, 1.35))
    p.append(("head-cropped", scaled(1.2, dy: -0.3) + ["shoulder_tilt: 0.01"], 0, -0.3, 1.2))
    // Tall in the frame, feet still in: bboxHeight 0.93 and 0.97 (DIST_STEP_BACK).
    p.append(("tall-0.93", scaled(1.55, dy: -0.12), 0, -0.12, 1.55))
    p.append(("tall-0.97", scaled(1.62, dy: -0.125), 0, -0.125, 1.62))
    p.append(("closeup", scaled(2.36, dy: 0.11) + ["shoulder_tilt: 0.01"], 0, 0.11, 2.36))
    add("shoulder_tilt", [-0.04, -0.02, 0.02, 0.04])
    add("hip_tilt", [-0.04, 0.04])
    add("eye_tilt", [-15.0, -8, 8, 15])
    add("lean", [-0.15, -0.08, -0.03, 0.03, 0.08, 0.15])
    add("chin_gap", [0.03, 0.045, 0.075, 0.09])
    p.append(("hands-at-face", ["joints: {leftWrist: [0.54, 0.25], rightWrist: [0.46, 0.25]}"], 0, 0, 1))
    p.append(("hand-on-face", ["joints: {leftWrist: [0.51, 0.23], rightWrist: [0.45, 0.4]}"], 0, 0, 1))
    p.append(("feet-centred", ["joints: {leftAnkle: [0.54, 0.9], rightAnkle: [0.46, 0.9]}"], 0, 0, 1))
    p.append(("hands-at-chest", ["joints: {leftWrist: [0.53, 0.36], rightWrist: [0.47, 0.36]}"], 0, 0, 1))
    p.append(("arms-folded", ["joints: {leftWrist: [0.5, 0.46], rightWrist: [0.5, 0.46]}"], 0, 0, 1))
    add("shrug", [0.27, 0.29])
    p.append(("narrow-shoulders", ["half: 0.045", "hip_ratio: 1.2"], 0, 0, 1))
    p.append(("absent", ["absent: true"], 0, 0, 1))
    for n in [2, 3, 4, 5] { p.append(("people-\(n)", ["people: \(n)"], 0, 0, 1)) }
    add("conf", [0.3, 0.5, 0.58])
    add("landmark_conf", [0.3, 0.44, 0.46, 0.5, 0.6])
    add("face_conf", [0.4, 0.6])
    add("eye_ar", [0.05, 0.12, 0.2, 0.3])
    // Face luma finer where OUT_01's band (0.27…0.35 against 0.45) and the backlight cues'
    // meet: 0.25 and 0.8 alone jumped over the face-in-shadow display (issue 24).
    add("face_luma", [0.1, 0.25, 0.3, 0.35, 0.8, 0.95])
    add("bg_luma", [0.1, 0.95])
    add("face_half_diff", [0.0, 0.2, 0.4])
    return p
  }

  /// Inputs that are not the subject's pose: sensor readings and the `frame_scalars` that
  /// stand for pixel measurements the flat painted planes cannot show (edges, clipping, a
  /// bright eye region). One event at t = 0 on the neutral pose; (axis, timeline entry). Inputs
  /// no other point sets come in pairs, so the grid moves the error (a single value is "not
  /// moved").
  static let sensorPoses: [(String, String)] = [
    ("wb-2600", "{at: 0, event: {kind: white_balance, temp_k: 2600, left_k: 2600, right_k: 2600}}"),
    ("wb-mixed", "{at: 0, event: {kind: white_balance, temp_k: 4200, left_k: 3400, right_k: 4800}}"),
    ("motion-0.3", "{at: 0, event: {kind: device_motion, rms: 0.3}}"),
    ("motion-2.0", "{at: 0, event: {kind: device_motion, rms: 2.0}}"),
    ("edges-0.7", "{at: 0, event: {kind: frame_scalars, values: {edgeDensityBG: 0.7}}}"),
    ("clip-upper-bg-0.12", "{at: 0, event: {kind: frame_scalars, values: {clip_upperBGROI: 0.12}}}"),
    ("clip-eye-0.2", "{at: 0, event: {kind: frame_scalars, values: {clip_eyeROI: 0.2}}}"),
    ("bright-eyes-0.62", "{at: 0, event: {kind: frame_scalars, values: {meanLuma_eyeROI: 0.62}}}"),
    ("dark-eyes-0.35", "{at: 0, event: {kind: frame_scalars, values: {meanLuma_eyeROI: 0.35}}}"),
    ("clip-sky-0.3", "{at: 0, event: {kind: frame_scalars, values: {clip_skyROI: 0.3}}}"),
    ("horizon-1", "{at: 0, event: {kind: frame_scalars, values: {horizonAngleDeg: 1}}}"),
    ("horizon-6", "{at: 0, event: {kind: frame_scalars, values: {horizonAngleDeg: 6}}}"),
    ("verticals-1", "{at: 0, event: {kind: frame_scalars, values: {verticalConvergeDeg: -1}}}"),
    ("verticals-7", "{at: 0, event: {kind: frame_scalars, values: {verticalConvergeDeg: -7}}}"),
    ("flare-0.3", "{at: 0, event: {kind: frame_scalars, values: {highlightClipPct_top10pctFrame: 0.3}}}"),
  ]

  /// The references of the withRef part (drawn from the poses above).
  static let referenceAxes = ["neutral", "x-0.3", "lean-0.03", "eye_tilt-8.0", "shoulder_tilt-0.02"]

  /// Every grid point, in a fixed order.
  package static func points() -> [AuditPoint] {
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
        for (axis, subject, dx, dy, s) in all {
          var p = point(axis, subject, dx, dy, s)
          let fam = String(axis.prefix { $0 != "-" })
          if members(fam, 0) != nil, let v = Double(axis.dropFirst(fam.count + 1)) { (p.family, p.value) = (fam, v) }
          out.append(p)
        }
        for (axis, entry) in sensorPoses {
          var p = point(axis, [], 0, 0, 1)
          p.timeline = [entry]
          out.append(p)
        }
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

extension AuditGrid {
  /// Threshold probes per scene and audit pass, at most (each is a 30 s noisy replay).
  package static let probesMax = 160

  /// Noisy probes at the cues' warn thresholds (issue 24): for each cue and numeric axis of
  /// the angleFix-on grid, where the cue's error crosses its first warn threshold between two
  /// neighbouring points, a subject placed at the interpolated value and held still for 30 s
  /// under the daylight detector profile. A dead band (warn to exit) narrower than the
  /// detector's noise, with a gate too quick to absorb it, shows there as display changes over
  /// the prompt budgets or praise from noise: a flip-flop finding with this point as repro.
  /// Points that land on one value (several cues crossing together) are kept once.
  package static func probes(spec: PoseSpecDocument, results: [AuditPointResult]) -> [AuditPoint] {
    var out: [AuditPoint] = []
    var seen = Set<String>()
    let grid = results.filter { $0.failure == nil && $0.point.angleFix && !$0.point.noisy && $0.point.reference == nil && $0.point.family != nil }
    for cue in spec.cues {
      guard let warn = cue.trigger.noRef?.warn.first else { continue }
      let absolute = warn.op.rawValue.hasPrefix("abs")
      for scene in ["cafe", "outdoor"] {
        let mine = grid.filter { $0.point.scene == scene }
        for family in Set(mine.compactMap(\.point.family)).sorted() {
          // The cue's error at each point of the axis (noise-free: one value, or its middle).
          let line = mine.filter { $0.point.family == family }.compactMap { r -> (v: Double, e: Double)? in
            guard let v = r.point.value, let e = r.errorRange[cue.id] else { return nil }
            let mid = (e.lo + e.hi) / 2
            return (v, absolute ? abs(mid) : mid)
          }.sorted { $0.v < $1.v }
          guard line.count >= 2 else { continue }
          for (a, b) in zip(line, line.dropFirst()) where (a.e - warn.a) * (b.e - warn.a) < 0 {
            let v = a.v + (warn.a - a.e) * (b.v - a.v) / (b.e - a.e)
            guard v.isFinite, let m = members(family, v) else { continue }
            let name = "audit-probe-\(family)-\(fmt(v))-\(scene)-fixon"
            guard !seen.contains(name), out.count < probesMax else { continue }
            seen.insert(name)
            var p = AuditPoint(
              name: name, axis: "probe-\(family)-\(fmt(v))", scene: scene, angleFix: true, subject: merged(m.subject))
            (p.dx, p.dy, p.scale) = (m.dx, m.dy, m.scale)
            p.noiseProfile = "daylight"
            p.durationMs = 30_000
            out.append(p)
          }
        }
      }
    }
    return out
  }
}
