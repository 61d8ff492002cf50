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
    var out = JSONBytes()
    append(event, to: &out)
    return out.text
  }

  /// Appends `event`'s line (the bytes of ``line(_:)``) to `out`. A landmarks event, the bulk of
  /// a recording, is written straight as text; the other kinds through their ``object(_:)``.
  public static func append(_ event: InputEvent, to out: inout JSONBytes) {
    guard case .landmarks(let f) = event.payload else {
      out.value(.object(object(event)), sortKeys: false, numbers: .shortest)
      return
    }
    out.raw("{\"t\":")
    out.number(Double(event.t))
    out.raw(",\"kind\":")
    out.string(event.kindName)
    appendLandmarks(f, to: &out)
    out.byte(0x7D)
  }

  /// One event as its JSON object: the key order of docs/FORMAT.md. ``append(_:to:)`` writes the
  /// same text for a landmarks event without this tree (JSONLEventBytesTests compares them on
  /// every event of the corpus).
  static func object(_ event: InputEvent) -> JSONObject {
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
    case .typed(let g):
      var done = Set<String>()
      for spec in g.definitions?.fields(of: g.kind) ?? [] {
        if let v = g.fields[spec.name] {
          o.members.append(JSONMember(spec.name, v))
          done.insert(spec.name)
        }
      }
      for m in g.fields.members where !done.contains(m.key) { o.members.append(m) }
    case .named(let n): o.members.append(contentsOf: n.fields.members)
    }
    return o
  }

  /// A landmarks frame's members after `kind` (`,"frame":…` through `vision_ms`), as text.
  static func appendLandmarks(_ f: LandmarkFrame, to out: inout JSONBytes) {
    out.raw(",\"frame\":")
    out.number(Double(f.frame))
    if let s = f.srcT {
      out.raw(",\"src_t\":")
      out.number(Double(s))
    }
    if f.imageW != nil || f.imageH != nil {
      out.raw(",\"image\":{")
      if let w = f.imageW {
        out.raw("\"w\":")
        out.number(Double(w))
      }
      if let h = f.imageH {
        if f.imageW != nil { out.byte(0x2C) }
        out.raw("\"h\":")
        out.number(Double(h))
      }
      out.byte(0x7D)
    }
    out.raw(",\"coords\":")
    out.string(f.coords.rawValue)
    if let body = f.body {
      out.raw(",\"body\":{")
      var first = true
      for j in Joint.allCases {
        guard let p = body[j] else { continue }
        if !first { out.byte(0x2C) }
        first = false
        out.key(j.name)
        out.byte(0x5B)
        out.number(p.x)
        out.byte(0x2C)
        out.number(p.y)
        out.byte(0x2C)
        out.number(p.conf)
        out.byte(0x5D)
      }
      out.byte(0x7D)
    } else {
      out.raw(",\"body\":null")
    }
    out.raw(",\"faces\":[")
    for (i, face) in f.faces.enumerated() {
      if i > 0 { out.byte(0x2C) }
      appendFace(face, to: &out)
    }
    out.byte(0x5D)
    if let p = f.people {
      out.raw(",\"people\":")
      out.number(Double(p))
    }
    out.optionalNumber(",\"vision_ms\":", f.visionMs)
  }

  static func appendFace(_ f: FaceObservation, to out: inout JSONBytes) {
    out.raw("{\"bbox\":[")
    out.number(f.bbox.x)
    out.byte(0x2C)
    out.number(f.bbox.y)
    out.byte(0x2C)
    out.number(f.bbox.w)
    out.byte(0x2C)
    out.number(f.bbox.h)
    out.byte(0x5D)
    if let c = f.conf {
      out.raw(",\"conf\":")
      out.number(c)
    }
    if let e = f.leftEye {
      out.raw(",\"left_eye\":")
      appendEye(e, to: &out)
    }
    if let e = f.rightEye {
      out.raw(",\"right_eye\":")
      appendEye(e, to: &out)
    }
    func point(_ key: StaticString, _ p: Point2?) {
      guard let p else { return }
      out.raw(key)
      out.raw("{\"x\":")
      out.number(p.x)
      out.raw(",\"y\":")
      out.number(p.y)
      out.byte(0x7D)
    }
    point(",\"nose\":", f.nose)
    point(",\"nose_tip\":", f.noseTip)
    point(",\"chin\":", f.chin)
    point(",\"mouth\":", f.mouth)
    out.optionalNumber(",\"eye_ar\":", f.eyeAR)
    out.optionalNumber(",\"landmark_conf_avg\":", f.landmarkConfAvg)
    out.byte(0x7D)
  }

  static func appendEye(_ e: EyePoint, to out: inout JSONBytes) {
    out.raw("{\"x\":")
    out.number(e.x)
    out.raw(",\"y\":")
    out.number(e.y)
    out.optionalNumber(",\"conf\":", e.conf)
    out.optionalNumber(",\"prec_max\":", e.precMax)
    out.optionalNumber(",\"ear\":", e.ear)
    out.byte(0x7D)
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
