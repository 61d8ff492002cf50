import CanonicalJSON

/// Reads the fields of one input event (or one store snapshot) with typed accessors whose
/// errors name the field and what was expected.
struct PixFieldReader {
  let kind: String
  let fields: JSONObject

  /// Refuses any field not in `allowed` (and a field given twice).
  init(kind: String, fields: JSONObject, allowed: [String]) throws(PixDecodeError) {
    self.kind = kind
    self.fields = fields
    // A field given twice is found among the members before it (no list of the keys seen).
    let members = fields.members
    for (i, m) in members.enumerated() {
      guard allowed.contains(m.key) else {
        let expected = allowed.isEmpty ? "this kind has no fields" : "expected one of \(allowed.joined(separator: ", "))"
        throw PixDecodeError(kind: kind, field: m.key, "unknown field; \(expected)")
      }
      guard !members[..<i].contains(where: { $0.key == m.key }) else {
        throw PixDecodeError(kind: kind, field: m.key, "field given twice")
      }
    }
  }

  func error(_ field: String, _ message: String) -> PixDecodeError {
    PixDecodeError(kind: kind, field: field, message)
  }

  func value(_ field: String) throws(PixDecodeError) -> JSONValue {
    guard let v = fields[field] else { throw error(field, "missing field") }
    return v
  }

  func string(_ field: String) throws(PixDecodeError) -> String {
    let v = try value(field)
    guard case .string(let s) = v else { throw error(field, "expected a string, found \(v.typeName)") }
    return s
  }

  func bool(_ field: String) throws(PixDecodeError) -> Bool {
    let v = try value(field)
    guard case .bool(let b) = v else { throw error(field, "expected true or false, found \(v.typeName)") }
    return b
  }

  func int(_ field: String, min: Int64, max: Int64, bound: String) throws(PixDecodeError) -> Int64 {
    try Self.int(try value(field), min: min, max: max, bound: bound) { m throws(PixDecodeError) in throw error(field, m) }
  }

  static func int(
    _ v: JSONValue, min: Int64, max: Int64, bound: String, fail: (String) throws(PixDecodeError) -> Never
  ) throws(PixDecodeError) -> Int64 {
    guard case .number = v else { try fail("expected an integer, found \(v.typeName)") }
    guard let i = v.int64Value else { try fail("expected an integer, found \(JSONWriter.write(v))") }
    guard i >= min, i <= max else { try fail("expected an integer in \(min)…\(max) (\(bound)), found \(i)") }
    return i
  }

  /// A raw value of `E` (e.g. a direction), naming the allowed values when it is not one.
  func choice<E: RawRepresentable & CaseIterable>(_ field: String, _: E.Type) throws(PixDecodeError) -> E
  where E.RawValue == String {
    let s = try string(field)
    guard let e = E(rawValue: s) else {
      throw error(field, "expected one of \(E.allCases.map(\.rawValue).joined(separator: ", ")), found \"\(s)\"")
    }
    return e
  }

  /// A photo id: 1…`PixLimits.idBytesMax` bytes.
  func id(_ field: String) throws(PixDecodeError) -> String {
    try Self.id(try string(field)) { m throws(PixDecodeError) in throw error(field, m) }
  }

  static func id(_ s: String, fail: (String) throws(PixDecodeError) -> Never) throws(PixDecodeError) -> String {
    guard !s.isEmpty else { try fail("expected a photo id, found an empty string") }
    guard s.utf8.count <= PixLimits.idBytesMax else {
      try fail("expected a photo id of at most \(PixLimits.idBytesMax) bytes (PixLimits.idBytesMax), found \(s.utf8.count)")
    }
    return s
  }

  /// A text of at most `PixLimits.textBytesMax` bytes (empty allowed).
  func text(_ field: String) throws(PixDecodeError) -> String {
    let s = try string(field)
    guard s.utf8.count <= PixLimits.textBytesMax else {
      throw error(field, "expected a text of at most \(PixLimits.textBytesMax) bytes (PixLimits.textBytesMax), found \(s.utf8.count)")
    }
    return s
  }

  func optionalText(_ field: String) throws(PixDecodeError) -> String? {
    fields[field] == nil ? nil : try text(field)
  }

  func optionalObject(_ field: String) throws(PixDecodeError) -> JSONObject? {
    guard let v = fields[field] else { return nil }
    guard case .object(let o) = v else { throw error(field, "expected an object, found \(v.typeName)") }
    return o
  }

  /// `field` must be absent (it does not go with the other fields' values).
  func forbid(_ field: String, because reason: String) throws(PixDecodeError) {
    if fields[field] != nil { throw error(field, "not allowed when \(reason)") }
  }

  /// An array of at most `max` elements (checked before anything is built).
  func array(_ field: String, max: Int, bound: String) throws(PixDecodeError) -> [JSONValue] {
    let v = try value(field)
    guard case .array(let a) = v else { throw error(field, "expected an array, found \(v.typeName)") }
    guard a.count <= max else { throw error(field, "expected at most \(max) entries (\(bound)), found \(a.count)") }
    return a
  }

  /// The assets of a library snapshot: `[{id, created, screenshot, bytes}]`, ids unique.
  func assets(_ field: String) throws(PixDecodeError) -> [PixAsset] {
    let list = try array(field, max: PixLimits.libraryMax, bound: "PixLimits.libraryMax")
    var out: [PixAsset] = []
    out.reserveCapacity(list.count)
    var ids = Set<String>(minimumCapacity: list.count)
    for (i, v) in list.enumerated() {
      var path: String { "\(field)[\(i)]" }  // for an error only
      guard case .object(let o) = v else { throw error(path, "expected an asset object {id, created, screenshot, bytes}, found \(v.typeName)") }
      let asset: PixAsset
      do {
        let r = try PixFieldReader(kind: kind, fields: o, allowed: ["id", "created", "screenshot", "bytes"])
        asset = PixAsset(
          id: try r.id("id"),
          created: try r.int(
            "created", min: -PixLimits.createdMagnitudeMax, max: PixLimits.createdMagnitudeMax, bound: "PixLimits.createdMagnitudeMax"),
          screenshot: try r.bool("screenshot"),
          bytes: try r.int("bytes", min: 0, max: PixLimits.assetBytesMax, bound: "PixLimits.assetBytesMax"))
      } catch {
        throw self.error("\(path).\(error.field ?? "")", error.message)
      }
      guard ids.insert(asset.id).inserted else { throw error("\(path).id", "photo id \"\(asset.id)\" listed twice") }
      out.append(asset)
    }
    return out
  }
}
