import Foundation

/// Text from files (recording names, golden strings, cue ids, messages quoting them) made safe
/// for the two places it is printed — the one rule of issue 23 item 3.
///
/// - `ConsoleText`: a console or CI log. Control characters (C0 but tab and newline, DEL, C1,
///   ESC, NUL), the Unicode line and paragraph separators become visible escapes (`\u{1B}`),
///   `\r` becomes `\r`, and every line after the first starts with `  | `, so no byte from a file
///   can start a line — a forged `::error` workflow command or a terminal escape is printed as
///   text. (Indenting alone is not enough: GitHub's runner trims leading white space before it
///   looks for `::`.) The runner's older `##[command]` form is recognised anywhere in a line, so
///   `##[` is printed as `##\u{5B}` in every variant, and text that opens with `::` (after white
///   space) as `\u{3A}:`, since it may be printed at the start of a line.
/// - `XMLText`: XML 1.0 text and attributes (JUnit, SVG): the five specials escaped, every
///   character XML 1.0 cannot carry dropped (C0 but tab, newline and CR; U+FFFE, U+FFFF).
package enum ConsoleText {
  /// `text` as it may be printed: see the type.
  package static func safe(_ text: String) -> String { escaped(text, newline: "\n  | ", cr: "\\r") }

  /// One line: as `safe`, with newlines escaped too (`\n`) instead of indented.
  package static func line(_ text: String) -> String { escaped(text, newline: "\\n", cr: "\\r") }

  /// Control characters but newline, CR and tab made visible (`\u{1B}`); newline and CR kept.
  /// For a writer with its own escapes for those two (GitHub annotations).
  package static func visible(_ text: String) -> String { escaped(text, newline: "\n", cr: "\r") }

  static func escaped(_ text: String, newline: String, cr: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for u in text.unicodeScalars {
      switch u.value {
      case 0x0A: out += newline
      case 0x09: out.unicodeScalars.append(u)
      case 0x0D: out += cr
      case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029:
        out += "\\u{" + String(u.value, radix: 16, uppercase: true) + "}"
      default: out.unicodeScalars.append(u)
      }
    }
    if out.contains("##[") { out = out.replacingOccurrences(of: "##[", with: "##\\u{5B}") }
    // Text that is printed at the start of a line (or after spaces) must not open with `::`.
    if let first = out.firstIndex(where: { !$0.isWhitespace }), out[first...].hasPrefix("::") {
      out.replaceSubrange(first..<out.index(after: first), with: "\\u{3A}")
    }
    return out
  }
}

/// A short excerpt of text quoted in a message (issue 23 item 8): a message names the file and
/// the place and quotes at most `max` characters of what it found there.
package enum Excerpt {
  package static let charactersMax = 200
  package static func short(_ text: String, max: Int = charactersMax) -> String {
    guard text.count > max else { return text }
    return String(text.prefix(max)) + "… (\(text.count - max) more characters)"
  }

  /// A whole message at most about `max` characters: its start and its end kept (where a
  /// message names the file, and the bound or place), the middle elided with a count.
  package static func message(_ text: String, max: Int = 2000) -> String {
    guard text.count > max else { return text }
    let head = max * 2 / 3
    let tail = max - head
    return String(text.prefix(head)) + " … (\(text.count - head - tail) characters) … " + String(text.suffix(tail))
  }
}

package enum XMLText {
  /// XML 1.0 text and attribute escaping; characters XML cannot carry are dropped.
  package static func escape(_ s: String, attribute: Bool = true) -> String {
    var out = ""
    out.reserveCapacity(s.utf8.count)
    for u in s.unicodeScalars {
      switch u {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"" where attribute: out += "&quot;"
      case "'" where attribute: out += "&apos;"
      default:
        let v = u.value
        if v == 0x9 || v == 0xA || v == 0xD || (v >= 0x20 && v != 0xFFFE && v != 0xFFFF) { out.unicodeScalars.append(u) }
      }
    }
    return out
  }
}
