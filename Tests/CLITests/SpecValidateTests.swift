import CanonicalJSON
import Foundation
import Testing

/// `jpreplay spec validate` on the real PoseSpec and on broken copies (ENGINE §2.3).
@Suite("spec validate (ENGINE §2.3)")
struct SpecValidateTests {
  static let reference = CLI.fixtures.appendingPathComponent("reference-posespec.json")

  /// Writes a mutated copy of the reference PoseSpec and validates it.
  func validateMutated(_ mutate: (inout JSONObject) -> Void) throws -> CLI.Result {
    let dir = try CLI.tempDir("spec")
    defer { try? FileManager.default.removeItem(at: dir) }
    var root = try JSONParser.parse(bytes: Array(try Data(contentsOf: Self.reference))).objectValue!
    mutate(&root)
    let file = dir.appendingPathComponent("PoseSpec.json")
    try Data(JSONWriter.write(.object(root)).utf8).write(to: file)
    return try CLI.run(["spec", "validate", file.path])
  }

  @Test func theReferenceSpecValidatesAndListsBothScenes() throws {
    let r = try CLI.run(["spec", "validate", Self.reference.path])
    #expect(r.code == 0, "\(r.stderr)")
    #expect(r.stdout.contains("50 cues"))
    #expect(r.stdout.contains("cafe"))
    #expect(r.stdout.contains("outdoor"))
  }

  @Test func theProjectSpecValidates() throws {
    let r = try CLI.run(["spec", "validate", "PoseSpec.json"])
    #expect(r.code == 0, "\(r.stderr)")
  }

  @Test func aPrdVersionMismatchIsTheVersionModal() throws {
    let r = try validateMutated { $0["prdVersion"] = "v0.0.0" }
    #expect(r.code == 2)
    #expect(r.stderr.contains("posespec_version_mismatch_modal"))
    #expect(r.stderr.contains("PoseSpec 版本与 PRD 不一致，无法继续。"))
    #expect(r.stderr.contains("expected=v1.1.4"))
    #expect(r.stderr.contains("actual=v0.0.0"))
  }

  @Test func anUnknownFormulaFunctionExitsTwoNamingTheCueFormulaAndFunction() throws {
    let r = try validateMutated { root in
      var cues = root["cues"]!.arrayValue!
      let i = cues.firstIndex { $0["id"]?.stringValue == "CHIN_UP" }!
      var cue = cues[i].objectValue!
      var metric = cue["metric"]!.objectValue!
      metric["formula"] = .string("noseToChinRatio = distance(noseTip, chinCenter) / faceBBox.h")
      cue["metric"] = .object(metric)
      cues[i] = .object(cue)
      root["cues"] = .array(cues)
    }
    #expect(r.code == 2)
    #expect(r.stderr.contains("PoseSpec.json: formulaInvalid"))
    #expect(r.stderr.contains("CHIN_UP metric.formula \"noseToChinRatio = distance(noseTip, chinCenter) / faceBBox.h\""))
    #expect(r.stderr.contains("column 19: unknown function 'distance'"))
    #expect(r.stderr.contains("posespec_invalid_modal"))
  }

  @Test func anUnknownFunctionInAnUnusedAliasExitsTwoNamingTheAlias() throws {
    let r = try validateMutated { root in
      var binding = root["binding"]!.objectValue!
      var aliases = binding["aliases"]!.objectValue!
      aliases["eyeGap"] = .string("distance(lEye, rEye)")
      binding["aliases"] = .object(aliases)
      root["binding"] = .object(binding)
    }
    #expect(r.code == 2)
    #expect(r.stderr.contains("binding.aliases.eyeGap \"distance(lEye, rEye)\", column 1: unknown function 'distance'"))
  }

  @Test func aMissingAliasIsTheBindingModal() throws {
    let r = try validateMutated { root in
      var binding = root["binding"]!.objectValue!
      var aliases = binding["aliases"]!.objectValue!
      aliases["lShoulder"] = nil
      binding["aliases"] = .object(aliases)
      root["binding"] = .object(binding)
    }
    #expect(r.code == 2)
    #expect(r.stderr.contains("posespec_binding_missing_modal"))
    #expect(r.stderr.contains("PoseSpec 不完整：binding 缺失。"))
    #expect(r.stderr.contains("missing=lShoulder"))
  }

  @Test func aMissingEyeROIIsTheRoisModal() throws {
    let r = try validateMutated { root in
      var rois = root["rois"]!.objectValue!
      rois["eyeROI"] = nil
      root["rois"] = .object(rois)
    }
    #expect(r.code == 2)
    #expect(r.stderr.contains("posespec_rois_missing_modal"))
    #expect(r.stderr.contains("PoseSpec 不完整：rois 缺失。"))
    #expect(r.stderr.contains("missing=eyeROI"))
  }

  @Test func truncatedJSONIsTheInvalidModalWithItsPlace() throws {
    let dir = try CLI.tempDir("spec")
    defer { try? FileManager.default.removeItem(at: dir) }
    let bytes = try Data(contentsOf: Self.reference)
    let file = dir.appendingPathComponent("Truncated.json")
    try bytes.prefix(bytes.count / 2).write(to: file)
    let r = try CLI.run(["spec", "validate", file.path])
    #expect(r.code == 2)
    #expect(r.stderr.contains("posespec_invalid_modal"))
    #expect(r.stderr.contains("PoseSpec.json is not valid / decodable"))
    #expect(r.stderr.contains("Truncated.json"))
    #expect(r.stderr.contains("line "))
  }

  @Test func aMissingFileIsBadInput() throws {
    let r = try CLI.run(["spec", "validate", "/nonexistent/PoseSpec.json"])
    #expect(r.code == 2)
    #expect(r.stderr.contains("/nonexistent/PoseSpec.json"))
  }
}
