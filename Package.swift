// swift-tools-version:6.0
import PackageDescription

// Dependencies point one way, down the floors (docs/ARCHITECTURE.md). One line per target,
// `Target → its dependencies`, equal to the declarations below and to the target's imports
// (scripts/check-imports, run by Tests/ArchitectureTests, compares all three):
//   CanonicalJSON → —           (floor: JSON parser, ordered values, canonical writer, SHA-256)
//   EngineIO → CanonicalJSON    (floor: the event vocabulary: InputEvent, timers, options, …)
//   EngineSeam → CanonicalJSON, EngineIO   (floor: the engine protocol and vocabulary a replay drives)
//   JustPhotoIO → CanonicalJSON, EngineIO   (Just Photo's vocabulary: its event kinds and typed events, session store, options, effect requests, initial keys, trace vocabulary)
//   PoseSpec → CanonicalJSON
//   JustPhotoEngine → CanonicalJSON, EngineIO, JustPhotoIO, PoseSpec
//   PixScanEngine → CanonicalJSON  (the second engine: PixScan, docs/PIXSCAN.md)
//   ScenarioYAML → CanonicalJSON, Yams   (what every engine's scenarios share: the YAML reader and guard, the seeded generator)
//   PixScanScenarios → CanonicalJSON, PixScanEngine, ScenarioYAML, Yams
//   PixScanPlugin → CanonicalJSON, EngineIO, EngineSeam, PixScanEngine, PixScanScenarios, Recording, Replay, Verify   (PixScan on the seam)
//   CameraCoachEngine → CanonicalJSON  (the third engine: Camera Coach, docs/CAMERACOACH.md)
//   CameraCoachScenarios → CameraCoachEngine, CanonicalJSON, ScenarioYAML, Yams
//   CameraCoachPlugin → CameraCoachEngine, CameraCoachScenarios, CanonicalJSON, EngineIO, EngineSeam, Recording, Replay, Verify   (Camera Coach on the seam)
//   Recording → CanonicalJSON, EngineIO, EngineSeam, CZstd, GRDB, SystemPackage   (never the engine; FilePath for every path)
//   JustPhotoScenarios → CanonicalJSON, EngineIO, JustPhotoIO, PoseSpec, Recording, ScenarioYAML, Yams
//   Replay → CanonicalJSON, EngineIO, EngineSeam, Recording, GRDB, HeapModule   (never an engine)
//   Verify → CanonicalJSON, EngineIO, EngineSeam, Recording, Replay   (goldens, diffs, verify's verdicts, reports; never an engine)
//   JustPhotoPlugin → CanonicalJSON, JustPhotoEngine, EngineIO, EngineSeam, JustPhotoIO, PoseSpec, Recording, Replay, ScenarioYAML, JustPhotoScenarios, Verify, GRDB   (Just Photo on the seam; GRDB: its session store's schema)
//   Lab → CanonicalJSON, JustPhotoEngine, EngineIO, EngineSeam, JustPhotoIO, JustPhotoPlugin, PoseSpec, Recording, Replay, ScenarioYAML, JustPhotoScenarios, Verify, GRDB, Yams
//   JPReplayTesting → JustPhotoEngine, JustPhotoPlugin, Recording, Replay, Verify
//   Mutants → ScenarioYAML
//   MCAP → CZstd   (the MCAP writer of `export --mcap`: any engine, no Foundation)
//   jpreplay → CameraCoachPlugin, CanonicalJSON, EngineIO, EngineSeam, JustPhotoIO, JustPhotoPlugin, Lab, MCAP, PixScanPlugin, Recording, Replay, JustPhotoScenarios, Verify, ArgumentParser
// Test targets depend on what their files import (ArchitectureTests on nothing); the libFuzzer
// targets at the end (JPREPLAY_FUZZ=1) on FuzzSupport and the modules they feed.
// CanonicalJSON, EngineIO, JustPhotoIO, PoseSpec, JustPhotoEngine, PixScanEngine and CameraCoachEngine use nothing but the standard library
// (and libc's math): no Foundation, no files, processes, environment, clock or randomness.
let package = Package(
  name: "justphoto-replay",
  platforms: [.macOS(.v13)],
  products: [
    .executable(name: "jpreplay", targets: ["jpreplay"]),
    // The floor: app code builds input events from EngineIO's vocabulary.
    .library(name: "CanonicalJSON", targets: ["CanonicalJSON"]),
    .library(name: "EngineIO", targets: ["EngineIO"]),
    .library(name: "JustPhotoIO", targets: ["JustPhotoIO"]),
    .library(name: "JustPhotoEngine", targets: ["JustPhotoEngine"]),
    .library(name: "Recording", targets: ["Recording"]),
    .library(name: "Replay", targets: ["Replay"]),
    .library(name: "Verify", targets: ["Verify"]),
    // For app teams' test targets: assertReplay(recording:matchesGoldenIn:) (XCTest or Swift Testing).
    .library(name: "JPReplayTesting", targets: ["JPReplayTesting"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
  ],
  targets: [
    .systemLibrary(
      name: "CZstd", pkgConfig: "libzstd",
      providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]),
    // The floor: canonical JSON, then the event vocabulary.
    .target(name: "CanonicalJSON"),
    .target(name: "EngineIO", dependencies: ["CanonicalJSON"]),
    .target(name: "EngineSeam", dependencies: ["CanonicalJSON", "EngineIO"]),
    .target(name: "PoseSpec", dependencies: ["CanonicalJSON"]),
    // Just Photo's vocabulary that is not an input event: options, effect requests, initial keys, trace lines.
    .target(name: "JustPhotoIO", dependencies: ["CanonicalJSON", "EngineIO"]),
    .target(name: "JustPhotoEngine", dependencies: ["CanonicalJSON", "EngineIO", "JustPhotoIO", "PoseSpec"]),
    .target(name: "PixScanEngine", dependencies: ["CanonicalJSON"]),
    .target(
      name: "PixScanPlugin",
      dependencies: [
        "CanonicalJSON", "EngineIO", "EngineSeam", "PixScanEngine", "PixScanScenarios", "Recording", "Replay", "Verify",
      ]),
    .target(
      name: "PixScanScenarios",
      dependencies: ["CanonicalJSON", "PixScanEngine", "ScenarioYAML", .product(name: "Yams", package: "Yams")]),
    .target(name: "CameraCoachEngine", dependencies: ["CanonicalJSON"]),
    .target(
      name: "CameraCoachScenarios",
      dependencies: ["CameraCoachEngine", "CanonicalJSON", "ScenarioYAML", .product(name: "Yams", package: "Yams")]),
    .target(
      name: "CameraCoachPlugin",
      dependencies: [
        "CameraCoachEngine", "CameraCoachScenarios", "CanonicalJSON", "EngineIO", "EngineSeam", "Recording", "Replay", "Verify",
      ]),
    // The scenario files' YAML reader (core-schema scalars, node paths, messages) and its guard
    // (no anchors, bounded depth and size), shared by both engines' scenario modules.
    .target(
      name: "ScenarioYAML",
      dependencies: ["CanonicalJSON", .product(name: "Yams", package: "Yams")]),
    .target(
      name: "Recording",
      dependencies: [
        "CanonicalJSON", "CZstd", "EngineIO", "EngineSeam",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "SystemPackage", package: "swift-system"),
      ]),
    .target(
      name: "Replay",
      dependencies: [
        "CanonicalJSON", "EngineIO", "EngineSeam", "Recording",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "HeapModule", package: "swift-collections"),
      ]),
    // What verify judges with: goldens, the differ, verify's verdicts and reports (any engine).
    .target(name: "Verify", dependencies: ["CanonicalJSON", "EngineIO", "EngineSeam", "Recording", "Replay"]),
    // Just Photo on the engine seam: its registration, vocabulary, trace rendering, effect table,
    // outputs, and what a replay of it needs (spec loading, drivers, the corpus's scenario
    // checks), shared by the lab, the CLI and JPReplayTesting.
    .target(
      name: "JustPhotoPlugin",
      dependencies: [
        "CanonicalJSON", "JustPhotoEngine", "EngineIO", "EngineSeam", "JustPhotoIO", "PoseSpec", "Recording", "Replay",
        "ScenarioYAML", "JustPhotoScenarios", "Verify",
        .product(name: "GRDB", package: "GRDB.swift"),
      ]),
    .target(
      name: "JustPhotoScenarios",
      dependencies: [
        "CanonicalJSON", "EngineIO", "JustPhotoIO", "PoseSpec", "Recording", "ScenarioYAML",
        .product(name: "Yams", package: "Yams"),
      ]),
    .target(
      name: "Lab",
      dependencies: [
        "CanonicalJSON", "JustPhotoEngine", "EngineIO", "EngineSeam", "JustPhotoIO", "JustPhotoPlugin", "PoseSpec", "Recording", "Replay",
        "ScenarioYAML", "JustPhotoScenarios", "Verify",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "Yams", package: "Yams"),
      ]),
    .target(name: "JPReplayTesting", dependencies: ["JustPhotoEngine", "JustPhotoPlugin", "Recording", "Replay", "Verify"]),
    // Seeded input mutants for the decoders' robustness tests (Tests/*/MutationTests.swift).
    .target(name: "Mutants", dependencies: ["ScenarioYAML"]),
    // The MCAP writer (https://mcap.dev/spec) behind `jpreplay export --mcap`: chunks, indexes, summary, CRCs.
    .target(name: "MCAP", dependencies: ["CZstd"]),
    .executableTarget(
      name: "jpreplay",
      dependencies: [
        "CameraCoachPlugin", "CanonicalJSON", "EngineIO", "EngineSeam", "JustPhotoIO", "JustPhotoPlugin", "Lab", "MCAP",
        "PixScanPlugin", "Recording", "Replay", "JustPhotoScenarios", "Verify",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      // The command-line layer (argument parsing, subcommands, console output) is not optimized
      // in release builds: every replay, decode, score, tune trial and report runs in the
      // optimized modules below it (only `export --mcap` builds its messages here, +19 % CPU),
      // and optimizing this last module of the build's chain took 35 of its 465 CPU s
      // (docs/PERFORMANCE.md, "Release build time").
      swiftSettings: [.unsafeFlags(["-Onone"], .when(configuration: .release))],
      // `jpreplay --version` names the commit the binary was built from (git at build time).
      plugins: [.plugin(name: "BuildStamp")]),
    .plugin(name: "BuildStamp", capability: .buildTool()),
    .testTarget(name: "CanonicalJSONTests", dependencies: ["CanonicalJSON"]),
    .testTarget(name: "PoseSpecTests", dependencies: ["CanonicalJSON", "Mutants", "PoseSpec"]),
    .testTarget(
      name: "JustPhotoEngineTests",
      dependencies: ["CanonicalJSON", "JustPhotoEngine", "EngineIO", "JustPhotoIO", "JustPhotoPlugin", "JustPhotoScenarios", "PoseSpec", "Replay", "ScenarioYAML"]),
    .testTarget(
      name: "RecordingTests",
      dependencies: [
        "CanonicalJSON", "EngineIO", "JustPhotoIO", "Mutants", "Recording",
        .product(name: "GRDB", package: "GRDB.swift"),
      ]),
    .testTarget(
      name: "ReplayTests",
      dependencies: [
        "CanonicalJSON", "JustPhotoEngine", "EngineIO", "EngineSeam", "JustPhotoIO", "JustPhotoPlugin", "Recording", "Replay", "Verify",
      ]),
    .testTarget(
      name: "JustPhotoScenariosTests",
      dependencies: ["CanonicalJSON", "EngineIO", "JustPhotoIO", "Mutants", "Recording", "ScenarioYAML", "JustPhotoScenarios"]),
    .testTarget(name: "PixScanEngineTests", dependencies: ["CanonicalJSON", "PixScanEngine", "PixScanScenarios", "ScenarioYAML"]),
    .testTarget(
      name: "PixScanPluginTests",
      dependencies: ["CanonicalJSON", "EngineIO", "PixScanEngine", "PixScanPlugin", "PixScanScenarios", "Replay"]),
    .testTarget(
      name: "CameraCoachTests",
      dependencies: ["CameraCoachEngine", "CameraCoachPlugin", "CameraCoachScenarios", "CanonicalJSON", "EngineIO", "Replay"]),
    .testTarget(name: "JPReplayTestingTests", dependencies: ["JPReplayTesting", "Verify"]),
    .testTarget(
      name: "CLITests",
      dependencies: [
        "CanonicalJSON", "EngineIO", "JustPhotoIO", "JustPhotoPlugin", "Lab", "Recording", "Replay", "ScenarioYAML", "JustPhotoScenarios",
        .product(name: "GRDB", package: "GRDB.swift"),
      ]),
    .testTarget(
      name: "LabTests",
      dependencies: [
        "CanonicalJSON", "EngineIO", "JustPhotoEngine", "JustPhotoIO", "JustPhotoPlugin", "Lab", "PoseSpec", "Recording",
        "Replay", "JustPhotoScenarios", "Verify",
        .product(name: "GRDB", package: "GRDB.swift"),
      ]),
    // Runs scripts/check-imports (this manifest = the import graph; the floor rules).
    .testTarget(name: "ArchitectureTests"),
  ]
)

// libFuzzer targets (docs/FUZZING.md): declared only when JPREPLAY_FUZZ=1, which scripts/fuzz
// sets while building them with libFuzzer and AddressSanitizer into .build-fuzz.
// Normal builds, tests and CI never see them.
if Context.environment["JPREPLAY_FUZZ"] == "1" {
  package.targets.append(
    .target(
      name: "FuzzSupport",
      dependencies: ["CanonicalJSON", "JustPhotoEngine", "EngineIO", "JustPhotoPlugin", "PoseSpec", "Replay"],
      path: "Fuzz/FuzzSupport"))
  let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
    ("FuzzJSONL", ["CanonicalJSON", "EngineIO", "FuzzSupport", "Recording"]),
    ("FuzzJprec", ["CanonicalJSON", "EngineIO", "FuzzSupport", "Recording"]),
    ("FuzzChunk", ["CanonicalJSON", "EngineIO", "FuzzSupport", "Recording"]),
    ("FuzzScenario", ["EngineIO", "FuzzSupport", "Recording", "JustPhotoScenarios"]),
    ("FuzzPoseSpec", ["CanonicalJSON", "EngineIO", "FuzzSupport", "PoseSpec", "Recording"]),
    ("FuzzTuneSpace", ["CanonicalJSON", "FuzzSupport", "JustPhotoPlugin", "Lab"]),
  ]
  for t in fuzzTargets {
    package.targets.append(
      .executableTarget(
        name: t.name, dependencies: t.dependencies, path: "Fuzz/\(t.name)",
        swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
  }
}
