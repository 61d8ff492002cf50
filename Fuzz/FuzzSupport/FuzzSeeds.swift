import Foundation

/// The seed corpus of a fuzz target, written from the repository's committed files when
/// scripts/fuzz asks (`JPREPLAY_FUZZ_WRITE_SEEDS=DIR`): each driver's `LLVMFuzzerInitialize`
/// calls ``writeIfAsked(_:)`` with what it makes from `Recordings/` and `PoseSpec.json`.
/// Seeds live in the scratch folder (.build-fuzz), never in git.
public enum FuzzSeeds {
  /// The environment variable naming the folder to write seeds to (then the process exits).
  public static let variable = "JPREPLAY_FUZZ_WRITE_SEEDS"

  /// Committed recordings that between them hold every channel: landmarks and luma, UI and
  /// device events, effects and their results, a reference analysis, an inline PoseSpec.
  public static let recordings = [
    "s05-head-level-flicker", "s11-severity-boost", "s24-thermal-degrade", "s29-fetch-retry",
    "s36-album-retries", "s02-posespec-alias", "outdoor-reference-mirror", "kill-while-writing",
  ]

  public static func recordingPath(_ name: String) -> String {
    FuzzReplay.repositoryRoot.appendingPathComponent("Recordings/\(name).jprec").path
  }

  /// With ``variable`` set: writes `make()`'s seeds as files of that folder, says how many,
  /// and exits. Otherwise does nothing (a fuzzing run).
  public static func writeIfAsked(_ make: () throws -> [(name: String, bytes: [UInt8])]) {
    guard let dir = ProcessInfo.processInfo.environment[variable] else { return }
    do {
      try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
      let seeds = try make()
      for s in seeds {
        try Data(s.bytes).write(to: URL(fileURLWithPath: dir).appendingPathComponent(s.name))
      }
      print("fuzz: wrote \(seeds.count) seeds to \(dir)")
      exit(0)
    } catch {
      print("fuzz: cannot write seeds to \(dir): \(error)")
      exit(2)
    }
  }
}
