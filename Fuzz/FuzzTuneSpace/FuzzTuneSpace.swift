import CanonicalJSON
import Foundation
import FuzzSupport
import JustPhotoPlugin
@testable import Lab

/// libFuzzer target: one input is a `tune` search space (docs/TUNING.md).
///
/// Parses it against the project PoseSpec as `tune run` does, then for the first trials of a
/// grid and a random sampler: writes the trial's values into the spec as a trial does
/// (`TuneTarget.write`), validates the edited spec as the evaluator does, and splices the same
/// values into the spec's text as `tune promote` does. A thrown error is fine; a trap, a
/// sanitizer report or a promoted spec that differs from the trial's is a finding.
enum SpaceBounds {
  /// Trials per sampler and input: enough to reach every sampler branch, cheap per execution.
  static let trialsPerSampler = 3
}

let specText: String = {
  let url = FuzzReplay.repositoryRoot.appendingPathComponent("PoseSpec.json")
  guard let data = try? Data(contentsOf: url) else { fatalError("fuzz: cannot read \(url.path)") }
  return String(decoding: data, as: UTF8.self)
}()
let specJSON: JSONValue = {
  guard let v = try? JSONParser.parse(bytes: Array(specText.utf8)) else { fatalError("fuzz: PoseSpec.json is not JSON") }
  return v
}()

/// Seeds: the committed example spaces.
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> CInt {
  FuzzSeeds.writeIfAsked {
    let dir = FuzzReplay.repositoryRoot.appendingPathComponent("docs")
    return try FileManager.default.contentsOfDirectory(atPath: dir.path)
      .filter { $0.hasPrefix("tune-space") && $0.hasSuffix(".yaml") }.sorted()
      .map { ($0, [UInt8](try Data(contentsOf: dir.appendingPathComponent($0)))) }
  }
  _ = specJSON
  return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTuneSpace(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
  // `tune run` refuses a space that is not UTF-8 before parsing it.
  guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }
  guard let space = try? TuneSpace.parse(text: text, file: "fuzz.yaml", spec: specJSON) else { return 0 }
  let meta = ["space_text": text, "space_file": "fuzz.yaml"]
  for kind in [TuneSamplerKind.grid, .random] {
    let sampler = TuneSampler(
      kind: kind, domains: space.parameters.map(\.domain), seed: space.seed ?? 1, objective: space.objective ?? "flicker_per_min")
    for i in 0..<SpaceBounds.trialsPerSampler {
      // nil: the space is exhausted (every point proposed), as `tune run` then says.
      guard let values = sampler.values(for: i, history: []) else { break }
      guard values.count == space.parameters.count else { fatalError("trial \(i): \(values.count) values for \(space.parameters.count) parameters") }
      var spec = specJSON
      for (p, v) in zip(space.parameters, values) {
        if case .spec(let places) = p.target { for place in places { spec = TuneTarget.write(v, at: place, in: spec) } }
      }
      _ = try? Harness.validateSpec(bytes: Array(JSONWriter.write(spec).utf8), path: "trial spec")
      let trial = TrialResult(index: i, values: values, status: .ok, objectives: [:], reason: nil)
      guard let promoted = try? TunePromote.apply(trial: trial, meta: meta, specText: specText, specFile: "PoseSpec.json") else { continue }
      // What promote writes must be what the trial ran (issue 23 item 5: one order for both).
      guard let back = try? JSONParser.parse(bytes: Array(promoted.text.utf8)) else {
        fatalError("trial \(i): the promoted spec is not JSON")
      }
      if back != spec { fatalError("trial \(i): the promoted spec differs from the spec the trial ran") }
    }
  }
  return 0
}
