import CanonicalJSON

/// The bounds of one input event, checked while decoding.
public enum CCLimits {
  /// The most faces one `frame` may list.
  public static let facesMax = 64
  /// The largest letterbox band (each of top and bottom, a share of the frame height).
  public static let bandMax = 0.45
  /// The largest |roll| in degrees.
  public static let rollMax = 180.0
  /// The largest |rotation rate| in degrees per second.
  public static let rateMax = 10_000.0
  /// The largest fps sample.
  public static let fpsMax = 1_000.0
}

/// Camera Coach's input kinds, with their channel and fields.
public enum CCInputKind: String, CaseIterable, Sendable {
  case sessionStart = "session_start"
  case sessionStop = "session_stop"
  case frame
  case template
  case templateClear = "template_clear"
  case shutter
  case photoKept = "photo_kept"
  case fpsSample = "fps_sample"
  case thermalSample = "thermal_sample"
  case memoryPressure = "memory_pressure"
  case consentChanged = "consent_changed"

  /// The recording channel.
  public var channel: String {
    switch self {
    case .frame: "camera"
    case .fpsSample, .thermalSample, .memoryPressure: "system"
    case .sessionStart, .sessionStop: "app"
    case .template, .templateClear, .shutter, .photoKept, .consentChanged: "ui"
    }
  }

  /// Required fields and their JSON types (`string`, `number`, `bool`, `array`).
  public var required: [(name: String, type: String)] {
    switch self {
    case .sessionStart: [("camera", "string"), ("band", "number")]
    case .frame: [("faces", "array"), ("roll", "number"), ("rate", "number")]
    case .template: [("x", "number"), ("y", "number")]
    case .fpsSample: [("fps", "number")]
    case .thermalSample: [("state", "string")]
    case .memoryPressure: [("level", "string")]
    case .consentChanged: [("granted", "bool")]
    case .sessionStop, .templateClear, .shutter, .photoKept: []
    }
  }

  /// `session_start` opens a session (the replay's launch event).
  public var launches: Bool { self == .sessionStart }
}

/// A face as the detector reports it: a box in the detector's space (origin bottom-left, y
/// up, normalised to the frame), the yaw in degrees (positive: turned toward the UI's right)
/// and the nose landmark's x in the landmark space (mirrored for the back camera).
public struct CCFace: Equatable, Sendable {
  public var x: Double
  public var y: Double
  public var w: Double
  public var h: Double
  public var yaw: Double
  public var noseX: Double

  /// A face.
  public init(x: Double, y: Double, w: Double, h: Double, yaw: Double = 0, noseX: Double) {
    self.x = x
    self.y = y
    self.w = w
    self.h = h
    self.yaw = yaw
    self.noseX = noseX
  }
}

/// A decoded input event.
public enum CCInput: Equatable, Sendable {
  case sessionStart(camera: CCCamera, band: Double)
  case sessionStop
  case frame(faces: [CCFace], roll: Double, rate: Double)
  case template(x: Double, y: Double)
  case templateClear
  case shutter
  case photoKept
  case fpsSample(Double)
  case thermalSample(CCThermal)
  case memoryPressure(CCMemory)
  case consentChanged(Bool)
}

/// An event the engine cannot take: its kind, field and what was expected.
public struct CCDecodeError: Error, Equatable, Sendable, CustomStringConvertible {
  public var kind: String
  public var field: String?
  public var message: String

  public init(kind: String, field: String?, _ message: String) {
    self.kind = kind
    self.field = field
    self.message = message
  }

  /// `frame.faces[0].w: expected a number in 0…1, found 2`.
  public var description: String { kind + (field.map { ".\($0)" } ?? "") + ": " + message }
}

extension CCInput {
  /// Decodes a recorded event (kind and fields); unknown fields, missing fields, wrong types
  /// and values out of range are errors naming the field.
  public static func decode(kind name: String, fields: JSONObject) throws(CCDecodeError) -> CCInput {
    guard let kind = CCInputKind(rawValue: name) else {
      throw CCDecodeError(
        kind: name, field: nil, "not a Camera Coach event (expected one of \(CCInputKind.allCases.map(\.rawValue).joined(separator: ", ")))")
    }
    let r = try CCFields(kind: name, fields: fields, allowed: kind.required.map(\.name))
    switch kind {
    case .sessionStart:
      return .sessionStart(camera: try r.choice("camera", CCCamera.self), band: try r.number("band", 0, CCLimits.bandMax))
    case .sessionStop: return .sessionStop
    case .frame:
      let items = try r.array("faces")
      guard items.count <= CCLimits.facesMax else {
        throw r.error("faces", "\(items.count) faces, more than \(CCLimits.facesMax) (CCLimits.facesMax)")
      }
      var faces: [CCFace] = []
      for (i, item) in items.enumerated() { faces.append(try face(item, kind: name, place: "faces[\(i)]")) }
      return .frame(
        faces: faces, roll: try r.number("roll", -CCLimits.rollMax, CCLimits.rollMax),
        rate: try r.number("rate", -CCLimits.rateMax, CCLimits.rateMax))
    case .template: return .template(x: try r.number("x", 0, 1), y: try r.number("y", 0, 1))
    case .templateClear: return .templateClear
    case .shutter: return .shutter
    case .photoKept: return .photoKept
    case .fpsSample: return .fpsSample(try r.number("fps", 0, CCLimits.fpsMax))
    case .thermalSample: return .thermalSample(try r.choice("state", CCThermal.self))
    case .memoryPressure: return .memoryPressure(try r.choice("level", CCMemory.self))
    case .consentChanged: return .consentChanged(try r.bool("granted"))
    }
  }

  static func face(_ v: JSONValue, kind: String, place: String) throws(CCDecodeError) -> CCFace {
    guard case .object(let o) = v else { throw CCDecodeError(kind: kind, field: place, "expected a face object, found \(v.typeName)") }
    let r = try CCFields(kind: kind, fields: o, allowed: ["x", "y", "w", "h", "yaw", "nose_x"], prefix: place + ".")
    let f = CCFace(
      x: try r.number("x", 0, 1), y: try r.number("y", 0, 1), w: try r.number("w", 0, 1), h: try r.number("h", 0, 1),
      yaw: try r.number("yaw", -90, 90), noseX: try r.number("nose_x", 0, 1))
    guard f.x + f.w <= 1, f.y + f.h <= 1 else {
      throw r.error("w", "the box leaves the frame (x + w and y + h must be at most 1)")
    }
    return f
  }

  /// The event's kind.
  public var kind: CCInputKind {
    switch self {
    case .sessionStart: .sessionStart
    case .sessionStop: .sessionStop
    case .frame: .frame
    case .template: .template
    case .templateClear: .templateClear
    case .shutter: .shutter
    case .photoKept: .photoKept
    case .fpsSample: .fpsSample
    case .thermalSample: .thermalSample
    case .memoryPressure: .memoryPressure
    case .consentChanged: .consentChanged
    }
  }
}

/// Typed reads of one event's fields; every error names the field.
struct CCFields {
  let kind: String
  let fields: JSONObject
  let prefix: String

  init(kind: String, fields: JSONObject, allowed: [String], prefix: String = "") throws(CCDecodeError) {
    self.kind = kind
    self.fields = fields
    self.prefix = prefix
    var seen: [String] = []
    for m in fields.members {
      guard allowed.contains(m.key) else {
        let expected = allowed.isEmpty ? "this kind has no fields" : "expected one of \(allowed.joined(separator: ", "))"
        throw CCDecodeError(kind: kind, field: prefix + m.key, "unknown field; \(expected)")
      }
      guard !seen.contains(m.key) else { throw CCDecodeError(kind: kind, field: prefix + m.key, "field given twice") }
      seen.append(m.key)
    }
  }

  func error(_ field: String, _ message: String) -> CCDecodeError { CCDecodeError(kind: kind, field: prefix + field, message) }

  func value(_ field: String) throws(CCDecodeError) -> JSONValue {
    guard let v = fields[field] else { throw error(field, "missing field") }
    return v
  }

  func number(_ field: String, _ lo: Double, _ hi: Double) throws(CCDecodeError) -> Double {
    let v = try value(field)
    guard case .number(let d) = v, d.isFinite else { throw error(field, "expected a number, found \(v.typeName)") }
    guard d >= lo, d <= hi else {
      throw error(field, "expected a number in \(JSONWriter.formatNumber(lo))…\(JSONWriter.formatNumber(hi)), found \(JSONWriter.formatNumber(d))")
    }
    return d
  }

  func bool(_ field: String) throws(CCDecodeError) -> Bool {
    let v = try value(field)
    guard case .bool(let b) = v else { throw error(field, "expected true or false, found \(v.typeName)") }
    return b
  }

  func array(_ field: String) throws(CCDecodeError) -> [JSONValue] {
    let v = try value(field)
    guard case .array(let a) = v else { throw error(field, "expected an array, found \(v.typeName)") }
    return a
  }

  func choice<E: RawRepresentable & CaseIterable>(_ field: String, _: E.Type) throws(CCDecodeError) -> E where E.RawValue == String {
    let v = try value(field)
    guard case .string(let s) = v else { throw error(field, "expected a string, found \(v.typeName)") }
    guard let e = E(rawValue: s) else {
      throw error(field, "expected one of \(E.allCases.map(\.rawValue).joined(separator: ", ")), found \"\(s)\"")
    }
    return e
  }
}
