import CanonicalJSON
import Foundation

/// Paths and mutated copies of the PoseSpecs the tests load.
///
/// Everything lives in the repository: the app's reference PoseSpec is committed as
/// `Tests/Fixtures/reference-posespec.json` (the app's facts, the project's prose, placeholder card lines). Both are
/// found from `#filePath` (symlinks resolved, so a private package that links the test folders
/// finds them too).
enum SpecFixtures {
  static let repoRoot: URL = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let referenceURL = repoRoot.appendingPathComponent("Tests/Fixtures/reference-posespec.json")
  static let projectURL = repoRoot.appendingPathComponent("PoseSpec.json")

  static func bytes(_ url: URL) throws -> [UInt8] { [UInt8](try Data(contentsOf: url)) }

  static func referenceObject() throws -> JSONObject {
    try JSONParser.parse(bytes: bytes(referenceURL)).objectValue!
  }

  /// The reference spec with `mutate` applied, serialized.
  static func mutatedReference(_ mutate: (inout JSONObject) -> Void) throws -> [UInt8] {
    var root = try referenceObject()
    mutate(&root)
    return Array(JSONWriter.write(.object(root)).utf8)
  }

  /// Sets (or with nil removes) the value at `path` (object keys; numeric strings index arrays).
  static func set(_ value: JSONValue?, at path: [String], in root: inout JSONObject) {
    var v = JSONValue.object(root)
    set(value, at: path[...], in: &v)
    root = v.objectValue!
  }

  static func set(_ value: JSONValue?, at path: ArraySlice<String>, in node: inout JSONValue) {
    guard let key = path.first else { return }
    let rest = path.dropFirst()
    switch node {
    case .object(var o):
      if rest.isEmpty {
        o[key] = value
      } else {
        var child = o[key] ?? .object([:])  // a missing object on the way is created
        set(value, at: rest, in: &child)
        o[key] = child
      }
      node = .object(o)
    case .array(var a):
      let i = Int(key)!
      if rest.isEmpty {
        if let value { a[i] = value } else { a.remove(at: i) }
      } else {
        set(value, at: rest, in: &a[i])
      }
      node = .array(a)
    default:
      fatalError("path \(path) runs through a \(node.typeName)")
    }
  }
}
