import CanonicalJSON

/// Why a PoseSpec could not be decoded: the JSON path of the offending key and what was wrong.
///
/// The path reads like `cues[3].antiJitter.persistFrames` so that a user can find the place.
public struct PoseSpecDecodeFailure: Error, Equatable, Sendable, CustomStringConvertible {
  /// Where in the document, e.g. `defaults.confidence.minConfidence` (`$` for the root).
  public var path: String
  /// What was wrong, e.g. "missing key" or "expected a number, found string".
  public var message: String
  public init(path: String, message: String) {
    self.path = path
    self.message = message
  }
  public var description: String { "\(path): \(message)" }
}

/// A typed, path-tracking view of one JSON object, used to decode PoseSpec sections with the
/// required-ness of the original app's `Codable` model (ENGINE §2.1).
///
/// Required accessors fail on an absent key, on `null` and on a wrong type, like
/// `JSONDecoder` does for a non-optional property; optional accessors accept an absent key
/// or `null` but still fail on a wrong type.
struct JSONReader {
  let object: JSONObject
  let path: String

  init(_ object: JSONObject, path: String) {
    self.object = object
    self.path = path
  }

  /// Reads `value` as an object at `path`.
  init(_ value: JSONValue, path: String) throws(PoseSpecDecodeFailure) {
    guard let o = value.objectValue else { throw Self.typeFailure(path, "an object", value) }
    self.init(o, path: path)
  }

  func keyPath(_ key: String) -> String { Self.join(path, key) }

  static func join(_ path: String, _ key: String) -> String {
    let plain =
      !key.isEmpty
      && key.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" }
    let component = plain ? key : "[\"\(key)\"]"
    if path == "$" { return plain ? key : "$" + component }
    return plain ? path + "." + key : path + component
  }

  static func typeFailure(_ path: String, _ expected: String, _ found: JSONValue) -> PoseSpecDecodeFailure {
    PoseSpecDecodeFailure(path: path, message: "expected \(expected), found \(found.typeName)")
  }

  // MARK: Required

  /// The value of `key`, which must be present (any type, `null` included).
  func value(_ key: String) throws(PoseSpecDecodeFailure) -> JSONValue {
    guard let v = object[key] else { throw PoseSpecDecodeFailure(path: keyPath(key), message: "missing key") }
    return v
  }

  /// The non-null value of `key`.
  func present(_ key: String) throws(PoseSpecDecodeFailure) -> JSONValue {
    let v = try value(key)
    if v.isNull { throw PoseSpecDecodeFailure(path: keyPath(key), message: "expected a value, found null") }
    return v
  }

  func string(_ key: String) throws(PoseSpecDecodeFailure) -> String {
    let v = try present(key)
    guard let s = v.stringValue else { throw Self.typeFailure(keyPath(key), "a string", v) }
    return s
  }

  func double(_ key: String) throws(PoseSpecDecodeFailure) -> Double {
    let v = try present(key)
    guard let d = v.doubleValue else { throw Self.typeFailure(keyPath(key), "a number", v) }
    return d
  }

  func int(_ key: String) throws(PoseSpecDecodeFailure) -> Int {
    let v = try present(key)
    guard v.doubleValue != nil else { throw Self.typeFailure(keyPath(key), "an integer", v) }
    guard let i = v.int64Value, abs(i) < 1 << 53 else {
      throw PoseSpecDecodeFailure(
        path: keyPath(key), message: "expected an integer, found \(JSONWriter.shortest(v.doubleValue!))")
    }
    return Int(i)
  }

  func bool(_ key: String) throws(PoseSpecDecodeFailure) -> Bool {
    let v = try present(key)
    guard let b = v.boolValue else { throw Self.typeFailure(keyPath(key), "a boolean", v) }
    return b
  }

  func reader(_ key: String) throws(PoseSpecDecodeFailure) -> JSONReader {
    try JSONReader(try present(key), path: keyPath(key))
  }

  func array(_ key: String) throws(PoseSpecDecodeFailure) -> [JSONValue] {
    let v = try present(key)
    guard let a = v.arrayValue else { throw Self.typeFailure(keyPath(key), "an array", v) }
    return a
  }

  func strings(_ key: String) throws(PoseSpecDecodeFailure) -> [String] {
    var out: [String] = []
    for (i, item) in try array(key).enumerated() {
      guard let s = item.stringValue else { throw Self.typeFailure("\(keyPath(key))[\(i)]", "a string", item) }
      out.append(s)
    }
    return out
  }

  func doubles(_ key: String) throws(PoseSpecDecodeFailure) -> [Double] {
    var out: [Double] = []
    for (i, item) in try array(key).enumerated() {
      guard let d = item.doubleValue else { throw Self.typeFailure("\(keyPath(key))[\(i)]", "a number", item) }
      out.append(d)
    }
    return out
  }

  /// An object whose every value is a string, in document order.
  func stringMap(_ key: String) throws(PoseSpecDecodeFailure) -> [(key: String, value: String)] {
    let r = try reader(key)
    var out: [(key: String, value: String)] = []
    for m in r.object.members {
      guard let s = m.value.stringValue else { throw Self.typeFailure(r.keyPath(m.key), "a string", m.value) }
      out.append((m.key, s))
    }
    return out
  }

  // MARK: Optional (absent or null → nil)

  func has(_ key: String) -> Bool { object[key].map { !$0.isNull } ?? false }

  func optionalString(_ key: String) throws(PoseSpecDecodeFailure) -> String? {
    has(key) ? try string(key) : nil
  }
  func optionalStrings(_ key: String) throws(PoseSpecDecodeFailure) -> [String]? {
    has(key) ? try strings(key) : nil
  }
  func optionalReader(_ key: String) throws(PoseSpecDecodeFailure) -> JSONReader? {
    has(key) ? try reader(key) : nil
  }
}
