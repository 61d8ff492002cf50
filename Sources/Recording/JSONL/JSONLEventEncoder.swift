import CanonicalJSON
import EngineIO
import Foundation

/// Writes `InputEvent`s and headers as JSONL lines (the `cat` output, DESIGN §3).
///
/// Key order: `t`, `kind`, then the kind's fields in the order of docs/FORMAT.md (schema order,
/// then any extra fields as recorded). Numbers use the shortest text that reads back exactly.
public enum JSONLEventEncoder {
  /// The header as one JSON line (no newline), keys in the given order.
  public static func headerLine(_ header: JSONObject) -> String {
    JSONWriter.write(.object(header), sortKeys: false, numbers: .shortest)
  }

  /// One event as a JSON line without the newline; reading it back with ``JSONLEventDecoder``
  /// gives the same event (landmark numbers are assumed already quantized, as every reader leaves them).
  public static func line(_ event: InputEvent) -> String {
    var o = JSONObject()
    o.members.reserveCapacity(10)
    o.members.append(JSONMember("t", .number(Double(event.t))))
    o.members.append(JSONMember("kind", .string(event.kindName)))
    switch event.payload {
    case .landmarks(let f): appendLandmarks(f, to: &o)
    case .luma(let l):
      o.members.append(JSONMember("frame", .number(Double(l.frame))))
      o.members.append(JSONMember("w", .number(Double(l.w))))
      o.members.append(JSONMember("h", .number(Double(l.h))))
      o.members.append(JSONMember("enc", "u8-b64"))
      o.members.append(JSONMember("data", .string(Data(l.data).base64EncodedString())))
    case .justPhoto(let g):
      var done = Set<String>()
      for spec in g.kind.schema {
        if let v = g.fields[spec.name] {
          o.members.append(JSONMember(spec.name, v))
          done.insert(spec.name)
        }
      }
      for m in g.fields.members where !done.contains(m.key) { o.members.append(m) }
    case .named(let n): o.members.append(contentsOf: n.fields.members)
    }
    return JSONWriter.write(.object(o), sortKeys: false, numbers: .shortest)
  }

  static func num(_ d: Double) -> JSONValue { .number(d) }

  static func appendLandmarks(_ f: LandmarkFrame, to o: inout JSONObject) {
    o.members.append(JSONMember("frame", num(Double(f.frame))))
    if let s = f.srcT { o.members.append(JSONMember("src_t", num(Double(s)))) }
    if f.imageW != nil || f.imageH != nil {
      var img = JSONObject()
      if let w = f.imageW { img.members.append(JSONMember("w", num(Double(w)))) }
      if let h = f.imageH { img.members.append(JSONMember("h", num(Double(h)))) }
      o.members.append(JSONMember("image", .object(img)))
    }
    o.members.append(JSONMember("coords", .string(f.coords.rawValue)))
    if let body = f.body {
      var b = JSONObject()
      for j in Joint.allCases {
        if let p = body[j] { b.members.append(JSONMember(j.name, .array([num(p.x), num(p.y), num(p.conf)]))) }
      }
      o.members.append(JSONMember("body", .object(b)))
    } else {
      o.members.append(JSONMember("body", .null))
    }
    o.members.append(JSONMember("faces", .array(f.faces.map(face))))
    if let p = f.people { o.members.append(JSONMember("people", num(Double(p)))) }
    if let v = f.visionMs { o.members.append(JSONMember("vision_ms", num(v))) }
  }

  static func face(_ f: FaceObservation) -> JSONValue {
    var o = JSONObject()
    o.members.append(JSONMember("bbox", .array([num(f.bbox.x), num(f.bbox.y), num(f.bbox.w), num(f.bbox.h)])))
    if let c = f.conf { o.members.append(JSONMember("conf", num(c))) }
    if let e = f.leftEye { o.members.append(JSONMember("left_eye", eye(e))) }
    if let e = f.rightEye { o.members.append(JSONMember("right_eye", eye(e))) }
    for (k, p) in [("nose", f.nose), ("nose_tip", f.noseTip), ("chin", f.chin), ("mouth", f.mouth)] {
      if let p { o.members.append(JSONMember(k, .object(["x": num(p.x), "y": num(p.y)]))) }
    }
    if let v = f.eyeAR { o.members.append(JSONMember("eye_ar", num(v))) }
    if let v = f.landmarkConfAvg { o.members.append(JSONMember("landmark_conf_avg", num(v))) }
    return .object(o)
  }

  static func eye(_ e: EyePoint) -> JSONValue {
    var o: JSONObject = ["x": num(e.x), "y": num(e.y)]
    if let v = e.conf { o.members.append(JSONMember("conf", num(v))) }
    if let v = e.precMax { o.members.append(JSONMember("prec_max", num(v))) }
    if let v = e.ear { o.members.append(JSONMember("ear", num(v))) }
    return .object(o)
  }
}
