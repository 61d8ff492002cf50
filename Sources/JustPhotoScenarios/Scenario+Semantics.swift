import ScenarioYAML
import Foundation
import CanonicalJSON
import EngineIO
import JustPhotoIO
import Yams

/// What a scenario means, apart from how it is written (DESIGN §8, issue 15): the SHA-256 the
/// recording's header carries as `generator_sha256`, which `jpreplay verify` compares to call a
/// recording stale.
///
/// The hash is taken over one canonical JSON document (`JSONWriter`, members sorted by key at
/// every depth):
///
/// ```json
/// {"document": <the YAML document as JSON, without `expect`>,
///  "specs": [<SHA-256 of each derived PoseSpec, in file order>]}
/// ```
///
/// so comments, blank lines, quoting, flow or block style, key order and `1.0` vs `1` do not
/// count, while every value does — and so does the content of a spec file a derivation reads
/// (`from:`), through its expansion. The `expect:` block is left out: it states what the replay
/// should show and is checked by `verify` against the replay; it does not change the recording.
extension Scenario {
  /// The semantic SHA-256 of a parsed document (`root`) whose derived specs are `specs`.
  static func semanticSHA256(root: YNode, specs: [JSONValue]) -> String {
    var document = canonical(root.node)
    if case .object(var o) = document {
      o["expect"] = nil
      document = .object(o)
    }
    let doc = JSONObject([
      JSONMember("document", document),
      JSONMember("specs", .array(specs.map { .string(SHA256.hex(JSONWriter.write($0))) })),
    ])
    return SHA256.hex(JSONWriter.write(.object(doc.sortedRecursively())))
  }

  /// The derived PoseSpecs of a parsed scenario: `initial.posespec` and each
  /// `posespec_reload` event's `spec`, in file order.
  var derivedSpecs: [JSONValue] {
    var out: [JSONValue] = []
    if let p = initial["posespec"] { out.append(p) }
    for e in timeline {
      if case .event(_, let line) = e, line["kind"]?.stringValue.flatMap(EventKind.init(rawValue:)) == .posespec_reload, let spec = line["spec"] {
        out.append(spec)
      }
    }
    return out
  }

  /// A YAML node as JSON for hashing (``ScenarioHeader/canonical(_:)``, shared by every
  /// engine's scenarios).
  static func canonical(_ node: Node) -> JSONValue { ScenarioHeader.canonical(node) }
}
