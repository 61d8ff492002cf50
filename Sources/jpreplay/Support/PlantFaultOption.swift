import ArgumentParser
import CameraCoachPlugin
import PixScanPlugin
import Replay
import Verify

/// The hidden `--plant-fault NAME` of `replay` and `verify` (issue 26; Camera Coach's too, issue 36): PixScan recordings are
/// replayed by an engine with that deliberate bug (docs/PIXSCAN.md "Planted faults"), so a
/// test can stand this jpreplay in for the release build of a commit that introduced the bug
/// (`bisect commits` builds one per commit, which takes minutes). Not in --help: it is for
/// tests. It says so loudly on standard error, and never writes a golden: `verify` refuses
/// `--update new|always` with it and writes nothing.
struct PlantFaultOption: ParsableArguments {
  @Option(
    name: .customLong("plant-fault"),
    help: ArgumentHelp("Replay PixScan or Camera Coach recordings with this planted engine fault (tests only; never writes goldens).", visibility: .private))
  var names: [String] = []

  var isEmpty: Bool { names.isEmpty }

  func validate() throws {
    let known = Self.all.map(\.name)
    for n in names where !known.contains(n) {
      throw ValidationError("--plant-fault '\(n)': not a PixScan planted fault nor a Camera Coach one (known: \(known.joined(separator: ", ")))")
    }
  }

  /// Every plantable fault: PixScan's, then Camera Coach's.
  static var all: [(name: String, summary: String)] { PixScanSeamEngine.plantableFaults + CameraCoachSeamEngine.plantableFaults }

  /// The engines to route recordings to: the registry's, with the named faults planted in the
  /// engine each belongs to.
  func plugins() -> [String: EnginePlugin] {
    var all = EngineRegistry.plugins
    let pix = names.filter { n in PixScanSeamEngine.plantableFaults.contains { $0.name == n } }
    let coach = names.filter { n in CameraCoachSeamEngine.plantableFaults.contains { $0.name == n } }
    if !pix.isEmpty, let faulty = PixScanSeamEngine.plugin(plantedFaults: pix) { all[faulty.name] = faulty }
    if !coach.isEmpty, let faulty = CameraCoachSeamEngine.plugin(plantedFaults: coach) { all[faulty.name] = faulty }
    return all
  }

  /// The loud warning on standard error, once per run; nothing without a fault.
  func warn() {
    let summaries = Dictionary(Self.all.map { ($0.name, $0.summary) }, uniquingKeysWith: { a, _ in a })
    for n in names {
      let engine = CameraCoachSeamEngine.plantableFaults.contains { $0.name == n } ? "Camera Coach" : "PixScan"
      printErr("jpreplay: WARNING: planted fault \(n) is ON: \(engine) recordings replay with a deliberately wrong engine (\(summaries[n] ?? n)): its traces are not \(engine)'s behaviour and must never become goldens (verify writes none)")
    }
  }

  /// `verify`: no golden is ever written (or deleted) with a planted fault.
  func refuseGoldenWrites(_ update: UpdateMode?, unreferenced: UnreferencedPolicy) throws {
    guard !names.isEmpty else { return }
    if let update, update != .no {
      throw ValidationError("--plant-fault with --update \(update.rawValue): a faulty engine's trace never becomes a golden (use --update no, or leave --update out)")
    }
    if unreferenced == .delete { throw ValidationError("--plant-fault with --unreferenced delete: a run with a planted fault changes no golden") }
  }

  /// `replay`: the fault is PixScan's; a recording of another engine is refused.
  func requirePixScan(_ plugin: EnginePlugin?, path: String) throws {
    guard !names.isEmpty, plugin == nil else { return }
    // A file that cannot be opened is left to the command, which reports it with its place.
    guard (try? RecordingEngine.name(ofRecording: path)) != nil else { return }
    throw CLIError.badInput("\(path): --plant-fault plants a PixScan engine fault; this is a Just Photo recording (Just Photo's planted faults: jpreplay faults --list)")
  }
}
