/// Where and why a JSON text could not be parsed.
public struct JSONParseError: Error, Equatable, CustomStringConvertible, Sendable {
  /// 1-based line and column of the offending byte; `offset` is 0-based.
  public var line: Int
  public var column: Int
  public var offset: Int
  /// What was expected at that place, e.g. "expected ',' or '}' after an object member".
  public var message: String
  public var description: String { "line \(line), column \(column): \(message)" }
}

/// A strict RFC 8259 JSON parser that keeps object member order and reports line and column.
public enum JSONParser {
  /// Parses one JSON value filling the whole input (surrounding whitespace allowed).
  public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
    var t = text
    return try t.withUTF8 { buf throws(JSONParseError) in try parse(bytes: UnsafeRawBufferPointer(buf)) }
  }
  /// Parses one JSON value filling the whole byte buffer.
  public static func parse(bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONValue {
    fatalError("JSONParser.parse: implementation pending")
  }
}

/// Deterministic JSON serialization.
public enum JSONWriter {
  /// How numbers are printed.
  public enum NumberStyle: Sendable {
    /// Shortest text that parses back to the same Double (Swift's `description`; integers
    /// below 2^53 without ".0"). Used for interchange (`cat`), where values must round-trip.
    case shortest
    /// `formatNumber`: fixed 6-decimal precision. Used for traces and goldens.
    case fixed6
  }
  /// Serializes `value` on one line. Keys are written in stored order unless `sortKeys`;
  /// "/" is never escaped; non-ASCII is written as UTF-8.
  public static func write(_ value: JSONValue, sortKeys: Bool = false, numbers: NumberStyle = .shortest) -> String {
    fatalError("JSONWriter.write: implementation pending")
  }
  /// Canonical number text: integers (|d| < 2^53, no fraction) without a decimal point; other
  /// values rounded to 6 decimals with trailing zeros removed; -0 printed as 0. Non-finite → null.
  public static func formatNumber(_ d: Double) -> String {
    fatalError("pending")
  }
}
