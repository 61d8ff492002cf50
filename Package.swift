// swift-tools-version:6.0
import PackageDescription

// Dependencies point one way (as declared below; issue 13 will move the input vocabulary
// under Recording so that Recording no longer needs CoachEngine):
//   jpreplay → {Lab, Scenarios};  JPReplayTesting → {Lab, Replay, CoachEngine}
//   Lab → {Replay, Scenarios, GRDB (tune studies), Yams (tune spaces)};  Scenarios → Recording;  Mutants → Scenarios
//   Replay → {CoachEngine, Recording, GRDB, HeapModule}
//   Recording → {CoachEngine (the input event model), CZstd, GRDB}
//   CoachEngine → PoseSpec
// CoachEngine and PoseSpec use nothing but the standard library and Foundation value types.
let package = Package(
  name: "justphoto-replay",
  platforms: [.macOS(.v13)],
  products: [
    .executable(name: "jpreplay", targets: ["jpreplay"]),
    .library(name: "CoachEngine", targets: ["CoachEngine"]),
    .library(name: "Recording", targets: ["Recording"]),
    .library(name: "Replay", targets: ["Replay"]),
    // For app teams' test targets: assertReplay(recording:matchesGoldenIn:) (XCTest or Swift Testing).
    .library(name: "JPReplayTesting", targets: ["JPReplayTesting"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
  ],
  targets: [
    .systemLibrary(
      name: "CZstd", pkgConfig: "libzstd",
      providers: [.apt(["libzstd-dev"])]),
    .target(name: "PoseSpec"),
    .target(name: "CoachEngine", dependencies: ["PoseSpec"]),
    .target(
      name: "Recording",
      dependencies: [
        "CoachEngine", "CZstd",
        .product(name: "GRDB", package: "GRDB.swift"),
      ]),
    .target(
      name: "Replay",
      dependencies: [
        "CoachEngine", "Recording",
        .product(name: "HeapModule", package: "swift-collections"),
        .product(name: "GRDB", package: "GRDB.swift"),
      ]),
    .target(
      name: "Scenarios",
      dependencies: ["Recording", .product(name: "Yams", package: "Yams")]),
    .target(
      name: "Lab",
      dependencies: [
        "Replay", "Scenarios",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "Yams", package: "Yams"),
      ]),
    .target(name: "JPReplayTesting", dependencies: ["CoachEngine", "Lab", "Replay"]),
    // Seeded input mutants for the decoders' robustness tests (Tests/*/MutationTests.swift).
    .target(name: "Mutants", dependencies: ["Scenarios"]),
    .executableTarget(
      name: "jpreplay",
      dependencies: [
        "Lab", "Scenarios",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]),
    .testTarget(name: "PoseSpecTests", dependencies: ["PoseSpec", "Mutants"]),
    .testTarget(name: "CoachEngineTests", dependencies: ["CoachEngine", "Replay"]),
    .testTarget(name: "RecordingTests", dependencies: ["Recording", "Mutants"]),
    .testTarget(name: "ReplayTests", dependencies: ["Replay"]),
    .testTarget(name: "ScenariosTests", dependencies: ["Scenarios", "Recording", "Mutants"]),
    .testTarget(name: "JPReplayTestingTests", dependencies: ["JPReplayTesting", "Replay"]),
    .testTarget(name: "CLITests", dependencies: ["Lab", "Recording", "Replay", "Scenarios"]),
    .testTarget(name: "LabTests", dependencies: ["Lab", "Replay", "PoseSpec", "CoachEngine"]),
  ]
)

// libFuzzer targets (docs/FUZZING.md): declared only when JPREPLAY_FUZZ=1, which scripts/fuzz
// sets while building them with libFuzzer and AddressSanitizer into .build-fuzz.
// Normal builds, tests and CI never see them.
if Context.environment["JPREPLAY_FUZZ"] == "1" {
  package.targets.append(
    .target(name: "FuzzSupport", dependencies: ["CoachEngine", "Replay"], path: "Fuzz/FuzzSupport"))
  let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
    ("FuzzJSONL", ["FuzzSupport", "Recording"]),
    ("FuzzJprec", ["FuzzSupport", "Recording"]),
    ("FuzzChunk", ["FuzzSupport", "Recording"]),
    ("FuzzScenario", ["FuzzSupport", "Recording", "Scenarios"]),
    ("FuzzPoseSpec", ["FuzzSupport", "Recording"]),
  ]
  for t in fuzzTargets {
    package.targets.append(
      .executableTarget(
        name: t.name, dependencies: t.dependencies, path: "Fuzz/\(t.name)",
        swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
  }
}
