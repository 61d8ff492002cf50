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
    let json = JSONWriter.write(value)
    var out = ""
    out.reserveCapacity(json.utf8.count + 64)
    for u in json.unicodeScalars {
      switch u.value {
      case 0x3C: out += "\\u003c"
      case 0x3E: out += "\\u003e"
      case 0x26: out += "\\u0026"
      case 0x2028: out += "\\u2028"
      case 0x2029: out += "\\u2029"
      default: out.unicodeScalars.append(u)
      }
    }
    return out
  }
}
