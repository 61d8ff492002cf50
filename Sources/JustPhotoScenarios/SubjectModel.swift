import CanonicalJSON
import EngineIO
import Foundation
import ScenarioYAML

/// The geometry of the parametric subject: a port of body_and_face(), face_rect() and
/// luma_event() of scripts/corpus_jsonl.py, operation for operation, so a noise-free
/// scenario gives the numbers the Python gave.
enum SubjectModel {
  /// Python's `round(v, 6)`: v rounded half-to-even to 6 decimals (on its exact binary
  /// value), then the double nearest that decimal. Exact on every IEEE-754 machine.
  static func r6(_ v: Double) -> Double {
    guard v.isFinite else { return v }
    let p = v * 1e6
    guard abs(p) < 4e15 else { return v }
    let err = (-p).addingProduct(v, 1e6)  // v·10⁶ − p, exactly (fused)
    let f = p.rounded(.down)
    let d = ((p - f) - 0.5) + err  // the sign of (exact fraction − ½)
    let q: Double
    if d > 0 {
      q = f + 1
    } else if d < 0 {
      q = f
    } else {
      q = f.truncatingRemainder(dividingBy: 2) == 0 ? f : f + 1
    }
    return q / 1e6  // IEEE division is correctly rounded: the nearest double to q / 10⁶
  }

  /// Python's `round(x)` for a float: half to even.
  static func roundHalfEven(_ x: Double) -> Double { x.rounded(.toNearestOrEven) }

  static func num(_ v: Double) -> JSONValue { .number(v) }

  static func point(_ x: Double, _ y: Double) -> JSONValue {
    .object(JSONObject([JSONMember("x", num(r6(x))), JSONMember("y", num(r6(y)))]))
  }

  /// How far below `nose` (image y, down) the face's `nose_tip` is drawn, whatever the face's size.
  static let noseTipBelowNose = 0.01

  /// The noise-free face's noseToChinRatio (ENGINE §2.9): the chin's distance from the nose tip,
  /// `chin_gap − 0.01`, over the face box's height `face_h` — 0.05 / 0.13 ≈ 0.385 at the defaults. The tip's
  /// offset does not scale with the face, so a face drawn smaller (a far position) keeps its
  /// ratio only if `chin_gap − 0.01` shrinks with `face_h` (docs/SCENARIOS.md, `chin_gap`).
  static func noseToChinRatio(_ s: SubjectState) -> Double { (s[.chin_gap] - noseTipBelowNose) / s[.face_h] }

  /// face_rect(): [x, y, w, h] of the face box.
  static func faceRect(_ s: SubjectState) -> [Double] {
    [s[.x] - s[.face_w] / 2, s[.nose] - 0.06, s[.face_w], s[.face_h]]
  }

  /// body_and_face(): the body joints (`[x, y, conf]`, noise from `rng`) and the face.
  static func bodyAndFace(
    _ s: SubjectState, rng: inout SplitMix64, landmarkSigma: Double, confSigma: Double
  ) -> (body: JSONObject, face: JSONObject) {
    let px = s[.x], top = s[.top], hip = s[.hip], ankle = s[.ankle], half = s[.half], nose = s[.nose]
    let knee = hip + (ankle - hip) * 0.5
    let elbow = top + (hip - top) * 0.45
    let wrist = top + (hip - top) * 0.85
    // `lean` moves the upper body against the hips; `hip_tilt` lowers the left hip. Both
    // default to 0 and `hip_ratio` to 0.7, which give the Python's numbers exactly.
    let ux = px + s[.lean]
    var pts: [(Double, Double)] = [
      (ux, nose), (ux, top - 0.01),
      (ux + half, top + s[.shoulder_tilt]), (ux - half, top),
      (ux + half + 0.02, elbow), (ux - half - 0.02, elbow),
      (ux + half + 0.01, wrist), (ux - half - 0.01, wrist),
      (px, hip), (px + half * s[.hip_ratio], hip + s[.hip_tilt]), (px - half * s[.hip_ratio], hip),
      (px + half * 0.6, knee), (px - half * 0.6, knee),
      (px + half * 0.55 - 0.03, ankle), (px - half * 0.55 - 0.03, ankle),
      (ux + 0.015, nose - 0.015), (ux - 0.015, nose - 0.015),
      (ux + 0.03, nose - 0.01), (ux - 0.03, nose - 0.01),
    ]
    for (j, x, y) in s.joints { pts[j.rawValue] = (x, y) }
    var body = JSONObject()
    body.members.reserveCapacity(Joint.allCases.count)
    for j in Joint.allCases {
      let (x, y) = pts[j.rawValue]
      let c = min(1.0, max(0.0, s[.conf] + rng.gaussian(sigma: confSigma)))
      let nx = x + rng.gaussian(sigma: landmarkSigma)
      let ny = y + rng.gaussian(sigma: landmarkSigma)
      if s.drop.contains(j) { continue }
      body.members.append(JSONMember(j.name, .array([num(r6(nx)), num(r6(ny)), num(r6(c))])))
    }
    // Eye line tilt (degrees, image y-down): the right eye lower by tan(tilt) · 0.04.
    let rad = s[.eye_tilt] * (Double.pi / 180)
    let tilt = s[.eye_tilt] == 0 ? 0 : (_sin(rad) / _cos(rad)) * 0.04
    var leftEye = JSONObject([JSONMember("x", num(r6(px - 0.02))), JSONMember("y", num(r6(nose - 0.015)))])
    var rightEye = JSONObject([JSONMember("x", num(r6(px + 0.02))), JSONMember("y", num(r6(nose - 0.015 + tilt)))])
    if s[.eye_conf] != 0 {
      leftEye.members.append(JSONMember("conf", num(s[.eye_conf])))
      rightEye.members.append(JSONMember("conf", num(s[.eye_conf])))
      if let p = s.leftPrec { leftEye.members.append(JSONMember("prec_max", num(p))) }
    }
    let face = JSONObject([
      JSONMember("bbox", .array(faceRect(s).map { num(r6($0)) })),
      JSONMember("conf", num(s[.face_conf])),
      JSONMember("left_eye", .object(leftEye)),
      JSONMember("right_eye", .object(rightEye)),
      JSONMember("nose_tip", point(px, nose + noseTipBelowNose)),
      JSONMember("chin", point(px, nose + s[.chin_gap])),
      JSONMember("mouth", point(px, nose + 0.035)),
    ])
    var withExtras = face
    if s[.eye_ar] != 0 { withExtras.members.append(JSONMember("eye_ar", num(r6(s[.eye_ar])))) }
    if s[.landmark_conf] != 0 { withExtras.members.append(JSONMember("landmark_conf_avg", num(r6(s[.landmark_conf])))) }
    return (body, withExtras)
  }

  /// `v` (a whole number of pixels) clamped to 0…n without trapping on any double (NaN: 0):
  /// `max(0, Int(v))` and `min(n, Int(v))` for every `v` those can convert.
  static func index(_ v: Double, _ n: Int) -> Int {
    guard v > 0 else { return 0 }
    return v >= Double(n) ? n : Int(v)
  }

  /// luma_event(): an 8-bit plane, background `bg_luma`, the padded face ROI (bbox ± 15 %)
  /// painted `face_luma` ∓ face_half_diff / 2 (left / right half).
  static func lumaPlane(_ s: SubjectState, w: Int, h: Int) -> [UInt8] {
    func v(_ x: Double) -> UInt8 { UInt8(max(0, min(255, roundHalfEven(x * 255)))) }
    var buf = [UInt8](repeating: v(s[.bg_luma]), count: w * h)
    let r = faceRect(s)
    let (fx, fy, fw, fh) = (r[0], r[1], r[2], r[3])
    let x0 = fx - 0.15 * fw, y0 = fy - 0.15 * fh, x1 = fx + 1.15 * fw, y1 = fy + 1.15 * fh
    let d = s[.face_half_diff] / 2
    let mid = (x0 + x1) / 2
    let left = v(s[.face_luma] + -d), right = v(s[.face_luma] + d)
    let pyLo = index((y0 * Double(h)).rounded(.down), h), pyHi = index((y1 * Double(h)).rounded(.up), h)
    let pxLo = index((x0 * Double(w)).rounded(.down), w), pxHi = index((x1 * Double(w)).rounded(.up), w)
    guard pyLo < pyHi, pxLo < pxHi else { return buf }
    for py in pyLo..<pyHi {
      for px in pxLo..<pxHi {
        buf[py * w + px] = (Double(px) + 0.5) / Double(w) < mid ? left : right
      }
    }
    return buf
  }
}
