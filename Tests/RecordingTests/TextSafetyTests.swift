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
}
