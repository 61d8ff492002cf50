import EngineIO
import Foundation
import FuzzSupport
import Recording
import JustPhotoScenarios

/// libFuzzer target: one input is a scenario file (`*.scenario.yaml`, docs/CORPUS.md).
///
/// Parses it as `jpreplay record` does (a `posespec: {from: "../PoseSpec.json"}` derivation
/// finds a copy of the project spec beside the scratch folder), generates the recording when
/// its size is within the bounds below, reads the generated JSONL back through `JSONLReader`
/// and replays the events. A thrown error is fine; a trap or a sanitizer report is a finding.
enum ScenarioBounds {
  /// Landmark frames one generated recording may have: 600 (40 s at 15 fps) keeps one input's
  /// generate + replay far below libFuzzer's 10 s timeout under AddressSanitizer (3,000 frames
  /// took > 12 s on a loaded machine: a timeout finding of the driver, not of the product).
  static let framesMax = 600
  /// Luma bytes (w·h per plane × planes) one generated recording may carry.
  static let lumaBytesMax = 8 << 20

  /// The number of landmark frames `generate()` would make, nil when past ``framesMax``.
  static func frames(_ s: Scenario) -> Int? {
    switch s.frames {
    case .none: return 0
    case .times(let t): return t.count <= framesMax ? t.count : nil
    case .every(let ms):
      guard ms > 0 else { return nil }
      let n = s.durationMs / ms + 1
      return n <= framesMax ? Int(n) : nil
    case .fps:
      let (seconds, _) = (s.durationMs / 1000 + 1).multipliedReportingOverflow(by: Int64(s.fps))
      return seconds >= 0 && seconds <= framesMax ? Int(seconds) : nil
    }
  }
}

let scenarioDir: URL = {
  let dir = FuzzReplay.scratch.appendingPathComponent("scenarios")
  try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
  let spec = FuzzReplay.repositoryRoot.appendingPathComponent("PoseSpec.json")
  try? FileManager.default.copyItem(at: spec, to: FuzzReplay.scratch.appendingPathComponent("PoseSpec.json"))
  return dir
}()

/// Seeds: every committed scenario file.
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> CInt {
  FuzzSeeds.writeIfAsked {
    let dir = FuzzReplay.repositoryRoot.appendingPathComponent("Recordings")
    return try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".scenario.yaml") }.sorted()
      .map { ($0, [UInt8](try Data(contentsOf: dir.appendingPathComponent($0)))) }
  }
  return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScenario(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
  // Not named *.scenario.yaml: the name check would refuse nearly every mutant.
  let file = scenarioDir.appendingPathComponent("fuzz-input.yaml").path
  guard let scenario = try? Scenario.parse(bytes: bytes, file: file) else { return 0 }
  guard let frames = ScenarioBounds.frames(scenario) else { return 0 }
  if let every = scenario.lumaEvery {
    let planes = frames / every + 1
    let (plane, o1) = scenario.lumaW.multipliedReportingOverflow(by: scenario.lumaH)
    let (total, o2) = plane.multipliedReportingOverflow(by: planes)
    guard !o1, !o2, total <= ScenarioBounds.lumaBytesMax else { return 0 }
  }
  guard let reader = try? scenario.generate().reader() else { return 0 }
  var events: [InputEvent] = []
  while events.count < FuzzReplay.eventsMax {
    guard let e = try? reader.next() else { break }
    events.append(e)
  }
  FuzzReplay.replay(header: reader.header, events: events[...])
  return 0
}
