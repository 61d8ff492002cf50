import CanonicalJSON

/// The canonical trace line (DESIGN §4): one JSON object per output with `t` and `out` among
/// its keys, keys sorted at every level, numbers with fixed 6-decimal precision (-0 → 0),
/// "/" not escaped, no trailing spaces.
public enum TraceFormat {
  /// The canonical line of `record` (without the newline).
  public static func line(_ record: TraceRecord) -> String {
    var object = record.fields
    object["t"] = .number(Double(record.t))
    object["out"] = .string(record.out)
    return JSONWriter.write(.object(object), sortKeys: true, numbers: .fixed6)
  }

  /// Parses one trace line back into a record. Lines without an integer `t` or a string `out`
  /// are rejected with a message naming the missing key.
  public static func record(fromLine line: String) throws(TraceParseError) -> TraceRecord {
    let value: JSONValue
    do { value = try JSONParser.parse(line) } catch {
      throw TraceParseError(message: error.description)
    }
    guard var object = value.objectValue else {
      throw TraceParseError(message: "expected a JSON object, found \(value.typeName)")
    }
    guard let t = object["t"]?.int64Value else {
      throw TraceParseError(message: "missing integer key \"t\"")
    }
    guard let out = object["out"]?.stringValue else {
      throw TraceParseError(message: "missing string key \"out\"")
    }
    object["t"] = nil
    object["out"] = nil
    return TraceRecord(t: t, out: out, fields: object)
  }
}

/// A trace line that is not a trace record.
public struct TraceParseError: Error, Equatable, Sendable, CustomStringConvertible {
  public var message: String
  public var description: String { message }
}
