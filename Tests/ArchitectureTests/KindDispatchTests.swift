import Foundation
import Testing

/// Issue 36: no string dispatch on event or trace kinds. A kind is read through its typed
/// value (`OutputKind`, `EventKind`, `PixOutputKind`, `CCOutputKind`, …) or asked of the
/// vocabulary (`TraceLine.summary`, `OutputKind.showsCue`, `identityField`), never compared
/// with, switched on or looked up by a string literal. The engines' cores are not scanned: they
/// receive typed inputs, and the strings they compare are values of their own (an effect
/// result's error kind), not event or trace kinds.
@Suite("Kind dispatch rules")
struct KindDispatchTests {
  /// Modules whose own values the scan leaves alone (see the suite's comment).
  static let engineCores = ["Sources/JustPhotoEngine/", "Sources/PixScanEngine/", "Sources/CameraCoachEngine/"]

  /// What names a kind in an expression: an identifier containing `kind`/`Kind` (`kind`,
  /// `kindName`, `recordKind`), `out`, or a line's `["out"]` / `["kind"]` / `["event"]` string.
  static let kindTerm = #"(?:\w*[kK]ind\w*|out|\w*\[\s*"(?:out|kind|event)"\s*\]\??\.stringValue)"#

  static let linePatterns: [NSRegularExpression] = [
    // kind == "x", kind != "x", kind.rawValue == "x"
    #"\b"# + kindTerm + #"(?:\.rawValue)?\s*[!=]=\s*""#,
    // "x" == kind
    #""\s*[!=]=\s*(?:[\w$]+\??\.)*"# + kindTerm + #"\b"#,
    // ["x": …][kind]
    #"\[\s*"[^"]*"\s*:[^\]]*\]\s*\[[^\]]*\b"# + kindTerm + #"\b[^\]]*\]"#,
    // ["x", "y"].contains(kind)
    #"\[\s*"[^"]*"(?:\s*,\s*"[^"]*")*\s*\]\s*\.contains\([^)]*\b"# + kindTerm,
  ].map { try! NSRegularExpression(pattern: $0) }

  static let switchOnKind = try! NSRegularExpression(pattern: #"\bswitch\s+[^{]*\b"# + kindTerm + #"\b[^{]*\{"#)
  static let stringCase = try! NSRegularExpression(pattern: #"^\s*case\s+""#)

  static func matches(_ r: NSRegularExpression, _ s: String) -> Bool {
    r.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) != nil
  }

  /// The code of a line, its `//` comment cut off.
  static func code(_ line: Substring) -> String { line.components(separatedBy: "//").first ?? "" }

  /// The lines of `text` (1-based numbers) that dispatch on a kind by a string literal: a
  /// comparison, a dictionary lookup or a `contains` on a literal, or a `switch` on a kind whose
  /// own cases (not a nested switch's) are string literals.
  static func stringDispatchLines(_ text: String) -> [(line: Int, text: String)] {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    var out: [(Int, String)] = []
    for (n, line) in lines.enumerated() {
      let c = code(line)
      var hit = linePatterns.contains { matches($0, c) }
      if !hit, matches(switchOnKind, c) {
        var depth = c.filter { $0 == "{" }.count - c.filter { $0 == "}" }.count
        for next in lines[(n + 1)...] {
          let c2 = code(next)
          if depth == 1, matches(stringCase, c2) {
            hit = true
            break
          }
          depth += c2.filter { $0 == "{" }.count - c2.filter { $0 == "}" }.count
          if depth <= 0 { break }
        }
      }
      if hit { out.append((n + 1, line.trimmingCharacters(in: .whitespaces))) }
    }
    return out
  }

  @Test("no module outside the engines' cores dispatches on an event or trace kind by a string")
  func noStringDispatchOnKinds() throws {
    let files = SourceRulesTests.swiftFiles(under: "Sources")
    #expect(files.count > 100, "the scan found \(files.count) files; is the repository root right?")
    var offenders: [String] = []
    for f in files where !Self.engineCores.contains(where: { f.hasPrefix($0) }) {
      let text = try String(contentsOf: SourceRulesTests.repoRoot.appendingPathComponent(f), encoding: .utf8)
      offenders += Self.stringDispatchLines(text).map { "\(f):\($0.line): \($0.text)" }
    }
    #expect(offenders == [])
  }

  @Test("the scan sees each shape of string dispatch the code once had, and passes its typed forms")
  func scanSeesStringDispatch() {
    // The shapes fixed in issue 36 (Verify's differ, the bisect workspace, Lab's report, the
    // expectations' identity table, the prompt invariants' reader).
    let bad = [
      #"      for (i, l) in lines.enumerated() where l.kind == "cue_display" || l.kind == "script_card" {"#,
      #"    let records = parsed.filter { $0.kind == "cue_eval" && abs($0.t - d.t) <= 500 }"#,
      #"    if recordKind == "prompt" { return "prompt changed" }"#,
      #"    guard out != "cue_eval" else { return }"#,
      #"    let identity: String? = ["item": "shot", "prompt": "key", "effect": "kind"][m.kind]"#,
      #"      guard let v = try? JSONParser.parse(String(line)), v["out"]?.stringValue == "prompt","#,
      #"    launches: { $0.kindName == "app_launch" },"#,
      #"    if ["cue_display", "script_card"].contains(l.kind) { n += 1 }"#,
      #"    if "tier" == line.out { n += 1 }"#,
    ]
    for line in bad {
      #expect(Self.stringDispatchLines(line).count == 1, "not seen: \(line)")
    }
    let switchText = """
        switch l.kind {
        case "cue_display": return "cue_display"
        default: return ""
        }
      """
    #expect(Self.stringDispatchLines(switchText).map(\.line) == [1])
    let good = [
      "      guard let kind = l.trace.kind, kind.showsCue else { continue }",
      "    let identity = OutputKind(rawValue: m.kind)?.identityField?.rawValue",
      "    switch OutputKind(rawValue: kind) {\n    case .cue_display where displays.count < cap: break\n    default: break\n    }",
      #"    // a comment may say l.kind == "cue_display""#,
      #"      switch v[.op]?.stringValue {"# + "\n" + #"      case "shown": break"# + "\n      default: break\n      }",
    ]
    for text in good {
      #expect(Self.stringDispatchLines(text).isEmpty, "flagged: \(text)")
    }
  }

  /// Issue 36: typed from decode to `handle`. A Just Photo event is decoded into its typed form
  /// once, when a reader makes it (`TypedEvent.init` through `JustPhotoEvents.decode`); nothing else decodes event JSON into
  /// a `CoachEvent`, and the engine's sources never see an event's fields.
  @Test("events are typed from decode to handle: GenericEvent is gone, one place decodes fields, the engine reads none")
  func eventsAreTypedFromDecodeToHandle() throws {
    let files = SourceRulesTests.swiftFiles(under: "Sources")
    var generic: [String] = []
    var decoders: [String] = []
    var engineReads: [String] = []
    for f in files {
      let text = try String(contentsOf: SourceRulesTests.repoRoot.appendingPathComponent(f), encoding: .utf8)
      for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        let c = Self.code(line)
        if c.contains("Generic" + "Event") || c.contains("case .gen" + "eric") { generic.append("\(f):\(n + 1)") }
        if c.contains("CoachEvent(decoding: kind, fields:") { decoders.append(f) }
        if f.hasPrefix("Sources/JustPhotoEngine/"), c.contains(".json" + "Fields") || c.contains("payload: .just" + "Photo") {
          engineReads.append("\(f):\(n + 1)")
        }
      }
    }
    #expect(generic == [])
    #expect(decoders == ["Sources/JustPhotoIO/Events/JustPhotoEvent.swift"])
    #expect(engineReads == [])
  }

  /// Issue 36: Recording reads a recording's kinds (channel, import fields, decoding) through
  /// the engine-agnostic `EventDefinitions` its caller hands it (the engine's plug-in or
  /// vocabulary), never through Just Photo's definition types, and names no engine's
  /// vocabulary itself: not even as a default.
  @Test("Recording names no engine's event vocabulary, not even as a default; its readers are handed one")
  func recordingReadsKindsThroughEventDefinitions() throws {
    // Its kind table, its hot kinds and whether events are named come from the definitions too:
    // no `EventKind`, no engine name (`justPhotoEngineName`, nor `"justphoto"` as a literal).
    let words = [
      "EventDefinition", "EventFieldSpec", "EventChannel", "EventReader", "CoachEvent", "JustPhotoEvent", "JustPhotoEvents",
      "EventKind", "justPhotoEngineName",
    ]
    var found: [String] = []
    for f in SourceRulesTests.swiftFiles(under: "Sources/Recording") {
      let text = try String(contentsOf: SourceRulesTests.repoRoot.appendingPathComponent(f), encoding: .utf8)
      for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        let c = Self.code(line)
        let tokens = c.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).map(String.init)
        for w in words where tokens.contains(w) { found.append("\(f):\(n + 1): \(w)") }
        // `.definition` is Just Photo's kind definition; `.definitions` the handed ones.
        if c.replacingOccurrences(of: ".definitions", with: "").contains(".definition") || c.contains("eventChannel") { found.append("\(f):\(n + 1): definition") }
        if c.contains(#""justphoto""#) { found.append("\(f):\(n + 1): \"justphoto\"") }
      }
    }
    #expect(found == [])
  }
}
