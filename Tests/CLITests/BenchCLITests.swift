import Foundation
import Testing

/// `bench` marks a missed target and `--require` turns a miss into exit 1 (issue 38 item 6).
/// The size of a 3-second session is far above the size target whatever the machine's speed
/// (a few frames cannot amortise the container's fixed costs), so the miss is deterministic.
@Suite struct BenchCLITests {
  @Test("a missed target is marked; exit 0 without --require, 1 with it, naming the figure")
  func requireMakesAMissExit1() throws {
    let plain = try CLI.run(["bench", "--minutes", "0.05"])
    #expect(plain.code == 0, "\(plain.stderr)")
    #expect(plain.stdout.contains("MISSED  size_ratio"), "\(plain.stdout)")
    #expect(plain.stdout.contains("targets MISSED:") && plain.stdout.contains("size_ratio"), "\(plain.stdout)")
    let required = try CLI.run(["bench", "--minutes", "0.05", "--require", "--json"])
    #expect(required.code == 1, "\(required.stderr)")
    #expect(required.stderr.contains("targets missed:") && required.stderr.contains("size_ratio"), "\(required.stderr)")
    let json = try JSONSerialization.jsonObject(with: Data(required.stdout.utf8)) as? [String: Any]
    let targets = json?["targets"] as? [[String: Any]] ?? []
    #expect(targets.contains { $0["figure"] as? String == "size_ratio" && $0["met"] as? Bool == false }, "\(required.stdout)")
  }
}
