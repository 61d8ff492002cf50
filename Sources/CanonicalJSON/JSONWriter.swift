/// Deterministic JSON serialization.
public enum JSONWriter {
  /// How numbers are printed.
  public enum NumberStyle: Sendable {
    /// Shortest text that parses back to the same Double (integers below 2^53 without ".0").
    /// Used for interchange (`cat`), where values must round-trip.
    case shortest
    /// `formatNumber`: fixed 6-decimal precision. Used for traces and goldens.
    case fixed6
  }

  /// Serializes `value` on one line. Keys are written in stored order unless `sortKeys`;
  /// "/" is never escaped; non-ASCII is written as UTF-8.
  public static func write(_ value: JSONValue, sortKeys: Bool = false, numbers: NumberStyle = .shortest) -> String {
    var out = ""
    append(value, to: &out, sortKeys: sortKeys, numbers: numbers)
    return out
  }

  /// Appends the serialization of `value` to `out`.
  public static func append(_ value: JSONValue, to out: inout String, sortKeys: Bool, numbers: NumberStyle) {
    switch value {
    case .null: out += "null"
    case .bool(let b): out += b ? "true" : "false"
    case .number(let d): out += numbers == .fixed6 ? formatNumber(d) : shortest(d)
    case .string(let s): appendString(s, to: &out)
    case .array(let a):
      out += "["
      for (i, v) in a.enumerated() {
        if i > 0 { out += "," }
        append(v, to: &out, sortKeys: sortKeys, numbers: numbers)
      }
      out += "]"
    case .object(let o):
      out += "{"
      let members =
        sortKeys ? o.members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) } : o.members
      for (i, m) in members.enumerated() {
        if i > 0 { out += "," }
        appendString(m.key, to: &out)
        out += ":"
        append(m.value, to: &out, sortKeys: sortKeys, numbers: numbers)
      }
      out += "}"
    }
  }

  /// Appends `s` as a JSON string literal (escapes only what JSON requires; "/" is not escaped).
  public static func appendString(_ s: String, to out: inout String) {
    out += "\""
    var needsEscape = false
    for b in s.utf8 where b < 0x20 || b == 0x22 || b == 0x5C {
      needsEscape = true
      break
    }
    if !needsEscape {
      out += s
    } else {
      for u in s.unicodeScalars {
        switch u {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case "\u{08}": out += "\\b"
        case "\u{0C}": out += "\\f"
        default:
          if u.value < 0x20 {
            let hex = String(u.value, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
          } else {
            out.unicodeScalars.append(u)
          }
        }
      }
    }
    out += "\""
  }

  /// Canonical number text: integers (|d| < 2^53, no fraction) without a decimal point; other
  /// values rounded to 6 decimals with trailing zeros removed; -0 printed as 0. Non-finite → null.
  public static func formatNumber(_ d: Double) -> String {
    guard d.isFinite else { return "null" }
    let scaled = (d * 1_000_000).rounded(.toNearestOrAwayFromZero)
    if abs(scaled) >= 9.0e15 {
      return shortest(d)
    }
    var micros = Int64(scaled)
    if micros == 0 { return "0" }
    let negative = micros < 0
    if negative { micros = -micros }
    let whole = micros / 1_000_000
    var frac = micros % 1_000_000
    var text = negative ? "-" : ""
    text += String(whole)
    if frac != 0 {
      var digits = 6
      while frac % 10 == 0 {
        frac /= 10
        digits -= 1
      }
      let f = String(frac)
      text += "." + String(repeating: "0", count: digits - f.count) + f
    }
    return text
  }

  /// Shortest round-tripping text; integral values below 2^53 print without a fraction.
  public static func shortest(_ d: Double) -> String {
    guard d.isFinite else { return "null" }
    if d == 0 { return "0" }
    if d.rounded() == d, abs(d) < 9_007_199_254_740_992 { return String(Int64(d)) }
    let s = String(d)  // Swift prints the shortest round-trip representation, e.g. 0.1, 1e-07
    return s
  }
}
