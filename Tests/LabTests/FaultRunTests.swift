import CanonicalJSON
import EngineIO
import Foundation
import Lab
import PoseSpec
import Testing

/// Issue 24: planted engine faults and spec mutants, judged by the `expect:` rules alone.
@Suite("faults: do the rules catch a wrong engine")
struct FaultRunTests {
  static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  static var recordings: String { repoRoot.appendingPathComponent("Recordings").path }
  static var spec: PoseSpecDocument { get throws { try Harness.loadSpec(path: repoRoot.appendingPathComponent("PoseSpec.json").path) } }

  @Test("a planted fault cannot be set from a recording: no engine option or header key names one")
  func faultsAreNotOptions() {
    for f in FaultRun.plantedFaults {
      var o = EngineOptions()
      #expect(throws: (any Error).self) { try o.set(f.name, "on") }
    }
    #expect(FaultRun.plantedFaults.count >= 20)
  }

  @Test("a fault the rules see is caught and named; one they do not see is a survivor; the clean replay breaks none")
  func caughtAndSurvivor() throws {
    let variants = try FaultRun.faultVariants(["gate-min-hold-ignored", "praise-timeout-doubled"])
    let r = try FaultRun.run(variants: variants, spec: try Self.spec, recordingsDir: Self.recordings, names: ["s06-hold-and-cooldown"], jobs: 2)
    #expect(r.unmetClean.isEmpty, "\(r.unmetClean)")
    let hold = try #require(r.outcomes.first { $0.name == "gate-min-hold-ignored" })
    #expect(hold.caught && hold.caughtBy.allSatisfy { $0.hasPrefix("s06-hold-and-cooldown: ") }, "\(hold)")
    #expect(throws: HarnessFailure.self) { _ = try FaultRun.faultVariants(["no-such-fault"]) }
  }
}
