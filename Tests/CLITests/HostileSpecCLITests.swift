import CanonicalJSON
import Foundation
import Testing

/// Hostile PoseSpecs through the command line (issue 12 C3/H3/O1): `spec validate` exits 2
/// naming the file, the place and the bound; a recording that inlines them (`initial.posespec`,
/// `posespec_reload`) replays to an `invalid` posespec line instead of a signal.
@Suite("Hostile PoseSpecs through jpreplay (ENGINE §2.3)")
struct HostileSpecCLITests {
  static let projectSpec = CLI.repoRoot.appendingPathComponent("PoseSpec.json")

  /// The project spec with `mutate` applied.
  func spec(_ mutate: (inout JSONObject) -> Void) throws -> JSONObject {
    var root = try JSONParser.parse(bytes: Array(try Data(contentsOf: Self.projectSpec))).objectValue!
    mutate(&root)
    return root
  }

  /// Sets cue 0's formula (FRAME_MOVE_LEFT) and appends binding aliases.
  func withFormula(_ formula: String, aliases: [(String, String)] = []) throws -> JSONObject {
    try spec { root in
      var cues = root["cues"]!.arrayValue!
      var cue = cues[0].objectValue!
      var metric = cue["metric"]!.objectValue!
      metric["formula"] = .string(formula)
      cue["metric"] = .object(metric)
      cues[0] = .object(cue)
      root["cues"] = .array(cues)
      var binding = root["binding"]!.objectValue!
      var table = binding["aliases"]!.objectValue!
      table.members += aliases.map { JSONMember($0.0, .string($0.1)) }
      binding["aliases"] = .object(table)
      root["binding"] = .object(binding)
    }
  }

  /// Aliases z0 … z22 where each doubles the last (2^22 nodes once expanded).
  static let doublingAliases: [(String, String)] =
    [("z0", "lShoulder.x")] + (1...22).map { ("z\($0)", "z\($0 - 1) + z\($0 - 1)") }

  func validate(_ text: String, name: String) throws -> CLI.Result {
    let dir = try CLI.tempDir("hostile-spec")
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = dir.appendingPathComponent(name)
    try Data(text.utf8).write(to: file)
    return try CLI.run(["spec", "validate", file.path])
  }

  @Test func hostileSpecsExitTwoNamingTheFilePlaceAndBound() throws {
    let unary = JSONWriter.write(.object(try withFormula("x = " + String(repeating: "-", count: 10_000) + "1")))
    let doubling = JSONWriter.write(.object(try withFormula("error = z22", aliases: Self.doublingAliases)))
    let cooldown = JSONWriter.write(
      .object(
        try spec { root in
          var p = root["praisePolicy"]!.objectValue!
          p["cooldownMs"] = 2500.5
          root["praisePolicy"] = .object(p)
        }))
    let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    let eightfold = [("q0", "lShoulder.x")] + (1...4).map { i in
      ("q\(i)", "max(" + Array(repeating: "q\(i - 1)", count: 8).joined(separator: ", ") + ")")
    }
    let wide = JSONWriter.write(.object(try withFormula("error = q4", aliases: eightfold)))
    let cases: [(String, String, [String])] = [
      ("unary.json", unary, ["formulaInvalid", "FRAME_MOVE_LEFT", "metric.formula", "column 28", "formulaDepthMax = 24"]),
      ("doubling.json", doubling, ["formulaInvalid", "FRAME_MOVE_LEFT", "column 9", "aliasChainMax = 8"]),
      ("wide.json", wide, ["formulaInvalid", "FRAME_MOVE_LEFT", "column 9", "formulaNodesMax = 4096"]),
      ("cooldown.json", cooldown, ["valueInvalid", "praisePolicy.cooldownMs", "expected an integer", "2500.5"]),
      ("deep.json", deep, ["invalidJSON", "line 1, column 65", "JSONParser.depthMax = 64"]),
    ]
    for (name, text, expected) in cases {
      let r = try validate(text, name: name)
      #expect(r.code == 2, "\(name): exit \(r.code) \(r.stderr)")
      #expect(r.stderr.contains(name), "\(name): \(r.stderr)")
      #expect(r.stderr.contains("posespec_invalid_modal"))
      for e in expected { #expect(r.stderr.contains(e), "\(name) lacks \(e): \(r.stderr)") }
    }
  }

  @Test func aRecordingInliningHostileSpecsReplaysToInvalidPosespecLines() throws {
    let launch = try withFormula("error = z22", aliases: Self.doublingAliases)
    let reload = try withFormula("x = " + String(repeating: "(", count: 20_000) + "1" + String(repeating: ")", count: 20_000))
    let header: JSONObject = [
      "format": "jp-replay/1", "name": "hostile-spec", "wall_start_ms": 1_770_860_000_000, "duration_ms": 400,
      "options": .object([:]), "initial": .object(["scene": "cafe", "posespec": .object(launch)]),
    ]
    let lines = [
      JSONWriter.write(.object(header)),
      JSONWriter.write(.object(["t": 200, "kind": "posespec_reload", "sha256": "hostile", "spec": .object(reload)])),
    ]
    let dir = try CLI.tempDir("hostile-spec")
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = dir.appendingPathComponent("hostile-spec.jsonl")
    try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: file)
    let r = try CLI.run(["replay", file.path])
    #expect(r.code == 0, "exit \(r.code): \(r.stderr)")
    let posespec = r.stdout.split(separator: "\n").filter { $0.contains("\"out\":\"posespec\"") }
    #expect(posespec.count == 2, "\(r.stdout)")
    #expect(posespec.allSatisfy { $0.contains("\"result\":\"invalid\"") && $0.contains("\"error\":\"formulaInvalid\"") })
    #expect(r.stdout.contains("posespec_invalid_modal"))
  }
}
