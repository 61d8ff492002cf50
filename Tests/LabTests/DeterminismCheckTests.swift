import Foundation
import JustPhotoPlugin
import Lab
import Replay
import Testing
import Verify

/// `verify --determinism` as a library function: the "other process" is injected, so the
/// comparison runs (and is tested) without spawning anything.
@Suite("DeterminismCheck with an injected child replay")
struct DeterminismCheckTests {
  static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  static let golden = "{\"t\":0,\"out\":\"a\"}\n{\"t\":5,\"out\":\"b\"}\n{\"t\":9,\"out\":\"c\"}\n"

  /// A scratch store holding the golden trace of one recording "r".
  static func store() throws -> GoldenStore {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("det-\(UUID().uuidString)")
    let store = GoldenStore(
      recordingsDir: dir.appendingPathComponent("Recordings"), goldenDir: dir.appendingPathComponent("Golden"))
    try FileManager.default.createDirectory(at: dir.appendingPathComponent("Golden"), withIntermediateDirectories: true)
    try store.writeGolden("r", .trace, golden)
    return store
  }

  /// A child that writes `texts[i]` for its i-th request and exits with `status`.
  final class FakeChild: @unchecked Sendable {
    var requests: [ChildReplayRequest] = []
    let texts: [String]
    let status: Int32
    init(_ texts: [String], status: Int32 = 0) {
      self.texts = texts
      self.status = status
    }
    func run(_ r: ChildReplayRequest) throws(HarnessFailure) -> Int32 {
      let text = texts[requests.count]
      requests.append(r)
      try? Data(text.utf8).write(to: URL(fileURLWithPath: r.output))
      return status
    }
  }

  @Test("two children that agree with each other and the golden: no problem; hashing fixed, then random")
  func agreeing() throws {
    let store = try Self.store()
    let child = FakeChild([Self.golden, Self.golden])
    let problems = try DeterminismCheck.run(
      names: ["r"], store: store, specPath: "S.json", overrides: ["a=1"], replayInAnotherProcess: child.run)
    #expect(problems == [])
    #expect(child.requests.map(\.deterministicHashing) == [true, false])
    #expect(child.requests.allSatisfy { $0.specPath == "S.json" && $0.overrides == ["a=1"] })
    #expect(child.requests.allSatisfy { $0.recording == store.recordingURL("r").path })
    #expect(Set(child.requests.map(\.output)).count == 2)
  }

  @Test("children that differ: the first differing event is named")
  func childrenDiffer() throws {
    let other = Self.golden.replacingOccurrences(of: "\"c\"", with: "\"C\"")
    let child = FakeChild([Self.golden, other])
    let problems = try DeterminismCheck.run(
      names: ["r"], store: try Self.store(), specPath: nil, overrides: [], replayInAnotherProcess: child.run)
    #expect(problems == ["r: processes differ from event 3 on (3 vs 3 events; hashing on vs off)"])
  }

  @Test("children that agree but differ from the golden, or one that fails")
  func goldenDiffersOrChildFails() throws {
    let other = Self.golden.replacingOccurrences(of: "\"b\"", with: "\"B\"")
    let agreeing = FakeChild([other, other])
    #expect(
      try DeterminismCheck.run(
        names: ["r"], store: try Self.store(), specPath: nil, overrides: [], replayInAnotherProcess: agreeing.run)
        == ["r: child-process trace differs from the golden from event 2 on"])
    let failing = FakeChild([Self.golden, Self.golden], status: 2)
    #expect(
      try DeterminismCheck.run(
        names: ["r"], store: try Self.store(), specPath: nil, overrides: [], replayInAnotherProcess: failing.run)
        == ["r: replay process exited 2"])
    #expect(failing.requests.count == 1)
  }

  @Test("an in-process stand-in for the child replays a corpus recording to its golden bytes")
  func inProcessStandIn() throws {
    let store = GoldenStore(root: Self.repoRoot)
    let spec = Self.repoRoot.appendingPathComponent("PoseSpec.json").path
    let replay: ReplayInAnotherProcess = { r throws(HarnessFailure) in
      let driver = try Harness.driver(specPath: r.specPath)
      guard let text = try? driver.canonicalProducts(URL(fileURLWithPath: r.recording)).trace else { return 1 }
      try? Data(text.utf8).write(to: URL(fileURLWithPath: r.output))
      return 0
    }
    let problems = try DeterminismCheck.run(
      names: ["drift-left-and-back"], store: store, specPath: spec, overrides: [], replayInAnotherProcess: replay)
    #expect(problems == [])
  }
}
