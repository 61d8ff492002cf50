import Foundation
import Testing

/// Every section (`§x.y`) and gap id (`G-nn`) cited in Sources, docs, Tests, scripts and README
/// exists in the repository's own behaviour reference, docs/ENGINE.md (issue 25.6): a heading for
/// a section, a row of §8 for a gap, a row of Appendix P for `PRD §x`, a row of Appendix D for
/// `DESIGN §n`; `FORMAT-jprec.md §n` must be a heading of docs/FORMAT-jprec.md. Gap ids use one
/// hyphen, the ASCII one. Only files of this repository are read.
@Suite("Architecture: citations resolve in docs/ENGINE.md")
struct ReferenceCitationTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// The trees and files whose text is scanned.
  static let scanned = ["Sources", "docs", "Tests", "scripts", "README.md"]

  /// The document a citation points into.
  enum Document: String, Sendable {
    case engine = "ENGINE", prd = "PRD", design = "DESIGN", formatJprec = "FORMAT-jprec.md"
  }

  /// One citation: where it is and what it names (`id` is "3.4.1", "A.13", or "G-14" for a gap).
  struct Citation: Equatable, CustomStringConvertible {
    var file: String
    var line: Int
    var document: Document?  // nil for a gap id
    var id: String
    var description: String {
      "\(file):\(line): \(document.map { "\($0.rawValue) §\(id)" } ?? id)"
    }
  }

  /// What the reference defines.
  struct Index {
    var engine: Set<String> = []
    var gaps: Set<String> = []
    var prd: Set<String> = []
    var design: Set<String> = []
    var formatJprec: Set<String> = []

    func defines(_ c: Citation) -> Bool {
      switch c.document {
      case nil: gaps.contains(c.id)
      case .engine: engine.contains(c.id)
      case .prd: prd.contains(c.id)
      case .design: design.contains(c.id)
      case .formatJprec: formatJprec.contains(c.id)
      }
    }
  }

  // MARK: - Parsing

  /// Section numbers of markdown headings: `## 3. Cue evaluation` → "3", `#### 3.4.1 …` → "3.4.1".
  static func headingNumbers(_ text: String) -> Set<String> {
    var out: Set<String> = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      guard line.hasPrefix("#") else { continue }
      let rest = line.drop { $0 == "#" }.drop { $0 == " " }
      var number = String(rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") })
      while number.hasSuffix(".") { number.removeLast() }
      if !number.isEmpty, number.first!.isNumber { out.insert(number) }
    }
    return out
  }

  /// First cells of table rows that start with `prefix`: `| PRD §A.13 | …` → "A.13".
  static func rowIds(_ text: String, prefix: String) -> Set<String> {
    var out: Set<String> = []
    for line in text.split(separator: "\n") where line.hasPrefix("| \(prefix)") {
      let cell = line.dropFirst(2 + prefix.count).prefix { $0 != " " && $0 != "|" }
      if !cell.isEmpty { out.insert(String(cell)) }
    }
    return out
  }

  static func index(engineMD: String, formatJprecMD: String) -> Index {
    Index(
      engine: headingNumbers(engineMD),
      gaps: Set(rowIds(engineMD, prefix: "G-").map { "G-\($0)" }),
      prd: rowIds(engineMD, prefix: "PRD §"), design: rowIds(engineMD, prefix: "DESIGN §"),
      formatJprec: headingNumbers(formatJprecMD))
  }

  /// Separators that continue a list of citations of one document: `PRD §6.1.3, §6.1.4`.
  static let listSeparators: Set<String> = [",", ", ", " and ", " or ", "/", " / ", "–", "-"]

  /// Every citation in `text`. A section id is `§` then `[A-Z0-9]+(\.[0-9]+)*`; the word before
  /// it names its document (PRD, DESIGN, ENGINE, FORMAT-jprec.md), else it continues a list and
  /// keeps the list's document, else an id starting with a letter is an appendix of the PRD and
  /// anything else a section of ENGINE.md. A gap id is `G-` and digits, not inside a word.
  static func citations(in text: String, file: String) -> [Citation] {
    var out: [Citation] = []
    for (n, lineSub) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let line = Array(lineSub)
      var i = 0
      var previousEnd: Int? = nil
      var previousDocument: Document? = nil
      while i < line.count {
        let c = line[i]
        if c == "§" {
          var j = i + 1
          var id = ""
          while j < line.count, line[j].isASCII, line[j].isUppercase || line[j].isNumber {
            id.append(line[j]); j += 1
          }
          while j + 1 < line.count, line[j] == ".", line[j + 1].isASCII, line[j + 1].isNumber {
            id.append("."); j += 1
            while j < line.count, line[j].isASCII, line[j].isNumber { id.append(line[j]); j += 1 }
          }
          if id.isEmpty { i += 1; continue }
          let before = String(line[..<i])
          var document: Document
          if let named = namedDocument(before: before) {
            document = named
          } else if let end = previousEnd, let prev = previousDocument,
            listSeparators.contains(String(line[end..<i]))
          {
            document = prev
          } else {
            document = id.first!.isLetter ? .prd : .engine
          }
          out.append(Citation(file: file, line: n + 1, document: document, id: id))
          previousEnd = j
          previousDocument = document
          i = j
          continue
        }
        if c == "G", i + 2 < line.count, line[i + 1] == "-", line[i + 2].isASCII, line[i + 2].isNumber,
          i == 0 || !(line[i - 1].isLetter || line[i - 1].isNumber || line[i - 1] == "_")
        {
          var j = i + 2
          var digits = ""
          while j < line.count, line[j].isASCII, line[j].isNumber { digits.append(line[j]); j += 1 }
          let inWord = j < line.count && (line[j].isLetter || line[j] == "_")
          if !inWord { out.append(Citation(file: file, line: n + 1, document: nil, id: "G-\(digits)")) }
          i = j
          continue
        }
        i += 1
      }
    }
    return out
  }

  /// The document named right before a `§` (`PRD §`, `DESIGN §`, `docs/FORMAT-jprec.md §`).
  static func namedDocument(before: String) -> Document? {
    let trimmed = before.hasSuffix(" ") ? String(before.dropLast()) : before
    for d in [Document.prd, .design, .engine, .formatJprec] {
      let names = d == .formatJprec ? ["FORMAT-jprec.md", "FORMAT-jprec"] : [d.rawValue]
      for name in names where trimmed.hasSuffix(name) {
        let start = trimmed.index(trimmed.endIndex, offsetBy: -name.count)
        let prior = start == trimmed.startIndex ? nil : trimmed[trimmed.index(before: start)]
        if prior == nil || !(prior!.isLetter || prior!.isNumber) { return d }
      }
    }
    return nil
  }

  // MARK: - The repository

  /// Text files under the scanned roots, relative paths, sorted (binary files skipped).
  static func scannedFiles() -> [(path: String, text: String)] {
    var paths: [String] = []
    for entry in scanned {
      let url = root.appendingPathComponent(entry)
      var isDir: ObjCBool = false
      guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir) else { continue }
      if !isDir.boolValue { paths.append(entry); continue }
      let e = FileManager.default.enumerator(atPath: url.path)
      while let p = e?.nextObject() as? String {
        var sub: ObjCBool = false
        let full = url.appendingPathComponent(p).path
        if FileManager.default.fileExists(atPath: full, isDirectory: &sub), !sub.boolValue {
          paths.append("\(entry)/\(p)")
        }
      }
    }
    return paths.sorted().compactMap { p in
      guard let data = FileManager.default.contents(atPath: root.appendingPathComponent(p).path),
        !data.contains(0), let text = String(data: data, encoding: .utf8)
      else { return nil }
      return (p, text)
    }
  }

  static func read(_ relative: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
  }

  // MARK: - Tests

  @Test("every § section and G-nn gap cited in Sources, docs, Tests, scripts and README is defined in docs/ENGINE.md")
  func everyCitationResolves() throws {
    let index = Self.index(engineMD: try Self.read("docs/ENGINE.md"), formatJprecMD: try Self.read("docs/FORMAT-jprec.md"))
    let files = Self.scannedFiles()
    #expect(files.count > 300, "the scan found \(files.count) files; is the repository root right?")
    let all = files.flatMap { Self.citations(in: $0.text, file: $0.path) }
    #expect(all.count > 1000, "only \(all.count) citations found; is the scanner broken?")
    let unresolved = all.filter { !index.defines($0) }
    #expect(unresolved.isEmpty, "citations docs/ENGINE.md does not define:\n\(unresolved.map(\.description).joined(separator: "\n"))")
  }

  @Test("docs/ENGINE.md has sections §0–§8, every gap G-1…G-55 and the PRD/DESIGN appendices")
  func referenceIsComplete() throws {
    let index = Self.index(engineMD: try Self.read("docs/ENGINE.md"), formatJprecMD: try Self.read("docs/FORMAT-jprec.md"))
    for top in 0...8 { #expect(index.engine.contains("\(top)"), "§\(top) missing") }
    for n in 1...55 { #expect(index.gaps.contains("G-\(n)"), "G-\(n) missing") }
    #expect(index.prd.contains("A.13") && index.prd.count >= 20, "\(index.prd.sorted())")
    #expect(index.design == Set((1...9).map(String.init)), "\(index.design.sorted())")
    // Each section and gap is defined once (a pasted second copy would hide edits to the first).
    let text = try Self.read("docs/ENGINE.md")
    var seen: [String: Int] = [:]
    for line in text.split(separator: "\n") where line.hasPrefix("#") || line.hasPrefix("| G-") {
      let key = line.hasPrefix("#") ? Self.headingNumbers(String(line)).first : Self.rowIds(String(line), prefix: "G-").first
      if let key { seen[line.hasPrefix("#") ? "§\(key)" : "G-\(key)", default: 0] += 1 }
    }
    #expect(seen.filter { $0.value > 1 }.keys.sorted() == [], "defined more than once")
  }

  @Test("gap ids use the ASCII hyphen (no U+2010…U+2015 or U+2212 after G)")
  func oneHyphenStyle() {
    let odd: Set<Character> = ["\u{2010}", "\u{2011}", "\u{2012}", "\u{2013}", "\u{2014}", "\u{2015}", "\u{2212}"]
    var offenders: [String] = []
    for (path, text) in Self.scannedFiles() {
      for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        let chars = Array(line)
        for i in chars.indices.dropLast(2)
        where chars[i] == "G" && odd.contains(chars[i + 1]) && chars[i + 2].isASCII && chars[i + 2].isNumber {
          offenders.append("\(path):\(n + 1)")
        }
      }
    }
    #expect(offenders.isEmpty, "gap ids with a non-ASCII hyphen:\n\(offenders.joined(separator: "\n"))")
  }

  /// The scanner is not vacuous: it finds an undefined section, an undefined gap and an
  /// undefined PRD section, keeps a list's document, and accepts what the index defines.
  @Test("the scanner reports undefined citations with file and line, and reads lists and prefixes")
  func scannerCatchesUndefinedCitations() {
    let engine = """
      ## 3. Cue evaluation
      ### 3.4 Availability
      #### 3.4.1 Inputs
      | G-5 | a gap | a decision |
      | PRD §6.1.2 | capture failures | §5.8 |
      | DESIGN §4 | traces | FORMAT.md |
      """
    let index = Self.index(engineMD: engine, formatJprecMD: "## 2. Tables\n### 2.1 Limits\n")
    #expect(index.engine == ["3", "3.4", "3.4.1"])
    #expect(index.gaps == ["G-5"] && index.prd == ["6.1.2"] && index.design == ["4"])

    // The undefined ones are spelled `@` for `§` and `G~` for `G-` here, so this file itself
    // passes the repository scan.
    func planted(_ s: String) -> String {
      s.replacingOccurrences(of: "@", with: "§").replacingOccurrences(of: "G~", with: "G-")
    }
    let source = planted("""
      // ok: §3.4.1 and §3.4, G-5, PRD §6.1.2, DESIGN §4 and docs/FORMAT-jprec.md §2.1
      // bad: @9.9 then G~77
      /// list: (PRD §6.1.2, §6.1.3) and mixed (PRD §6.1.2; ENGINE §3.4) and §B.4.3
      let s = "JPEG-1 SHA-256 G-5x"
      """)
    let found = Self.citations(in: source, file: "X.swift")
    #expect(found.map(\.description) == [
      "X.swift:1: ENGINE §3.4.1", "X.swift:1: ENGINE §3.4", "X.swift:1: G-5", "X.swift:1: PRD §6.1.2",
      "X.swift:1: DESIGN §4", "X.swift:1: FORMAT-jprec.md §2.1",
      planted("X.swift:2: ENGINE @9.9"), planted("X.swift:2: G~77"),
      "X.swift:3: PRD §6.1.2", "X.swift:3: PRD §6.1.3", "X.swift:3: PRD §6.1.2", "X.swift:3: ENGINE §3.4",
      "X.swift:3: PRD §B.4.3",
    ])
    let unresolved = found.filter { !index.defines($0) }.map(\.description)
    #expect(unresolved == [planted("X.swift:2: ENGINE @9.9"), planted("X.swift:2: G~77"), "X.swift:3: PRD §6.1.3", "X.swift:3: PRD §B.4.3"])
  }
}
