import Foundation
import Testing

/// The public API that app teams build against is documented (issue 25 item 9): in EngineIO
/// (the event vocabulary), Recording (the readers and writers) and JPReplayTesting, and — for
/// whoever adds an engine (issue 36 item 4) — the seam and the harness it plugs into
/// (EngineSeam, Replay, Verify), at least 90% of the `public`/`open` declarations carry a doc
/// comment. Plumbing that only this
/// package's modules use is `package`, and is not counted.
@Suite("Public API documentation")
struct APIDocTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// The modules whose public API is held to ``requiredShare``.
  static let modules = ["EngineIO", "EngineSeam", "Recording", "Replay", "Verify", "JPReplayTesting"]
  /// The least share of documented public declarations per module.
  static let requiredShare = 0.9

  /// One `public` or `open` declaration line.
  struct Declaration: Equatable {
    /// 1-based line number.
    var line: Int
    /// The declaration line, trimmed.
    var text: String
    var documented: Bool
  }

  /// `line` without its leading attributes (`@inlinable`, `@exclusivity(unchecked)`,
  /// `@available(*, deprecated, message: "…")`) and the blanks after them; nil when what
  /// starts like an attribute is not one (an unbalanced parenthesis).
  static func strippingAttributes(_ line: Substring) -> Substring? {
    var rest = line.drop { $0 == " " || $0 == "\t" }
    while rest.first == "@" {
      rest = rest.dropFirst().drop { $0.isLetter || $0.isNumber || $0 == "_" }
      if rest.first == "(" {
        var depth = 0
        var inString = false
        var end: Substring.Index? = nil
        for i in rest.indices {
          let c = rest[i]
          if c == "\"" { inString.toggle() }
          if inString { continue }
          if c == "(" { depth += 1 }
          if c == ")" {
            depth -= 1
            if depth == 0 {
              end = i
              break
            }
          }
        }
        guard let end else { return nil }
        rest = rest[rest.index(after: end)...]
      }
      rest = rest.drop { $0 == " " || $0 == "\t" }
    }
    return rest
  }

  /// The public declarations of one Swift source text. A declaration is a line that starts,
  /// after any attributes, with `public ` or `open ` (`public import` and `public extension`
  /// lines do not count: an extension's members are counted themselves). It is documented
  /// when the nearest line above it that is not just attributes is a `///` comment or ends a
  /// `/** … */` block. Lines inside block comments or multi-line strings are not told apart:
  /// the sources this runs on keep declarations out of both.
  static func declarations(in text: String) -> [Declaration] {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    var found: [Declaration] = []
    for (i, line) in lines.enumerated() {
      guard let rest = strippingAttributes(line),
        rest.hasPrefix("public ") || rest.hasPrefix("open ")
      else { continue }
      let words = rest.split(separator: " ", maxSplits: 2)
      if words.count > 1, words[1] == "import" || words[1] == "extension" { continue }
      var j = i - 1
      while j >= 0, lines[j].trimmingCharacters(in: .whitespaces).hasPrefix("@"),
        strippingAttributes(lines[j])?.isEmpty == true
      {
        j -= 1
      }
      let above = j >= 0 ? lines[j].trimmingCharacters(in: .whitespaces) : ""
      found.append(
        Declaration(
          line: i + 1, text: line.trimmingCharacters(in: .whitespaces),
          documented: above.hasPrefix("///") || above.hasSuffix("*/")))
    }
    return found
  }

  /// Every public declaration of `Sources/<module>`, as `(file, declaration)`, files sorted.
  static func declarations(ofModule module: String) throws -> [(file: String, declaration: Declaration)] {
    let base = root.appendingPathComponent("Sources/\(module)")
    let e = FileManager.default.enumerator(atPath: base.path)
    var files: [String] = []
    while let p = e?.nextObject() as? String {
      if p.hasSuffix(".swift") { files.append(p) }
    }
    var out: [(file: String, declaration: Declaration)] = []
    for f in files.sorted() {
      let text = try String(contentsOf: base.appendingPathComponent(f), encoding: .utf8)
      out += declarations(in: text).map { ("Sources/\(module)/\(f)", $0) }
    }
    return out
  }

  @Test("EngineIO, EngineSeam, Recording, Replay, Verify and JPReplayTesting document at least 90% of their public declarations",
    arguments: APIDocTests.modules)
  func publicAPIDocumented(module: String) throws {
    let all = try Self.declarations(ofModule: module)
    #expect(!all.isEmpty, "no public declaration found under Sources/\(module); is the repository root right?")
    let undocumented = all.filter { !$0.declaration.documented }
    let share = Double(all.count - undocumented.count) / Double(max(all.count, 1))
    let list = undocumented.map { "  \($0.file):\($0.declaration.line): \($0.declaration.text)" }
    #expect(
      share >= Self.requiredShare,
      """
      \(module): \(all.count - undocumented.count) of \(all.count) public declarations documented \
      (\(Int((share * 100).rounded(.down)))%, at least \(Int(Self.requiredShare * 100))% required); \
      write a /// comment (what the value means, units, limits) or make plumbing `package`:
      \(list.joined(separator: "\n"))
      """)
  }

  /// Lab is not a product (issue 36 item 4): only `jpreplay` and the tests use it, so its
  /// declarations are `package`, and none is `public` or `open` — the public API stays the
  /// products' (Package.swift lists no Lab library).
  @Test func labDeclaresNothingPublic() throws {
    let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
    #expect(!manifest.contains(".library(name: \"Lab\""), "Lab became a product; hold its public API to requiredShare instead")
    let all = try Self.declarations(ofModule: "Lab")
    let list = all.prefix(20).map { "  \($0.file):\($0.declaration.line): \($0.declaration.text)" }
    #expect(all.isEmpty, "Lab is used only by jpreplay and the tests; make these `package`:\n\(list.joined(separator: "\n"))")
  }

  /// The counter is not vacuous: on a sample it finds each kind of declaration, skips
  /// attribute lines between a comment and its declaration, and ignores imports, extensions,
  /// `package` declarations and text that merely contains `public`.
  /// Every requirement of the seam's protocols (`EngineVocabulary`, `SeamEngine`) is documented
  /// with an example, and every one that takes a value or returns one says what with
  /// `- Parameter(s):` / `- Returns:` (issue 36 item 4: a newcomer writes an engine from them).
  @Test func seamRequirementsDocumentParametersReturnsAndAnExample() throws {
    var problems: [String] = []
    for file in ["Sources/EngineSeam/EngineVocabulary.swift", "Sources/EngineSeam/SeamEngine.swift"] {
      let lines = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
        .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      var inProtocol = false
      var requirements = 0
      for (i, line) in lines.enumerated() {
        if line.hasPrefix("public protocol EngineVocabulary") || line.hasPrefix("public protocol SeamEngine") {
          inProtocol = true
          continue
        }
        if inProtocol && line == "}" { inProtocol = false }
        let code = line.trimmingCharacters(in: .whitespaces)
        guard inProtocol, code.hasPrefix("static ") || code.hasPrefix("mutating func ") else { continue }
        requirements += 1
        var doc: [String] = []
        var j = i - 1
        while j >= 0, lines[j].trimmingCharacters(in: .whitespaces).hasPrefix("///") {
          doc.insert(lines[j], at: 0)
          j -= 1
        }
        let text = doc.joined(separator: "\n")
        let takesValue = code.contains("func ") && !code.contains("()")
        let returnsValue = code.contains("func ") && code.contains("->")
        if !text.contains("Example") { problems.append("\(file):\(i + 1): no example: \(code)") }
        if takesValue && !text.contains("- Parameter") { problems.append("\(file):\(i + 1): no - Parameters: \(code)") }
        if returnsValue && !text.contains("- Returns:") { problems.append("\(file):\(i + 1): no - Returns: \(code)") }
      }
      #expect(requirements >= 4, "\(file): found \(requirements) requirements; has the protocol moved?")
    }
    #expect(problems == [])
  }

  @Test func counterReadsDeclarationsAndTheirComments() {
    // The import line is assembled so that scripts/check-imports does not read it as one.
    let importLine = "public" + " import Foo\n"
    let sample = importLine + """
      /// A documented struct.
      public struct A {
        public var undocumented: Int
        /// Documented, an attribute line between.
        @inlinable
        public func f() {}
        /** Documented by a block comment. */
        public init() {}
        @exclusivity(unchecked) public private(set) var attributed: Int
        // A plain comment is not a doc comment.
        public var plain: Int
        package var plumbing: Int
        let s = "public var notADeclaration"
      }
      public extension A {}
      /// Documented across an attribute with parentheses in a string.
      @available(*, deprecated, message: "use g() (or h())")
      open func g() {}
      """
    let found = APIDocTests.declarations(in: sample)
    #expect(found.map(\.line) == [3, 4, 7, 9, 10, 12, 19])
    #expect(found.filter(\.documented).map(\.line) == [3, 7, 9, 19])
    #expect(found.first { $0.line == 10 }?.text == "@exclusivity(unchecked) public private(set) var attributed: Int")
  }
}
