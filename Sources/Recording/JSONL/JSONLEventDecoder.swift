import CanonicalJSON
import EngineIO
import Foundation

/// Turns one parsed JSONL line into an `InputEvent`, checking it against ENGINE §1.5–1.6.
///
/// Every problem is reported as `file:line: field "…": expected …, found …`.
/// Landmark numbers are rounded to the `.jprec` fixed point (`Quantization`), so a JSONL file
/// replays exactly like the `.jprec` imported from it.
public struct JSONLEventDecoder {
  /// The file being decoded, as messages name it.
  public var file: String
  /// The 1-based line number of the event, for messages (`file:line: …`).
  public var line: Int

  /// Decode every kind as a named event (the recording's engine's events are named with these
  /// definitions, ``EventDefinitions/namedEvents(in:)``: the readers set it from the header):
  /// the kind must be a name, the fields stay JSON; the engine's vocabulary checks them.
  public var namedKinds = false
  /// The recording's engine's vocabulary: the fields each typed kind must have and its typed
  /// value (handed by the caller: the engine's plug-in or vocabulary).
  public var definitions: any EventDefinitions.Type

  /// A decoder for the event on line `line` of `file`, its typed kinds checked and decoded by
  /// `definitions`.
  ///
  /// - Parameters:
  ///   - file: the file, as messages name it.
  ///   - line: the event's 1-based line number.
  ///   - definitions: the recording's engine's event definitions.
  public init(file: String, line: Int, definitions: any EventDefinitions.Type) {
    self.file = file
    self.line = line
    self.definitions = definitions
  }

  /// The error for this line; `field` is the event field at fault (top level), if one is.
  func fail(_ message: String, field: String? = nil) -> RecordingError {
    var e = RecordingError(file: "\(file):\(line)", message)
    e.field = field
    return e
  }

  /// Decodes an event line: `{"t": <ms>, "kind": "<kind>", …fields}`.
  public func decode(_ value: JSONValue) throws(RecordingError) -> InputEvent {
    guard let obj = value.objectValue else {
      throw fail("expected an event object {\"t\": …, \"kind\": …}, found \(value.typeName)")
    }
    guard let tv = obj["t"] else { throw fail("missing field \"t\" (integer milliseconds since the recording start)", field: "t") }
    guard let t = tv.int64Value, t >= 0 else {
      throw fail("field \"t\": expected a non-negative integer (milliseconds), found \(describe(tv))", field: "t")
    }
    guard let kv = obj["kind"] else { throw fail("missing field \"kind\" (the event kind, e.g. \"landmarks\")", field: "kind") }
    guard let kindName = kv.stringValue else {
      throw fail("field \"kind\": expected a string, found \(describe(kv))", field: "kind")
    }
    if namedKinds {
      guard !kindName.isEmpty, kindName.utf8.count <= 64 else {
        throw fail("field \"kind\": expected a kind name of 1 to 64 bytes, found \"\(kindName)\"", field: "kind")
      }
      var fields = JSONObject()
      for m in obj.members where m.key != "t" && m.key != "kind" { fields.members.append(m) }
      return InputEvent(t: t, payload: .named(NamedEvent(kind: kindName, fields: fields)))
    }
    // The hot payloads by their EngineIO names; every other kind as the definitions declare it.
    let hotLandmarks = kindName == InputPayload.landmarksKind
    let hotLuma = !hotLandmarks && kindName == InputPayload.lumaKind
    let schema = hotLandmarks || hotLuma ? [] : definitions.fields(of: kindName)
    guard let schema else {
      throw fail("field \"kind\": unknown event kind \"\(kindName)\" (expected one of ENGINE §1.5, e.g. landmarks, luma, ui_scene, shutter_tap; see docs/FORMAT.md)", field: "kind")
    }
    var fields = JSONObject()
    fields.members.reserveCapacity(obj.count)
    for m in obj.members where m.key != "t" && m.key != "kind" { fields.members.append(m) }
    if hotLandmarks { return InputEvent(t: t, payload: .landmarks(try landmarks(fields))) }
    if hotLuma { return InputEvent(t: t, payload: .luma(try luma(fields))) }
    if definitions.carriesFrame(kindName) { try checkReference(fields, kind: kindName) }
    try checkSchema(kindName, schema, fields)
    // Decoded once, here: the engine handles this typed form at replay (what imports, replays).
    let g = TypedEvent(definitions, kind: kindName, fields: fields)
    if let error = g.decodingError { throw fail(error.description, field: error.field) }
    return InputEvent(t: t, payload: .typed(g))
  }

  // MARK: Generic kinds

  /// A kind that carries a frame (``EventDefinitions/carriesFrame(_:)``, Just Photo's
  /// `ref_analysis`) has a landmarks-like payload (ENGINE §1.5): its `body`, `faces`,
  /// `people` and `coords` are checked like a `landmarks` event's, `frame_scalars` must be an
  /// object of numbers (or `{"values": {…}}`).
  func checkReference(_ f: JSONObject, kind: String) throws(RecordingError) {
    var landmarkPart = JSONObject()
    landmarkPart["frame"] = .number(0)
    for m in f.members where ["body", "faces", "people", "coords"].contains(m.key) { landmarkPart[m.key] = m.value }
    _ = try landmarks(landmarkPart, label: kind)
    if let v = f["luma"], !v.isNull {
      guard var plane = v.objectValue else {
        throw fail("\(kind): field \"luma\": expected an object {w, h, enc, data}, found \(describe(v))", field: "luma")
      }
      if plane["frame"] == nil { plane["frame"] = .number(0) }
      // The plane's problems name no top-level field (as before: the event's `luma` holds them).
      do { _ = try luma(plane, label: "\(kind): luma") } catch {
        var e = error
        e.field = nil
        throw e
      }
    }
    if let v = f["frame_scalars"], !v.isNull {
      let values = v["values"]?.objectValue ?? v.objectValue
      guard let values, values.members.allSatisfy({ $0.value.doubleValue != nil }) else {
        throw fail("\(kind): field \"frame_scalars\": expected an object {metric: number}, found \(describe(v))", field: "frame_scalars")
      }
    }
    for m in f.members where !["ref_id", "body", "faces", "people", "coords", "frame_scalars", "luma"].contains(m.key) {
      throw fail("\(kind): unknown field \"\(m.key)\" (expected ref_id, body, faces, people, coords, frame_scalars, luma)", field: m.key)
    }
  }

  func checkSchema(_ kind: String, _ schema: [EventFieldInfo], _ fields: JSONObject) throws(RecordingError) {
    for spec in schema {
      guard let v = fields[spec.name], !v.isNull || !spec.required else {
        if spec.required {
          throw fail("\(kind): missing field \"\(spec.name)\" (\(expected(spec)))", field: spec.name)
        }
        continue
      }
      if v.isNull { continue }
      let ok: Bool
      switch spec.type {
      case .integer: ok = v.int64Value != nil
      case .number: ok = v.doubleValue != nil
      case .string: ok = v.stringValue != nil
      case .bool: ok = v.boolValue != nil
      case .object: ok = v.objectValue != nil
      case .array: ok = v.arrayValue != nil
      case .any: ok = true
      }
      guard ok else {
        throw fail("\(kind): field \"\(spec.name)\": expected \(expected(spec)), found \(describe(v))", field: spec.name)
      }
      if let allowed = spec.oneOf, let s = v.stringValue, !allowed.contains(s) {
        throw fail("\(kind): field \"\(spec.name)\": expected \(expected(spec)), found \"\(s)\"", field: spec.name)
      }
    }
    for m in fields.members where !schema.contains(where: { $0.name == m.key }) {
      let expected = schema.isEmpty ? "no fields besides t and kind" : schema.map(\.name).joined(separator: ", ")
      throw fail("\(kind): unknown field \"\(m.key)\" (expected \(expected))", field: m.key)
    }
  }

  func expected(_ spec: FieldSpec) -> String { spec.expectation }

  // MARK: landmarks

  func landmarks(_ f: JSONObject, label: String = "landmarks") throws(RecordingError) -> LandmarkFrame {
    var frame = LandmarkFrame(frame: try int(f, "frame", in: "landmarks", label: label))
    if let v = f["src_t"], !v.isNull { frame.srcT = try int(v, "src_t", field: "src_t") }
    if let v = f["image"], !v.isNull {
      guard let o = v.objectValue else { throw fail("\(label): field \"image\": expected an object {\"w\": int, \"h\": int}, found \(describe(v))", field: "image") }
      frame.imageW = Int(try int(o, "w", in: "landmarks.image"))
      frame.imageH = Int(try int(o, "h", in: "landmarks.image"))
    }
    if let v = f["coords"], !v.isNull {
      guard let s = v.stringValue, let c = CoordinateConvention(rawValue: s) else {
        throw fail("\(label): field \"coords\": expected \"canonical\" (y-down) or \"vision\" (y-up), found \(describe(v))", field: "coords")
      }
      frame.coords = c
    }
    if let v = f["body"], !v.isNull {
      guard let o = v.objectValue else {
        throw fail("\(label): field \"body\": expected an object {joint: [x, y, conf]} or null, found \(describe(v))", field: "body")
      }
      var pose = BodyPose()
      for m in o.members {
        guard let joint = Joint(name: m.key) else {
          throw fail("\(label): body: unknown joint \"\(m.key)\" (expected one of the 19 Vision joints by PoseSpec name: \(Joint.allCases.map(\.name).joined(separator: ", ")))")
        }
        guard let a = m.value.arrayValue, a.count == 3, let x = a[0].doubleValue, let y = a[1].doubleValue,
          let c = a[2].doubleValue
        else {
          throw fail("\(label): body.\(m.key): expected [x, y, conf] (three numbers), found \(describe(m.value))")
        }
        pose[joint] = JointPoint(x: x, y: y, conf: c)
      }
      frame.body = pose
    }
    if let v = f["faces"], !v.isNull {
      guard let a = v.arrayValue else { throw fail("\(label): field \"faces\": expected an array, found \(describe(v))", field: "faces") }
      frame.faces.reserveCapacity(a.count)
      for (i, fv) in a.enumerated() { frame.faces.append(try face(fv, "\(label): faces[\(i)]")) }
    }
    if let v = f["people"], !v.isNull { frame.people = Int(try int(v, "people", field: "people")) }
    if let v = f["vision_ms"], !v.isNull {
      guard let d = v.doubleValue else { throw fail("\(label): field \"vision_ms\": expected a number, found \(describe(v))", field: "vision_ms") }
      frame.visionMs = d
    }
    for m in f.members where !Self.landmarkFields.contains(m.key) {
      throw fail("\(label): unknown field \"\(m.key)\" (expected \(Self.landmarkFields.joined(separator: ", ")))", field: m.key)
    }
    return Quantization.rounded(frame)
  }

  static let landmarkFields = ["frame", "src_t", "image", "coords", "body", "faces", "people", "vision_ms"]
  static let faceFields = ["bbox", "conf", "left_eye", "right_eye", "nose", "nose_tip", "chin", "mouth", "eye_ar", "landmark_conf_avg"]

  func face(_ v: JSONValue, _ place: String) throws(RecordingError) -> FaceObservation {
    guard let o = v.objectValue else { throw fail("\(place): expected a face object, found \(describe(v))") }
    guard let bv = o["bbox"], let b = bv.arrayValue, b.count == 4, let bx = b[0].doubleValue, let by = b[1].doubleValue,
      let bw = b[2].doubleValue, let bh = b[3].doubleValue
    else { throw fail("\(place).bbox: expected [x, y, w, h] (four numbers), found \(o["bbox"].map(describe) ?? "nothing")") }
    var face = FaceObservation(bbox: Rect(x: bx, y: by, w: bw, h: bh))
    face.conf = try optNumber(o, "conf", place)
    face.leftEye = try eye(o["left_eye"], "\(place).left_eye")
    face.rightEye = try eye(o["right_eye"], "\(place).right_eye")
    face.nose = try point(o["nose"], "\(place).nose")
    face.noseTip = try point(o["nose_tip"], "\(place).nose_tip")
    face.chin = try point(o["chin"], "\(place).chin")
    face.mouth = try point(o["mouth"], "\(place).mouth")
    face.eyeAR = try optNumber(o, "eye_ar", place)
    face.landmarkConfAvg = try optNumber(o, "landmark_conf_avg", place)
    for m in o.members where !Self.faceFields.contains(m.key) {
      throw fail("\(place): unknown field \"\(m.key)\" (expected \(Self.faceFields.joined(separator: ", ")))")
    }
    return face
  }

  func eye(_ v: JSONValue?, _ place: String) throws(RecordingError) -> EyePoint? {
    guard let v, !v.isNull else { return nil }
    guard let o = v.objectValue, let x = o["x"]?.doubleValue, let y = o["y"]?.doubleValue else {
      throw fail("\(place): expected {\"x\", \"y\", \"conf\"?, \"prec_max\"?, \"ear\"?}, found \(describe(v))")
    }
    for m in o.members where !["x", "y", "conf", "prec_max", "ear"].contains(m.key) {
      throw fail("\(place): unknown field \"\(m.key)\" (expected x, y, conf, prec_max, ear)")
    }
    return EyePoint(
      x: x, y: y, conf: try optNumber(o, "conf", place), precMax: try optNumber(o, "prec_max", place),
      ear: try optNumber(o, "ear", place))
  }

  func point(_ v: JSONValue?, _ place: String) throws(RecordingError) -> Point2? {
    guard let v, !v.isNull else { return nil }
    guard let o = v.objectValue, let x = o["x"]?.doubleValue, let y = o["y"]?.doubleValue, o.count == 2 else {
      throw fail("\(place): expected {\"x\": number, \"y\": number}, found \(describe(v))")
    }
    return Point2(x: x, y: y)
  }

  func optNumber(_ o: JSONObject, _ key: String, _ place: String) throws(RecordingError) -> Double? {
    guard let v = o[key], !v.isNull else { return nil }
    guard let d = v.doubleValue else { throw fail("\(place).\(key): expected a number, found \(describe(v))") }
    return d
  }

  // MARK: luma

  /// A `luma` plane: `w · h` within `RecordingLimits.lumaPixelsMax` (checked overflow-safe
  /// before anything is decoded), `data` exactly `w · h` bytes.
  func luma(_ f: JSONObject, label: String = "luma") throws(RecordingError) -> LumaFrame {
    let frame = try int(f, "frame", in: "luma", label: label)
    let w = try int(f, "w", in: "luma", label: label)
    let h = try int(f, "h", in: "luma", label: label)
    guard let pixels = LumaFrame.pixelCount(w: w, h: h) else {
      throw fail(
        "\(label): expected 1 ≤ w, h and w·h ≤ lumaPixelsMax = \(RecordingLimits.lumaPixelsMax) pixels (e.g. 1080×1920), found \(w)×\(h)")
    }
    if let e = f["enc"], e.stringValue != "u8-b64" {
      throw fail("\(label): field \"enc\": expected \"u8-b64\", found \(describe(e))", field: "enc")
    }
    guard let s = f["data"]?.stringValue else {
      throw fail("\(label): field \"data\": expected a base64 string of w·h = \(pixels) bytes", field: "data")
    }
    // Base64 of n bytes is 4·⌈n/3⌉ characters: a text of another length is refused before
    // decoding, with the byte count it spells.
    let length = s.utf8.count
    guard length == (pixels + 2) / 3 * 4 else {
      let padding = s.utf8.reversed().prefix(2).prefix { $0 == UInt8(ascii: "=") }.count
      throw fail("\(label): field \"data\": expected w·h = \(pixels) bytes, found \(length / 4 * 3 - padding) (\(length) base64 characters)", field: "data")
    }
    guard let data = Data(base64Encoded: s) else { throw fail("\(label): field \"data\": not valid base64", field: "data") }
    guard data.count == pixels else {
      throw fail("\(label): field \"data\": expected w·h = \(pixels) bytes, found \(data.count)", field: "data")
    }
    for m in f.members where !["frame", "w", "h", "enc", "data"].contains(m.key) {
      throw fail("\(label): unknown field \"\(m.key)\" (expected frame, w, h, enc, data)", field: m.key)
    }
    return LumaFrame(frame: frame, w: Int(w), h: Int(h), data: [UInt8](data))
  }

  // MARK: helpers

  /// `o[key]` as an integer; messages name it `kind.key`, a missing one after `label` (default `kind`).
  func int(_ o: JSONObject, _ key: String, in kind: String, label: String? = nil) throws(RecordingError) -> Int64 {
    guard let v = o[key] else { throw fail("\(label ?? kind): missing field \"\(key)\" (an integer)") }
    return try int(v, "\(kind).\(key)")
  }

  func int(_ v: JSONValue, _ name: String, field: String? = nil) throws(RecordingError) -> Int64 {
    guard let i = v.int64Value else { throw fail("field \"\(name)\": expected an integer, found \(describe(v))", field: field) }
    return i
  }

  func describe(_ v: JSONValue) -> String { EventFieldInfo.found(v) }
}
