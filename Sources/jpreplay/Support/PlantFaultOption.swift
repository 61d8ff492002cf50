import ArgumentParser
import Replay
import Verify

/// The hidden `--plant-fault NAME` of `replay` and `verify` (issues 26 and 36): a registered
/// engine's recordings are replayed by an engine with that deliberate bug (e.g. docs/PIXSCAN.md
/// "Planted faults"), so a test can stand this jpreplay in for the release build of a commit
/// that introduced the bug (`bisect commits` builds one per commit, which takes minutes). Not
/// in --help: it is for tests. It says so loudly on standard error, and never writes a golden:
/// `verify` refuses `--update new|always` with it and writes nothing. Every engine in
/// `EngineRegistry.engines` with planted faults takes part; none is named here.
struct PlantFaultOption: ParsableArguments {
  @Option(
    name: .customLong("plant-fault"),
    help: ArgumentHelp("Replay \(PlantFaultOption.titles(" or ")) recordings with this planted engine fault (tests only; never writes goldens).", visibility: .private))
  var names: [String] = []

  var isEmpty: Bool { names.isEmpty }

  /// The registered engines that have planted faults, in registry order.
  static var engines: [EngineRegistration] { EngineRegistry.engines.filter { !$0.plantableFaults.isEmpty } }

  /// Their titles joined by `separator` (`PixScan or Camera Coach`).
  static func titles(_ separator: String) -> String { engines.map(\.title).joined(separator: separator) }

  func validate() throws {
    let known = Self.all.map(\.name)
    for n in names where !known.contains(n) {
      // `not a PixScan planted fault nor a Camera Coach one`
      let titles = Self.engines.map(\.title)
      let what = titles.first.map { "not a \($0) planted fault" + titles.dropFirst().map { " nor a \($0) one" }.joined() } ?? "not a planted fault"
      throw ValidationError("--plant-fault '\(n)': \(what) (known: \(known.joined(separator: ", ")))")
    }
  }

  /// Every plantable fault, engine by engine in registry order.
  static var all: [PlantableFault] { engines.flatMap(\.plantableFaults) }

  /// The engine that plants fault `name`.
  static func engine(planting name: String) -> EngineRegistration? { engines.first { $0.plants(name) } }

  /// The engines to route recordings to: the registry's, with the named faults planted in the
  /// engine each belongs to.
  func plugins() -> [String: EnginePlugin] {
    var all = EngineRegistry.plugins
    for e in Self.engines {
      let mine = names.filter(e.plants)
      if !mine.isEmpty, let faulty = e.withPlantedFaults(mine) { all[faulty.name] = faulty }
    }
    return all
  }

  /// The loud warning on standard error, once per run; nothing without a fault.
  func warn() {
    let summaries = Dictionary(Self.all.map { ($0.name, $0.summary) }, uniquingKeysWith: { a, _ in a })
    for n in names {
      let engine = Self.engine(planting: n)?.title ?? "?"
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

  /// `replay`: the recording is of an engine that plants faults this way; another engine's
  /// (Just Photo's: its planted faults are `jpreplay faults`') is refused.
  func requireEngineRecording(_ plugin: EnginePlugin, path: String) throws {
    guard let first = names.first, !Self.engines.contains(where: { $0.name == plugin.name }) else { return }
    // A file that cannot be opened is left to the command, which reports it with its place.
    guard (try? RecordingEngine.name(ofRecording: path, definitions: plugin.definitions)) != nil else { return }
    let title = Self.engine(planting: first)?.title ?? "?"
    let own = EngineRegistry.title(of: plugin)
    throw CLIError.badInput("\(path): --plant-fault plants a \(title) engine fault; this is a \(own) recording (\(own)'s planted faults: jpreplay faults --list)")
  }
}
