import CanonicalJSON
import EngineIO

extension CoachEvent {
  /// `ref_analysis`: the analysis of a picked reference photo — a landmarks-like payload
  /// (`body`, `faces`, `people`, `coords`, checked like a `landmarks` event's on import), the
  /// device's metric values for it (`frame_scalars`, `{metric: number}` or `{"values": {…}}`)
  /// and its luma plane (`luma`, `{w, h, enc: "u8-b64", data}`).
  package struct RefAnalysis: Sendable, Equatable {
    package enum Coords: String, EventEnum { case canonical, vision }
    static let definition = EventDefinition(
      .ref_analysis, .ui,
      [
        .required(.ref_id, String.self), .optional(.body, JSONObject.self), .optional(.faces, [JSONValue].self),
        .optional(.people, Int64.self), .optional(.coords, Coords.self, default: .canonical),
        .optional(.frame_scalars, JSONObject.self), .optional(.luma, JSONObject.self),
      ])
    package var refId: String
    /// The reference as a Vision result (`frame` −1); malformed joints and faces are left out
    /// (the recording decoders refuse them on import).
    package var reference: LandmarkFrame
    /// `frame_scalars`: metric name → value.
    package var scalars: [String: Double]
    /// The reference's luma plane (`frame` −1), when recorded.
    package var luma: LumaFrame?

    init(_ r: EventReader) throws(EventDecodingError) {
      refId = try r(.ref_id)
      var frame = LandmarkFrame(frame: -1)
      let coords: Coords = try r(.coords)
      if coords == .vision { frame.coords = .vision }
      frame.people = (try r.optional(.people) as Int64?).map { Int($0) }
      if let o: JSONObject = try r.optional(.body) { frame.body = Self.pose(o) }
      if let faces: [JSONValue] = try r.optional(.faces) { frame.faces = faces.compactMap(Self.face) }
      reference = frame
      scalars = [:]
      if let o: JSONObject = try r.optional(.frame_scalars) {
        let source = o["values"]?.objectValue ?? o
        for (name, value) in try FrameScalars.numbers(source, kind: .ref_analysis, field: .frame_scalars) {
          scalars[name] = value
        }
      }
      if let o: JSONObject = try r.optional(.luma) {
        guard let plane = LumaFrame(referenceJSON: .object(o)) else {
          throw EventDecodingError(
            kind: .ref_analysis, field: "luma",
            "field \"luma\": expected {w, h, enc: \"u8-b64\", data} with 1 ≤ w, h, w·h ≤ \(LumaFrame.pixelsMax) and w·h bytes of base64 data")
        }
        luma = plane
      }
    }

    static func pose(_ o: JSONObject) -> BodyPose {
      var pose = BodyPose()
      for m in o.members {
        guard let j = Joint(name: m.key), let a = m.value.arrayValue, a.count == 3, let x = a[0].doubleValue,
          let y = a[1].doubleValue, let c = a[2].doubleValue
        else { continue }
        pose[j] = JointPoint(x: x, y: y, conf: c)
      }
      return pose
    }

    static func face(_ fv: JSONValue) -> FaceObservation? {
      guard let o = fv.objectValue, let b = o["bbox"]?.arrayValue, b.count == 4, let bx = b[0].doubleValue,
        let by = b[1].doubleValue, let bw = b[2].doubleValue, let bh = b[3].doubleValue
      else { return nil }
      func point(_ v: JSONValue?) -> Point2? {
        guard let x = v?["x"]?.doubleValue, let y = v?["y"]?.doubleValue else { return nil }
        return Point2(x: x, y: y)
      }
      func eye(_ v: JSONValue?) -> EyePoint? {
        guard let x = v?["x"]?.doubleValue, let y = v?["y"]?.doubleValue else { return nil }
        return EyePoint(
          x: x, y: y, conf: v?["conf"]?.doubleValue, precMax: v?["prec_max"]?.doubleValue, ear: v?["ear"]?.doubleValue)
      }
      return FaceObservation(
        bbox: Rect(x: bx, y: by, w: bw, h: bh), conf: o["conf"]?.doubleValue, leftEye: eye(o["left_eye"]),
        rightEye: eye(o["right_eye"]), nose: point(o["nose"]), noseTip: point(o["nose_tip"]), chin: point(o["chin"]),
        mouth: point(o["mouth"]), eyeAR: o["eye_ar"]?.doubleValue, landmarkConfAvg: o["landmark_conf_avg"]?.doubleValue)
    }
  }
}

extension Array: EventValue where Element == JSONValue {
  package static var eventType: EventValueType { .array }
  package init?(eventJSON v: JSONValue) {
    guard let a = v.arrayValue else { return nil }
    self = a
  }
  package var eventJSON: JSONValue { .array(self) }
}

extension LumaFrame {
  /// The `luma` object of a `ref_analysis` payload: `{w, h, enc: "u8-b64", data}`; nil when
  /// malformed — sides not integers ≥ 1, `w·h` over ``pixelsMax`` (checked overflow-safe
  /// before decoding) or data not exactly `w·h` bytes.
  package init?(referenceJSON v: JSONValue) {
    guard let w = v["w"]?.int64Value, let h = v["h"]?.int64Value, let pixels = Self.pixelCount(w: w, h: h),
      let text = v["data"]?.stringValue, text.utf8.count == (pixels + 2) / 3 * 4,
      let bytes = Base64.decode(text), bytes.count == pixels
    else { return nil }
    self.init(frame: -1, w: Int(w), h: Int(h), data: bytes)
  }
}

/// Standard base64 (RFC 4648, `=` padding, no line breaks) without Foundation.
package enum Base64 {
  package static func decode(_ text: String) -> [UInt8]? {
    var out: [UInt8] = []
    out.reserveCapacity(text.utf8.count * 3 / 4)
    var buffer: UInt32 = 0
    var bits = 0
    var padding = 0
    for c in text.utf8 {
      let v: UInt8
      switch c {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = c - UInt8(ascii: "A")
      case UInt8(ascii: "a")...UInt8(ascii: "z"): v = c - UInt8(ascii: "a") + 26
      case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0") + 52
      case UInt8(ascii: "+"): v = 62
      case UInt8(ascii: "/"): v = 63
      case UInt8(ascii: "="):
        padding += 1
        continue
      default: return nil
      }
      guard padding == 0 else { return nil }
      buffer = buffer << 6 | UInt32(v)
      bits += 6
      if bits >= 8 {
        bits -= 8
        out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
      }
    }
    return padding <= 2 ? out : nil
  }
}
