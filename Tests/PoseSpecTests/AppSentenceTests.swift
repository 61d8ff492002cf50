import CanonicalJSON
import Foundation
import Testing

/// The project may carry the original app's facts and numbers, never its sentences (issue 36):
/// no file of `Tests/Fixtures` or `Recordings/specs`, nor `PoseSpec.json` or
/// `docs/tuned/PoseSpec.json`, carries a card line of the app's PoseSpec.
///
/// The check keeps a hash list, not a shape rule: `Tests/Fixtures/app-sentences.sha256` holds the
/// SHA-256 of each app card line the fixture carried (the sentences themselves are nowhere in the
/// repository). A shape rule ("no Chinese", "no sentence-like string") cannot tell the app's
/// wording from the project's own — the project's specs carry their own Chinese and English card
/// lines — while a hash names exactly the sentences that must not come back, whatever file they
/// are pasted into and with no false alarm on new wording. Each JSON string value is checked
/// whole and piece by piece between quote marks (a note quoting a card line), each line of
/// another file likewise.
@Suite("no sentence of the original app")
struct AppSentenceTests {
  static let hashListURL = SpecFixtures.repoRoot.appendingPathComponent("Tests/Fixtures/app-sentences.sha256")

  /// The hex hashes of the list (comment lines start with `#`).
  static func hashList() throws -> Set<String> {
    let text = try String(contentsOf: hashListURL, encoding: .utf8)
    return Set(
      text.split(separator: "\n").map(String.init).filter { !$0.isEmpty && !$0.hasPrefix("#") })
  }

  /// The files checked: every regular file under Tests/Fixtures and Recordings/specs (the frozen
  /// base spec scenarios derive from), and the project's two PoseSpecs.
  static func checkedFiles() throws -> [URL] {
    let root = SpecFixtures.repoRoot
    var files = [root.appendingPathComponent("PoseSpec.json"), root.appendingPathComponent("docs/tuned/PoseSpec.json")]
    for folder in ["Tests/Fixtures", "Recordings/specs"] {
      let url = root.appendingPathComponent(folder)
      let names = try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
      files += names.map { url.appendingPathComponent($0) }
    }
    return files.filter { FileManager.default.fileExists(atPath: $0.path) }
  }

  /// The texts of one file that could be a sentence: a JSON file's string values, another file's lines.
  static func texts(of bytes: [UInt8], json: Bool) -> [String] {
    if json, let value = try? JSONParser.parse(bytes: bytes) {
      var out: [String] = []
      collect(value, into: &out)
      return out
    }
    return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
  }

  static func collect(_ value: JSONValue, into out: inout [String]) {
    switch value {
    case .string(let s): out.append(s)
    case .array(let items): for item in items { collect(item, into: &out) }
    case .object(let object):
      for member in object.members {
        out.append(member.key)
        collect(member.value, into: &out)
      }
    default: break
    }
  }

  /// A text whole and each piece of it between quote marks, trimmed, each once.
  static func candidates(_ text: String) -> [String] {
    let quotes: Set<Character> = ["'", "\"", "\u{2018}", "\u{2019}", "\u{201C}", "\u{201D}", "「", "」"]
    let pieces = text.split(whereSeparator: { quotes.contains($0) }).map(String.init)
    var seen = Set<String>()
    return ([text] + pieces).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
      .filter { !$0.isEmpty && seen.insert($0).inserted }
  }

  /// The places (`file: text hash`) whose text hashes to one of `hashes`.
  static func findings(in files: [URL], hashes: Set<String>) throws -> [String] {
    var found: [String] = []
    for file in files {
      let bytes = try SpecFixtures.bytes(file)
      for text in texts(of: bytes, json: file.pathExtension == "json") {
        for candidate in candidates(text) where hashes.contains(SHA256.hex(candidate)) {
          found.append("\(file.lastPathComponent): a string hashing to \(SHA256.hex(candidate).prefix(12))…")
        }
      }
    }
    return found
  }

  @Test("the hash list holds the 290 distinct app card lines, as 64-digit hex")
  func theListIsWhole() throws {
    let hashes = try Self.hashList()
    #expect(hashes.count == 290)
    #expect(hashes.allSatisfy { $0.count == 64 && $0.allSatisfy(\.isHexDigit) })
  }

  @Test("Tests/Fixtures, Recordings/specs, PoseSpec.json and docs/tuned/PoseSpec.json carry no card line of the app")
  func noAppSentence() throws {
    let files = try Self.checkedFiles()
    #expect(files.contains { $0.lastPathComponent == "reference-posespec.json" })
    #expect(files.contains { $0.path.hasSuffix("docs/tuned/PoseSpec.json") })
    #expect(files.contains { $0.path.hasSuffix("Recordings/specs/PoseSpec-base.json") })
    let found = try Self.findings(in: files, hashes: Self.hashList())
    #expect(found.isEmpty, "\(found)")
  }

  @Test("a planted sentence is found as a JSON value, quoted inside a note, and as a line")
  func plantedSentenceIsFound() throws {
    let planted = "Planted card line for the test"
    let hashes: Set<String> = [SHA256.hex(planted)]
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("app-sentence-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let value = folder.appendingPathComponent("value.json")
    let quoted = folder.appendingPathComponent("quoted.json")
    let lines = folder.appendingPathComponent("lines.txt")
    let clean = folder.appendingPathComponent("clean.json")
    try Data(#"{"script": {"en": ["\#(planted)"]}}"#.utf8).write(to: value)
    try Data(#"{"notes": ["the card '\#(planted)' stays 5s"]}"#.utf8).write(to: quoted)
    try Data("first\n  \(planted)  \nlast\n".utf8).write(to: lines)
    try Data(#"{"script": {"en": ["Planted card line for the test, reworded"]}}"#.utf8).write(to: clean)
    #expect(try Self.findings(in: [value], hashes: hashes).count == 1)
    #expect(try Self.findings(in: [quoted], hashes: hashes).count == 1)
    #expect(try Self.findings(in: [lines], hashes: hashes).count == 1)
    #expect(try Self.findings(in: [clean], hashes: hashes).isEmpty)
  }
}
