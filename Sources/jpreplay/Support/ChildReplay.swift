import Foundation
import JustPhotoPlugin
import Recording
import Lab

/// `verify --determinism`'s other processes: this executable, run as `jpreplay replay REC -o OUT`
/// with SWIFT_DETERMINISTIC_HASHING set or unset. Process spawning lives in the CLI only.
enum ChildReplay {
  /// Runs `request` in a child process of this executable and returns its exit status.
  static func run(_ request: ChildReplayRequest) throws(HarnessFailure) -> Int32 {
    let exe = SelfExecutable.path
    var args = ["replay", request.recording, "-o", request.output]
    if let specPath = request.specPath { args += ["--spec", specPath] }
    for o in request.overrides { args += ["--set", o] }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: exe)
    p.arguments = args
    var env = ProcessInfo.processInfo.environment
    if request.deterministicHashing {
      env["SWIFT_DETERMINISTIC_HASHING"] = "1"
    } else {
      env.removeValue(forKey: "SWIFT_DETERMINISTIC_HASHING")
    }
    p.environment = env
    p.standardOutput = FileHandle.nullDevice
    do { try p.run() } catch { throw .badInput("cannot start \(exe): \(SystemReason.message(error))") }
    p.waitUntilExit()
    return p.terminationStatus
  }
}
