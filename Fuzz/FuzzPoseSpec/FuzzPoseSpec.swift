import CanonicalJSON
import EngineIO
import Foundation
import FuzzSupport
import PoseSpec
import Recording

/// libFuzzer target: one input is a PoseSpec (JSON, ENGINE §2).
///
/// Loads it with `PoseSpecLoader.load` — parse, decode, validate, compile every formula — as
/// `jpreplay replay --spec` and `spec validate` do. A spec that loads then drives the engine
/// through the first events of a committed recording, so its formulas and thresholds are
/// evaluated on real frames. A thrown error is fine; a trap or a sanitizer report is a finding.
enum CannedRecording {
  /// Events of the canned recording replayed per accepted spec.
  static let eventsMax = 300
  /// A short committed recording with landmark frames, read once.
  static let events: (header: JSONObject, events: [InputEvent]) = {
    let path = FuzzReplay.repositoryRoot.appendingPathComponent("Recordings/s05-head-level-flicker.jprec").path
    guard let reader = try? RecordingReader(path: path, definitions: FuzzReplay.definitions) else { fatalError("fuzz: cannot read \(path)") }
    var out: [InputEvent] = []
    while out.count < eventsMax, let e = try? reader.next() { out.append(e) }
    return (reader.header, out)
  }()
}

/// Seeds: the project spec, and smaller specs made of a few of its cues each (faster to
/// mutate and load; the loader's checks are the same).
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> CInt {
  FuzzSeeds.writeIfAsked {
    let bytes = [UInt8](try Data(contentsOf: FuzzReplay.repositoryRoot.appendingPathComponent("PoseSpec.json")))
    var seeds: [(name: String, bytes: [UInt8])] = [("PoseSpec.json", bytes)]
    guard var root = try JSONParser.parse(bytes: bytes).objectValue, let cues = root["cues"]?.arrayValue else {
      return seeds
    }
    for start in stride(from: 0, to: cues.count, by: 5) {
      root["cues"] = .array(Array(cues[start..<min(cues.count, start + 2)]))
      seeds.append(("cues-\(start).json", Array(JSONWriter.write(.object(root)).utf8)))
    }
    return seeds
  }
  return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPoseSpec(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
  guard let spec = try? PoseSpecLoader.load(bytes: bytes, fileName: "fuzz.json") else { return 0 }
  let canned = CannedRecording.events
  FuzzReplay.replay(header: canned.header, events: canned.events[...], spec: spec)
  return 0
}
