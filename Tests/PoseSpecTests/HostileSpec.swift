import CanonicalJSON
import Foundation
import PoseSpec

/// Hostile PoseSpecs generated in code from the project's PoseSpec.json (nothing big is
/// committed): edits of the parsed document, and raw text splices for what a `JSONValue`
/// cannot hold (duplicate keys, nesting deeper than the parser accepts).
enum HostileSpec {
  static let projectURL: URL = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("PoseSpec.json")

  static func projectBytes() throws -> [UInt8] { [UInt8](try Data(contentsOf: projectURL)) }

  static func projectObject() throws -> JSONObject {
    try JSONParser.parse(bytes: projectBytes()).objectValue!
  }

  /// The project spec with `mutate` applied, serialized.
  static func mutated(_ mutate: (inout JSONObject) throws -> Void) throws -> [UInt8] {
    var root = try projectObject()
    try mutate(&root)
    return Array(JSONWriter.write(.object(root)).utf8)
  }

  /// The project spec with the value at `path` replaced by the raw JSON text `raw` (a
  /// placeholder string is written there, then swapped for the text).
  static func splicing(_ raw: String, at path: [String]) throws -> [UInt8] {
    let marker = "@@HOSTILE@@"
    let text = String(decoding: try mutated { set(.string(marker), at: path, in: &$0) }, as: UTF8.self)
    return Array(text.replacingOccurrences(of: "\"\(marker)\"", with: raw).utf8)
  }

  /// Index of the cue with `id` in the project spec.
  static func cueIndex(_ id: String) throws -> Int {
    try projectObject()["cues"]!.arrayValue!.firstIndex { $0["id"]?.stringValue == id }!
  }

  /// Loads `bytes`; the validation error, or nil when the spec loads.
  static func failure(_ bytes: [UInt8], fileName: String = "hostile.json") -> PoseSpecValidationError? {
    do {
      _ = try PoseSpecLoader.load(bytes: bytes, fileName: fileName)
      return nil
    } catch { return error }
  }

  /// Sets (or with nil removes) the value at `path` (``SpecFixtures/set(_:at:in:)``).
  static func set(_ value: JSONValue?, at path: [String], in root: inout JSONObject) {
    SpecFixtures.set(value, at: path, in: &root)
  }

  /// Appends binding aliases (new names; appended directly, so thousands stay linear).
  static func addAliases(_ aliases: [(String, String)], in root: inout JSONObject) {
    guard !aliases.isEmpty else { return }
    var binding = root["binding"]!.objectValue!
    var table = binding["aliases"]!.objectValue!
    table.members.append(contentsOf: aliases.map { JSONMember($0.0, .string($0.1)) })
    binding["aliases"] = .object(table)
    root["binding"] = .object(binding)
  }

  /// Runs `body` on a thread with a `stackKiB` stack and waits for it: a stack overflow there
  /// kills the test process, so a test that returns proved the work fits that stack.
  static func onThread<T: Sendable>(stackKiB: Int, _ body: @escaping @Sendable () -> T) -> T {
    let box = ThreadResult<T>()
    let thread = Thread {
      box.value = body()
      box.done.signal()
    }
    thread.stackSize = stackKiB << 10
    thread.start()
    box.done.wait()
    return box.value!
  }
}

/// The result of `HostileSpec.onThread`, handed from the worker thread after a semaphore.
final class ThreadResult<T>: @unchecked Sendable {
  var value: T?
  let done = DispatchSemaphore(value: 0)
}
