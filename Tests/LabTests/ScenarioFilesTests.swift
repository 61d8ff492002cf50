import Foundation
import Testing

@testable import JustPhotoPlugin

/// verify's Just Photo scenario checks (staleness, the cue-id check, the `expect:` rules, the
/// known misses) share one `ScenarioFiles`: each scenario file is read and parsed once.
@Suite struct ScenarioFilesTests {
  static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  @Test("each scenario file is read once, however many checks ask; a missing one is not read")
  func eachFileIsReadOnce() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-files-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let name = "test-outdoor-noisy"
    try Data(contentsOf: Self.repo.appendingPathComponent("Recordings/\(name).scenario.yaml"))
      .write(to: dir.appendingPathComponent("\(name).scenario.yaml"))
    try Data("name: [\n".utf8).write(to: dir.appendingPathComponent("broken.scenario.yaml"))

    let files = ScenarioFiles(dir: dir.path)
    var counts: [Int] = []
    for _ in 0..<4 {
      _ = files.scenario(of: name)
      counts.append(files.rules(of: name).count)
    }
    #expect(files.reads == 1)
    #expect(counts.allSatisfy { $0 == counts[0] } && counts[0] > 0, "\(counts)")
    #expect(files.rules(of: "absent").isEmpty)
    #expect(files.reads == 1)
    for _ in 0..<3 {
      #expect(files.rules(of: "broken").isEmpty)
      guard case .failure = files.scenario(of: "broken") else {
        Issue.record("a scenario file that does not parse reads as a scenario")
        return
      }
    }
    #expect(files.reads == 2)
  }
}
