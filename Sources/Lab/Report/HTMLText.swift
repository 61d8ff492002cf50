import CanonicalJSON
import Recording

/// Text from files (recording names, cue ids, explanations) made safe for the HTML report.
///
/// - `escape`: HTML text and attribute values (`&`, `<`, `>`, `"`, `'`), control characters
///   shown as visible escapes first (``ConsoleText/line``), so a name prints as what it is.
/// - `scriptData`: a JSON document for a `<script type="application/json">` block: besides
///   JSON's own escapes, `<`, `>` and `&` become `\u003c`, `\u003e`, `\u0026` and the line and
///   paragraph separators `\u2028` / `\u2029`, so no byte sequence of the data can close the
///   block (`</script>`), open a comment, or end a JavaScript string. The page reads the block
///   with `JSON.parse` and puts every string into the DOM as text (`textContent`), never as markup.
package enum HTMLText {
  package static func escape(_ s: String) -> String {
    var out = ""
    out.reserveCapacity(s.utf8.count)
    for u in ConsoleText.line(s).unicodeScalars {
      switch u {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&#39;"
      default: out.unicodeScalars.append(u)
      }
    }
    return out
  }

  /// A string from a file as the page shows it: control characters visible, at most
  /// `HTMLReportLimits.textCharactersMax` characters.
  package static func shown(_ s: String) -> String {
    ConsoleText.line(Excerpt.short(s, max: HTMLReportLimits.textCharactersMax))
  }

  /// `value` as JSON safe inside a `<script>` block (see the type).
  package static func scriptData(_ value: JSONValue) -> String {
    var out = ""
    scriptData(value) { out += $0 }
    return out
  }

  /// UTF-8 bytes of script data handed on at once by ``scriptData(_:emit:)`` (a part ends
  /// once it reaches this, inside a string or after any other value: at most a number or an
  /// escape more).
  package static let scriptDataPartBytes = 1 << 20

  /// ``scriptData(_:)``'s text handed to `emit` in parts of about ``scriptDataPartBytes``, so
  /// a page's largest block (a long recording's series, tens of MB) is never one string, nor
  /// its escaped copy (issue 38 item 5). The text is `JSONWriter.write(value)` (keys in stored
  /// order) with the block's escapes, byte for byte.
  package static func scriptData<E: Error>(_ value: JSONValue, emit: (String) throws(E) -> Void) throws(E) {
    var out = ""
    out.reserveCapacity(min(scriptDataPartBytes, 1 << 16))
    try appendScriptData(value, to: &out, emit: emit)
    if !out.isEmpty { try emit(out) }
  }

  static func appendScriptData<E: Error>(_ value: JSONValue, to out: inout String, emit: (String) throws(E) -> Void) throws(E) {
    switch value {
    case .string(let s): try appendScriptString(s, to: &out, emit: emit)
    case .array(let a):
      out += "["
      for (i, v) in a.enumerated() {
        if i > 0 { out += "," }
        try appendScriptData(v, to: &out, emit: emit)
      }
      out += "]"
    case .object(let o):
      out += "{"
      for (i, m) in o.members.enumerated() {
        if i > 0 { out += "," }
        try appendScriptString(m.key, to: &out, emit: emit)
        out += ":"
        try appendScriptData(m.value, to: &out, emit: emit)
      }
      out += "}"
    case .null, .bool, .number: out += JSONWriter.write(value)  // no character the block escapes
    }
    if out.utf8.count >= scriptDataPartBytes {
      try emit(out)
      out = ""
    }
  }

  /// A JSON string literal as `JSONWriter.appendString` writes it, with the block's escapes,
  /// cut where a part is full; an ASCII string needing neither (base64 series) is copied in
  /// slices, never whole.
  static func appendScriptString<E: Error>(_ s: String, to out: inout String, emit: (String) throws(E) -> Void) throws(E) {
    let plain = !s.utf8.contains { $0 >= 0x80 || $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x3C || $0 == 0x3E || $0 == 0x26 }
    guard plain else {
      // JSON's escapes are JSONWriter's; the block's are added scalar by scalar.
      var literal = ""
      JSONWriter.appendString(s, to: &literal)
      for u in literal.unicodeScalars {
        switch u.value {
        case 0x3C: out += "\\u003c"
        case 0x3E: out += "\\u003e"
        case 0x26: out += "\\u0026"
        case 0x2028: out += "\\u2028"
        case 0x2029: out += "\\u2029"
        default: out.unicodeScalars.append(u)
        }
        if out.utf8.count >= scriptDataPartBytes {
          try emit(out)
          out = ""
        }
      }
      return
    }
    out += "\""
    let bytes = s.utf8
    var start = bytes.startIndex
    while start != bytes.endIndex {
      let room = max(1, scriptDataPartBytes - out.utf8.count)
      let end = bytes.index(start, offsetBy: room, limitedBy: bytes.endIndex) ?? bytes.endIndex
      out += String(Substring(bytes[start..<end]))
      start = end
      if out.utf8.count >= scriptDataPartBytes {
        try emit(out)
        out = ""
      }
    }
    out += "\""
  }
}
