import ArgumentParser
import EngineSeam
import Verify

extension JPReplay {
  /// `jpreplay engines`: the engines this jpreplay replays and where their corpora live, one
  /// line each (what `scripts/verify` loops over, so a new engine's corpus is verified without
  /// editing the script).
  struct Engines: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "engines",
      abstract: "List the engines this jpreplay replays, with their corpus folders.",
      discussion: """
        One line per engine, Just Photo first, then the registered plug-ins in registry order: \
        the name a recording header gives in `engine`, the engine's name in reports, its \
        recordings folder and its goldens folder, separated by tabs. `scripts/verify` replays \
        each corpus listed (docs/ARCHITECTURE.md, "Add an engine").

        Examples:
          jpreplay engines
          jpreplay engines | cut -f1
        """)

    /// The lines printed: name, title, recordings folder, goldens folder.
    static var rows: [[String]] {
      EngineRegistry.engines.map { [$0.name, $0.title, $0.corpus.recordings, $0.corpus.golden] }
    }

    func run() throws {
      for row in Self.rows { print(row.joined(separator: "\t")) }
    }
  }
}
