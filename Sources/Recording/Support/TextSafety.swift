import Foundation

/// Text from files (recording names, golden strings, cue ids, messages quoting them) made safe
/// for the two places it is printed — the one rule of issue 23 item 3.
///
/// - `ConsoleText`: a console or CI log. Control characters (C0 but tab and newline, DEL, C1,
///   ESC, NUL), the Unicode line and paragraph separators, and every invisible format character
///   (Unicode category Cf: the bidi embeddings, overrides, isolates and marks U+202A–202E,
///   U+2066–2069, U+200E/F, U+061C; the zero-width U+200B–200D, U+2060, U+FEFF; soft hyphen,
///   tags …) become visible escapes (`\u{1B}`, `\u{202E}`), so text from a file can neither move
///   the cursor nor reorder or hide what is printed around it;
///   `\r` becomes `\r`, and every line after the first starts with `  | `, so no byte from a file
///   can start a line — a forged `::error` workflow command or a terminal escape is printed as
///   text. (Indenting alone is not enough: GitHub's runner trims leading white space before it
///   looks for `::`.) The runner's older `##[command]` form is recognised anywhere in a line, so
///   `##[` is printed as `##\u{5B}` in every variant, and text that opens with `::` (after white
///   space) as `\u{3A}:`, since it may be printed at the start of a line.
/// - `XMLText`: XML 1.0 text and attributes (JUnit, SVG): the five specials escaped, every
///   character XML 1.0 cannot carry dropped (C0 but tab, newline and CR; U+FFFE, U+FFFF), and
///   DEL, C1 and the format characters written as character references (`&#x202E;`).
package enum ConsoleText {
  /// `text` as it may be printed: see the type.
  package static func safe(_ text: String) -> String { escaped(text, newline: "\n  | ", cr: "\\r") }

  /// One line: as `safe`, with newlines escaped too (`\n`) instead of indented.
  package static func line(_ text: String) -> String { escaped(text, newline: "\\n", cr: "\\r") }

  /// Control characters but newline, CR and tab made visible (`\u{1B}`); newline and CR kept.
  /// For a writer with its own escapes for those two (GitHub annotations).
  package static func visible(_ text: String) -> String { escaped(text, newline: "\n", cr: "\r") }

  /// Text the tool composed for the console (a report, a table) from lines of its own: every
  /// line made safe as `line` makes one (so no line of it opens with `::` or holds `##[`), the
  /// line ends (`\n`) kept. The one writer of `jpreplay`'s standard output uses it, so a newline
  /// that came from a file may end a line but the line it starts is still printed as text.
  package static func lines(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: { needsEscape($0) || $0 == ":" || $0 == "#" }) else { return text }
    return text.split(separator: "\n", omittingEmptySubsequences: false).map { line(String($0)) }.joined(separator: "\n")
  }

  /// As `lines`, keeping the colour sequences (SGR: ESC `[` digits and `;` then `m`) of a
  /// report the tool painted for a terminal: they set colours only, never move the cursor or
  /// erase; every other ESC is escaped. Without `colours`, exactly `lines`.
  package static func lines(_ text: String, colours: Bool) -> String {
    guard colours, text.unicodeScalars.contains("\u{1B}") else { return lines(text) }
    let scalars = Array(text.unicodeScalars)
    var out = ""
    var segment = String.UnicodeScalarView()
    func flush() {
      out += lines(String(segment))
      segment.removeAll()
    }
    var i = 0
    while i < scalars.count {
      if scalars[i] == "\u{1B}", i + 1 < scalars.count, scalars[i + 1] == "[" {
        var j = i + 2
        while j < scalars.count, scalars[j] == ";" || ("0"..."9").contains(scalars[j]) { j += 1 }
        if j < scalars.count, scalars[j] == "m" {
          flush()
          out.unicodeScalars.append(contentsOf: scalars[i...j])
          i = j + 1
          continue
        }
      }
      segment.append(scalars[i])
      i += 1
    }
    flush()
    return out
  }

  /// JSON text (a `--format json` report, a JSONL line) as it may be printed: every character a
  /// terminal acts on or hides that JSON lets appear raw inside a string (DEL, C1, the line
  /// separators, the format characters of `safe`) written as its JSON escape (`\u202e`), which
  /// is the same value to any JSON reader. JSON's own escaping already covers C0.
  package static func json(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: needsEscape) else { return text }
    var out = ""
    out.reserveCapacity(text.utf8.count + 16)
    for u in text.unicodeScalars {
      guard needsEscape(u), u.value > 0x1F else {
        out.unicodeScalars.append(u)
        continue
      }
      out += jsonEscape(u)
    }
    return out
  }

  /// `\uXXXX` (with a surrogate pair above U+FFFF).
  static func jsonEscape(_ u: Unicode.Scalar) -> String {
    func hex(_ v: UInt32) -> String {
      let h = String(v, radix: 16)
      return "\\u" + String(repeating: "0", count: max(0, 4 - h.count)) + h
    }
    guard u.value > 0xFFFF else { return hex(u.value) }
    let v = u.value - 0x10000
    return hex(0xD800 + (v >> 10)) + hex(0xDC00 + (v & 0x3FF))
  }

  /// Whether `u` is printed as an escape: a control character (C0, DEL, C1), a line or
  /// paragraph separator, or an invisible format character (Cf: bidi controls, zero-width
  /// characters, soft hyphen, tags, …).
  package static func needsEscape(_ u: Unicode.Scalar) -> Bool {
    switch u.value {
    case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: return true
    case 0x20...0x7E: return false
    default: return u.properties.generalCategory == .format
    }
  }

  static func escaped(_ text: String, newline: String, cr: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for u in text.unicodeScalars {
      switch u.value {
      case 0x0A: out += newline
      case 0x09: out.unicodeScalars.append(u)
      case 0x0D: out += cr
      default:
        if needsEscape(u) {
          out += "\\u{" + String(u.value, radix: 16, uppercase: true) + "}"
        } else {
          out.unicodeScalars.append(u)
        }
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
        guard v == 0x9 || v == 0xA || v == 0xD || (v >= 0x20 && v != 0xFFFE && v != 0xFFFF) else { continue }
        // DEL, C1 and the invisible format characters (ConsoleText.needsEscape) as character
        // references: the same text to an XML reader, visible when the file is printed.
        if v >= 0x7F, ConsoleText.needsEscape(u) {
          out += "&#x" + String(v, radix: 16, uppercase: true) + ";"
        } else {
          out.unicodeScalars.append(u)
        }
      }
    }
    return out
  }
}
