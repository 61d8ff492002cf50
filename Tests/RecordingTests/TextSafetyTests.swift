import Foundation
import Recording
import Testing

/// Issue 23 item 3: text from files is made safe in one place for consoles and CI logs
/// (`ConsoleText`) and for XML (`XMLText`).
@Suite struct TextSafetyTests {
  @Test("no text from a file can start a console line or carry a terminal escape")
  func console() {
    let hostile = "a\n::error file=x::forged\u{1B}[31m\rred\u{0}\u{85}\u{2028}end"
    let s = ConsoleText.safe(hostile)
    // GitHub's runner trims leading white space before it looks for `::`, and finds the older
    // `##[command]` form anywhere in a line.
    func forges(_ line: Substring) -> Bool { line.drop(while: \.isWhitespace).hasPrefix("::") || line.contains("##[") }
    #expect(!s.split(separator: "\n", omittingEmptySubsequences: false).contains(where: forges), "\(s)")
    #expect(!s.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().contains { !$0.hasPrefix("  | ") })
    for variant in [ConsoleText.safe, ConsoleText.line, ConsoleText.visible] {
      for text in ["::error::x", " \u{3000}::warning::x", "ok ##[error]x", "##[group]x"] {
        #expect(!forges(Substring(variant(text))), "\(variant(text))")
      }
    }
    #expect(ConsoleText.line("a::b") == "a::b")
    #expect(!s.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" })
    #expect(s.contains("\\u{1B}[31m") && s.contains("\\r") && s.contains("\\u{0}") && s.contains("\\u{85}") && s.contains("\\u{2028}"))
    #expect(!ConsoleText.line(hostile).contains("\n"))
    #expect(ConsoleText.safe("plain name: ok\ttab") == "plain name: ok\ttab")
  }

  @Test("XML text drops what XML 1.0 cannot carry and escapes the specials")
  func xml() {
    let s = XMLText.escape("<a & \"b\" 'c'>\u{FFFE}\u{FFFF}\u{1}\u{1B}\t\n")
    #expect(s == "&lt;a &amp; &quot;b&quot; &apos;c&apos;&gt;\t\n")
    #expect(XMLText.escape("\"q\"", attribute: false) == "\"q\"")
  }

  // Issue 34: bidi controls and zero-width characters are made visible like controls; JSON and
  // XML keep the same value while no raw one is printed.
  @Test("bidi and zero-width characters are escaped on the console, in JSON and in XML")
  func invisibleFormatCharacters() {
    let hostile = "a\u{202E}b\u{2066}c\u{200B}d\u{FEFF}e\u{061C}f\u{200E}g\u{9B}h"
    for variant in [ConsoleText.safe, ConsoleText.line, ConsoleText.visible, ConsoleText.lines] {
      let s = variant(hostile)
      #expect(!s.unicodeScalars.contains { ConsoleText.needsEscape($0) }, "\(s.debugDescription)")
      #expect(s.contains("\\u{202E}") && s.contains("\\u{200B}"), "\(s)")
    }
    // JSON: the same value, no raw character.
    let json = ConsoleText.json("{\"k\":\"" + hostile + "\u{1F600}\"}")
    #expect(!json.unicodeScalars.contains { ConsoleText.needsEscape($0) })
    let back = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String]
    #expect(back?["k"] == hostile + "\u{1F600}", "\(json)")
    #expect(ConsoleText.json("{\"k\":\"\u{E0041}\"}") == "{\"k\":\"\\udb40\\udc41\"}")
    // XML: character references.
    #expect(XMLText.escape("x\u{202E}y") == "x&#x202E;y")
    // Lines: each line checked, line ends kept; a colour kept only when asked.
    #expect(ConsoleText.lines("ok\n::error x\n") == "ok\n\\u{3A}:error x\n")
    #expect(ConsoleText.lines("\u{1B}[31mred\u{1B}[0m\u{1B}[2J", colours: true) == "\u{1B}[31mred\u{1B}[0m\\u{1B}[2J")
    #expect(ConsoleText.lines("\u{1B}[31mred", colours: false) == "\\u{1B}[31mred")
  }

  @Test("a Foundation error is named by its reason, never Code(rawValue: …)")
  func foundationErrorReason() {
    let m = SystemReason.message(CocoaError(.fileReadUnknown))
    #expect(!m.contains("rawValue") && !m.contains("Code("), "\(m)")
    #expect(SystemReason.message(CocoaError(.fileNoSuchFile)) == "no such file")
  }
}
