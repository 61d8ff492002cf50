import Foundation
import Recording

// The one console writer (issue 34 item 5). Every line `jpreplay` prints goes through one of
// these, so no text from a file or from the user (a recording or cue name, a scenario rule, a
// study's reason, an argument) can forge a CI log line (`::error …`, `##[…]`), move the cursor
// (ESC, CR) or reorder and hide text (bidi overrides and isolates, zero-width characters):
//
// - `print`: human-readable lines (this module's `print` shadows the standard library's, so a
//   new command's `print` is covered without anyone remembering). Each line is made safe by
//   `ConsoleText.lines`: controls, bidi and zero-width characters as visible `\u{…}` escapes, no
//   line opening with `::`, no `##[`.
// - `printJSON`: machine-readable JSON (`--format json`, `--json`): JSON's own escaping, plus
//   `ConsoleText.json` for the characters JSON lets appear raw (the same JSON value).
// - `printPainted`: a report with the tool's colours (verify, review): as `print`, the colour
//   sequences (SGR) kept when colour is on.
// - `printBuilt`: text whose data this tool escaped itself while building it (GitHub
//   annotations, SVG/XML whose text went through `XMLText`).
// - Standard error: `printErr` (ConsoleText.safe) and the top-level error messages.
//
// The data outputs — `cat`, `replay`'s traces on standard output, `record --jsonl` — are JSONL
// written through `ConsoleText.json` by their writers (JSONLWriter / FileLineSink `console:`).

/// Prints human-readable text on standard output through `ConsoleText.lines` (see above).
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
  Swift.print(ConsoleText.lines(items.map { "\($0)" }.joined(separator: separator)), terminator: terminator)
}

/// Prints JSON on standard output through `ConsoleText.json` (see above).
func printJSON(_ text: String, terminator: String = "\n") {
  Swift.print(ConsoleText.json(text), terminator: terminator)
}

/// Prints a report painted for a terminal (`color`: its colour sequences kept, see
/// `ConsoleText.lines(_:colours:)`), each line made safe as `print` makes it.
func printPainted(_ text: String, color: Bool, terminator: String = "\n") {
  Swift.print(ConsoleText.lines(text, colours: color), terminator: terminator)
}

/// Prints text whose file-borne parts were escaped when it was built (see above), as it is.
func printBuilt(_ text: String, terminator: String = "\n") {
  Swift.print(text, terminator: terminator)
}

enum Console {
  /// A message of swift-argument-parser (a usage error) with every command-line argument it
  /// quotes written as one line (`ConsoleText.line`: a newline in an argument as `\n`), its own
  /// line structure kept.
  static func quotingArguments(_ message: String, arguments: [String] = CommandLine.arguments) -> String {
    var out = message
    for a in Set(arguments.dropFirst()) where a.unicodeScalars.contains(where: { $0 == "\n" || ConsoleText.needsEscape($0) }) {
      out = out.replacingOccurrences(of: a, with: ConsoleText.line(a))
    }
    return out
  }
}
