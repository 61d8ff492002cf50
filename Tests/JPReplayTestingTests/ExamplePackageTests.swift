import Foundation
import Testing

@testable import JPReplayTesting

/// Examples/CoachingReplayTests, the macOS test package an Xcode user opens (README, "iOS apps"):
/// its recordings match their goldens under its own PoseSpec through the very call its test
/// makes (`assertReplay`'s check, writing nothing), so an engine change that breaks it fails
/// here; it depends on this repository by relative path and finds its files through #filePath.
/// Building and running the package itself (`swift test --package-path
/// Examples/CoachingReplayTests`) builds the whole dependency tree again in its own .build
/// (minutes), so here it runs only when JPREPLAY_EXAMPLE_BUILD=1; the macOS CI job runs it as a step of
/// its own (.github/workflows/ci.yml).
@Suite("Examples/CoachingReplayTests")
struct ExamplePackageTests {
  static let example = AssertReplayTests.repoRoot.appendingPathComponent("Examples/CoachingReplayTests")
  static let replays = example.appendingPathComponent("Tests/CoachingReplayTests/Replays")

  @Test("every recording of the example matches its goldens under the example's spec (the example test's own check)")
  func theExampleRecordingsMatch() throws {
    let folder = Self.replays.appendingPathComponent("Recordings")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".jprec") }.sorted()
    #expect(!names.isEmpty)
    for name in names {
      let failure = verifyReplay(
        recording: folder.appendingPathComponent(name), matchesGoldenIn: Self.replays.appendingPathComponent("Golden"),
        spec: Self.replays.appendingPathComponent("PoseSpec.json"), update: .no)
      #expect(failure == nil, "\(name): \(failure ?? "")")
    }
  }

  @Test("the example depends on this repository by relative path, on macOS, and finds its files through #filePath")
  func theExampleIsAnXcodePackage() throws {
    let manifest = try String(contentsOf: Self.example.appendingPathComponent("Package.swift"), encoding: .utf8)
    #expect(manifest.contains(#".package(name: "justphoto-replay", path: "../..")"#))
    #expect(manifest.contains(#".product(name: "JPReplayTesting", package: "justphoto-replay")"#))
    #expect(manifest.contains("platforms: [.macOS(.v13)]"))
    let test = try String(
      contentsOf: Self.example.appendingPathComponent("Tests/CoachingReplayTests/CoachingReplayTests.swift"), encoding: .utf8)
    #expect(test.contains("URL(fileURLWithPath: #filePath)") && test.contains("assertReplay("))
    #expect(!test.contains("currentDirectoryPath"))
  }

  @Test(
    "swift test --package-path Examples/CoachingReplayTests passes",
    .enabled(if: ProcessInfo.processInfo.environment["JPREPLAY_EXAMPLE_BUILD"] == "1", "set JPREPLAY_EXAMPLE_BUILD=1 (a full build of the example's dependencies)"))
  func theExamplePackageBuildsAndPasses() throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["swift", "test", "--package-path", Self.example.path]
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    try p.run()
    p.waitUntilExit()
    #expect(p.terminationStatus == 0, "swift test --package-path \(Self.example.path) exited \(p.terminationStatus)")
  }
}
