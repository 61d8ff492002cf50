import Foundation
import CanonicalJSON
import JustPhotoPlugin
import Recording
import Verify

/// One replay the determinism check asks another process to run: replay `recording` with the
/// spec and `--set` overrides given, write the canonical trace to `output`, with Swift's
/// per-process hash seed fixed (`deterministicHashing`, SWIFT_DETERMINISTIC_HASHING=1) or random.
package struct ChildReplayRequest: Sendable, Equatable {
  package var recording: String
  package var output: String
  package var specPath: String?
  package var overrides: [String]
  package var deterministicHashing: Bool

  package init(recording: String, output: String, specPath: String?, overrides: [String], deterministicHashing: Bool) {
    self.recording = recording
    self.output = output
    self.specPath = specPath
    self.overrides = overrides
    self.deterministicHashing = deterministicHashing
  }
}

/// Runs one `ChildReplayRequest` in another process and returns its exit status (0: the trace
/// was written). Throws when the process cannot be started. The CLI spawns itself
/// (`jpreplay replay …`); the library never starts a process.
package typealias ReplayInAnotherProcess = (ChildReplayRequest) throws(HarnessFailure) -> Int32

/// The determinism self-check of `verify --determinism`: each recording is replayed twice more
/// in other processes (hash seed fixed, then random) and the traces are compared with each
/// other and with the golden, event by event.
package enum DeterminismCheck {
  /// Returns one line per recording that differs (or whose child replay failed), naming the
  /// first event that differs. Scratch traces go to a temporary directory, removed afterwards.
  package static func run(
    names: [String], store: GoldenStore, specPath: String?, overrides: [String],
    replayInAnotherProcess: ReplayInAnotherProcess
  ) throws(HarnessFailure) -> [String] {
    let tmp: URL
    do { tmp = try SafeFile.temporaryDirectory("det") } catch { throw .badInput(error.description) }
    defer { try? FileManager.default.removeItem(at: tmp) }
    var problems: [String] = []
    for name in names {
      var outputs: [Data] = []
      for (i, hashing) in [true, false].enumerated() {
        let out = tmp.joined("\(name).\(i).trace.jsonl")
        let request = ChildReplayRequest(
          recording: store.recordingURL(name).path, output: out.path, specPath: specPath, overrides: overrides,
          deterministicHashing: hashing)
        let status = try replayInAnotherProcess(request)
        guard status == 0, let d = try? Data(contentsOf: out) else {
          problems.append("\(name): replay process exited \(status)")
          break
        }
        outputs.append(d)
      }
      guard outputs.count == 2 else { continue }
      let golden = (try? store.readGolden(name, .trace)).map { Data($0.utf8) }
      if let p = compare(name: name, outputs[0], outputs[1], golden: golden) { problems.append(p) }
    }
    return problems
  }

  /// Per-event hashes: names the first event that differs, not just the byte counts.
  static func compare(name: String, _ first: Data, _ second: Data, golden: Data?) -> String? {
    let a = eventHashes(first)
    let b = eventHashes(second)
    if let k = firstDifference(a, b) {
      return "\(name): processes differ from event \(k + 1) on (\(a.count) vs \(b.count) events; hashing on vs off)"
    }
    if let golden, let k = firstDifference(a, eventHashes(golden)) {
      return "\(name): child-process trace differs from the golden from event \(k + 1) on"
    }
    return nil
  }

  /// SHA-256 of each line of a trace (one event per line).
  static func eventHashes(_ data: Data) -> [String] {
    data.split(separator: UInt8(ascii: "\n")).map { SHA256.hex(Array($0)) }
  }

  static func firstDifference(_ a: [String], _ b: [String]) -> Int? {
    for i in 0..<min(a.count, b.count) where a[i] != b[i] { return i }
    return a.count == b.count ? nil : min(a.count, b.count)
  }
}
