import Foundation

/// The contract matrix's table: every command of the registry and its path arguments
/// (ContractMatrixTests fails for a command or a path argument missing here).
extension ContractMatrix {
  // MARK: The table

  enum Direction: Equatable {
    case input
    /// An output file; `database` outputs (a recording, a store, a study) need a regular file.
    case output(database: Bool)
    /// A folder the command reads (`fixture`: the folder whose files it holds) or, `output`,
    /// one it creates or writes files into. The "directory" class gives it a regular file.
    case folder(output: Bool)
  }

  /// One path argument under test: `args` with `{}` where the path goes.
  struct Slot {
    var argument: String
    var args: [String]
    var direction: Direction
    /// The extension a normal path of this slot has (".jsonl").
    var ext: String
    /// For an input: the repository file it is a copy of.
    var fixture: String? = nil
    /// The command takes a folder here too (`plot -o FOLDER`, `plot FOLDER`).
    var folderAllowed = false
    /// The output may be empty (nothing to write to a full device).
    var mayBeEmpty = false
    /// The input must keep its own name (a scenario's `name:` matches its file name).
    var keepsName = false
    /// Only these classes run (the others would run the whole command, too slow here: the
    /// entry's `untested` says why), with this exit code standing for the baseline's.
    var only: (classes: [PathClass], baseline: Int32)? = nil
    /// A folder holding recordings (SQLite opens at most 512-byte paths: the 4,000-byte class may be 2).
    var holdsRecordings = false
    /// A database written at its own name after it is made (a study: SQLite's `NAME-journal`
    /// beside it), so a name over 247 bytes is refused before anything runs.
    var journalAtName = false
    /// The command reports a recording's bad input in its report on standard output (verify).
    var reportsOnStdout = false
    /// A SQLite file: its path is limited to 512 bytes and its name leaves room for `-journal`.
    var isSQLite: Bool { ext == ".jprec" || ext == ".sqlite" || holdsRecordings }
  }

  struct Entry {
    var slots: [Slot] = []
    /// Path arguments not run here, each with the reason (and where they are tested).
    var untested: [String: String] = [:]
  }

  static let recording = repo("Recordings/s04-frame-left-enter.jprec")
  static let scenario = repo("Recordings/s04-frame-left-enter.scenario.yaml")
  static let golden = repo("Golden/s04-frame-left-enter.trace.jsonl")
  static func repo(_ p: String) -> String { CLI.repoRoot.appendingPathComponent(p).path }
  static let corpus = ["--recordings-dir", repo("Recordings"), "--golden-dir", repo("Golden")]

  /// The matrix's own small fixtures, made once per run in its scratch folder (`ContractMatrix.makeFixtures`):
  /// `{FIX}/Recordings` (s04-frame-left-enter's recording and scenario), `{FIX}/Golden` (its
  /// goldens), `{FIX}/GoldenDiff` (a trace golden the replay differs from), `{FIX}/space.yaml`,
  /// `{FIX}/study.sqlite` (a 2-trial study of that space over that recording),
  /// `{FIX}/decisions.json` (a report's export deciding nothing), `{FIX}/hazards.txt`.
  static let fix = "{FIX}"
  static let name = "s04-frame-left-enter"
  static let fixCorpus = ["--recordings-dir", fix + "/Recordings", "--golden-dir", fix + "/Golden"]
  /// `tune run` over the fixture space and recording: one trial, one job.
  static func tuneRun(space: String = fix + "/space.yaml", study: String = "s.sqlite", recordingsDir: String = fix + "/Recordings") -> [String] {
    ["tune", "run", space, "--study", study, "--trials", "1", "--jobs", "1", "--corpus", name, "--no-validation", "--recordings-dir", recordingsDir]
  }

  static let corpusOptions =
    "CorpusOptions, the one resolver of --recordings-dir/--golden-dir for verify, review, accept and reject: its cells are verify's"
  static let asSpec = "as replay --spec"
  static let auditSlow =
    "an audit replays a grid over every scenario (over a minute even for a one-cue spec): only the classes refused before it runs are cells here; the rest SpecAuditCLITests"

  /// Every command of the registry (the root is ""). Recordings, scenarios and goldens are the
  /// repository's, read in place; outputs go to a scratch folder per cell.
  static let entries: [String: Entry] = [
    "": Entry(),
    "help": Entry(),
    "spec": Entry(),
    "bisect": Entry(),
    "tune": Entry(),
    "engines": Entry(),
    "record": Entry(
      slots: [
        Slot(argument: "output", args: ["record", scenario, "-o", "{}"], direction: .output(database: true), ext: ".jprec"),
        Slot(argument: "scenarios", args: ["record", "{}", "--jsonl"], direction: .input, ext: ".scenario.yaml", fixture: scenario, keepsName: true),
        Slot(
          argument: "recordings-dir", args: ["record", name, "--recordings-dir", "{}", "--jsonl"], direction: .folder(output: false), ext: "",
          fixture: fix + "/Recordings"),
      ]),
    "import": Entry(slots: [
      Slot(argument: "source", args: ["import", "{}", "-o", "imported.jprec"], direction: .input, ext: ".jsonl", fixture: "jsonl"),
      Slot(argument: "output", args: ["import", "{JSONL}", "-o", "{}"], direction: .output(database: true), ext: ".jprec"),
    ]),
    "cat": Entry(slots: [
      Slot(argument: "recording", args: ["cat", "{}"], direction: .input, ext: ".jprec", fixture: recording),
      Slot(argument: "output", args: ["cat", recording, "-o", "{}"], direction: .output(database: false), ext: ".jsonl"),
    ]),
    "info": Entry(slots: [Slot(argument: "recording", args: ["info", "{}"], direction: .input, ext: ".jprec", fixture: recording)]),
    "doctor": Entry(slots: [
      Slot(argument: "recording", args: ["doctor", "{}"], direction: .input, ext: ".jprec", fixture: recording),
      Slot(argument: "output", args: ["doctor", recording, "--recover", "-o", "{}"], direction: .output(database: true), ext: ".jprec"),
    ]),
    "spec validate": Entry(slots: [Slot(argument: "path", args: ["spec", "validate", "{}"], direction: .input, ext: ".json", fixture: repo("PoseSpec.json"))]),
    "spec audit": Entry(slots: [
      Slot(
        argument: "path", args: ["spec", "audit", "{}", "--jobs", "1"], direction: .input, ext: ".json", fixture: repo("PoseSpec.json"),
        only: ([.danglingLink, .directory, .fifo, .characterDevice, .fullDevice], 1)),
      Slot(
        argument: "accept", args: ["spec", "audit", "--jobs", "1", "--accept", "{}"], direction: .input, ext: ".txt", fixture: fix + "/hazards.txt",
        only: ([.danglingLink, .directory, .fifo, .characterDevice, .fullDevice], 1)),
      Slot(
        argument: "out", args: ["spec", "audit", "--jobs", "1", "--out", "{}"], direction: .folder(output: true), ext: "",
        only: ([.danglingLink, .directory, .fifo, .characterDevice, .fullDevice], 1)),
    ], untested: ["path": auditSlow, "accept": auditSlow, "out": auditSlow]),
    "replay": Entry(
      slots: [
        Slot(argument: "recording", args: ["replay", "{}", "-o", "/dev/null"], direction: .input, ext: ".jprec", fixture: recording),
        Slot(argument: "output", args: ["replay", recording, "-o", "{}"], direction: .output(database: false), ext: ".jsonl"),
        Slot(argument: "a13", args: ["replay", recording, "-o", "/dev/null", "--a13", "{}"], direction: .output(database: false), ext: ".jsonl", mayBeEmpty: true),
        Slot(argument: "keep-store", args: ["replay", recording, "-o", "/dev/null", "--keep-store", "{}"], direction: .output(database: true), ext: ".sqlite"),
        Slot(argument: "spec", args: ["replay", recording, "-o", "/dev/null", "--spec", "{}"], direction: .input, ext: ".json", fixture: repo("PoseSpec.json")),
      ]),
    "verify": Entry(
      slots: [
        Slot(argument: "junit", args: ["verify", "s04-frame-left-enter"] + corpus + ["--junit", "{}"], direction: .output(database: false), ext: ".xml"),
        Slot(argument: "html", args: ["verify", name] + fixCorpus + ["--html", "{}"], direction: .output(database: false), ext: ".html"),
        Slot(
          argument: "recordings-dir", args: ["verify", name, "--golden-dir", fix + "/Golden", "--recordings-dir", "{}"],
          direction: .folder(output: false), ext: "", fixture: fix + "/Recordings", holdsRecordings: true, reportsOnStdout: true),
        Slot(
          argument: "golden-dir", args: ["verify", name, "--recordings-dir", fix + "/Recordings", "--golden-dir", "{}"],
          direction: .folder(output: false), ext: "", fixture: fix + "/Golden"),
      ], untested: ["spec": asSpec]),
    "review": Entry(untested: ["recordings-dir": corpusOptions, "golden-dir": corpusOptions]),
    "accept": Entry(
      slots: [
        Slot(
          argument: "decisions", args: ["accept", "--decisions", "{}"] + fixCorpus, direction: .input, ext: ".json", fixture: fix + "/decisions.json")
      ], untested: ["recordings-dir": corpusOptions, "golden-dir": corpusOptions]),
    "reject": Entry(untested: ["recordings-dir": corpusOptions, "golden-dir": corpusOptions]),
    "diff": Entry(
      slots: [
        Slot(argument: "a", args: ["diff", "{}", recording], direction: .input, ext: ".trace.jsonl", fixture: golden),
        Slot(argument: "html", args: ["diff", golden, recording, "--html", "{}"], direction: .output(database: false), ext: ".html"),
      ], untested: ["b": "as a", "spec": "as replay --spec"]),
    "bisect spec": Entry(slots: [
      Slot(
        argument: "old", args: ["bisect", "spec", "{}", repo("PoseSpec.json"), name, "--jobs", "1", "--recordings-dir", fix + "/Recordings"],
        direction: .input, ext: ".json", fixture: repo("PoseSpec.json")),
      Slot(
        argument: "new", args: ["bisect", "spec", repo("PoseSpec.json"), "{}", name, "--jobs", "1", "--recordings-dir", fix + "/Recordings"],
        direction: .input, ext: ".json", fixture: repo("PoseSpec.json")),
      Slot(
        argument: "recordings-dir", args: ["bisect", "spec", repo("PoseSpec.json"), repo("PoseSpec.json"), name, "--jobs", "1", "--recordings-dir", "{}"],
        direction: .folder(output: false), ext: "", fixture: fix + "/Recordings", holdsRecordings: true),
    ]),
    "bisect commits": Entry(untested: ["golden-dir": "a git history (BisectCommitsTests)", "minimize-dir": "a git history (BisectCommitsTests)"]),
    "bisect step": Entry(untested: ["state": "run by git bisect only (BisectCommitsTests)", "reference": "run by git bisect only"]),
    "minimize": Entry(
      slots: [
        Slot(
          argument: "recording", args: ["minimize", "{}", "--expect", "cue_display", "-o", "min.jprec"], direction: .input, ext: ".jprec",
          fixture: fix + "/Recordings/" + name + ".jprec"),
        Slot(
          argument: "output", args: ["minimize", fix + "/Recordings/" + name + ".jprec", "--expect", "cue_display", "-o", "{}"],
          direction: .output(database: true), ext: ".jprec"),
        Slot(
          argument: "golden-dir", args: ["minimize", fix + "/Recordings/" + name + ".jprec", "-o", "min.jprec", "--golden-dir", "{}"],
          direction: .folder(output: false), ext: "", fixture: fix + "/GoldenDiff"),
      ],
      untested: [
        "write-golden":
          "needs --against a second engine that replays the recording differently (MinimizeTests builds one); the goldens go through SafeFile as -o does",
        "spec": asSpec,
      ]),
    "coverage": Entry(untested: ["spec": "as replay --spec"]),
    "bench": Entry(untested: ["recording": "a benchmark run per cell is too slow", "spec": "as replay --spec", "tune-space": "a benchmark run per cell is too slow; its space file is read as tune run's (cells there)"]),
    "score": Entry(
      slots: [Slot(argument: "recordings", args: ["score", "{}"], direction: .input, ext: ".jprec", fixture: recording)],
      untested: ["spec": "as replay --spec"]),
    "plot": Entry(
      slots: [
        Slot(argument: "recordings", args: ["plot", "{}", "-o", "/dev/null"], direction: .input, ext: ".jprec", fixture: recording, folderAllowed: true),
        Slot(argument: "output", args: ["plot", recording, "-o", "{}"], direction: .output(database: false), ext: ".svg", folderAllowed: true),
      ], untested: ["spec": "as replay --spec", "to": "the end time (ms), not a path"]),
    "export": Entry(
      slots: [
        Slot(
          argument: "recordings", args: ["export", "--mcap", "/dev/null", "{}", "--no-metrics"], direction: .input, ext: ".jprec",
          fixture: recording, folderAllowed: true),
        Slot(argument: "mcap", args: ["export", "--mcap", "{}", recording, "--no-metrics"], direction: .output(database: false), ext: ".mcap", folderAllowed: true),
        Slot(
          argument: "golden-dir", args: ["export", "--mcap", "/dev/null", recording, "--no-metrics", "--golden", "--golden-dir", "{}"],
          direction: .folder(output: false), ext: "", fixture: fix + "/Golden"),
      ], untested: ["spec": "as replay --spec", "to": "the end time (ms), not a path"]),
    "tune run": Entry(
      slots: [
        Slot(argument: "space", args: tuneRun(space: "{}"), direction: .input, ext: ".yaml", fixture: fix + "/space.yaml"),
        Slot(argument: "study", args: tuneRun(study: "{}"), direction: .output(database: true), ext: ".sqlite", journalAtName: true),
        Slot(
          argument: "recordings-dir", args: tuneRun(recordingsDir: "{}"), direction: .folder(output: false), ext: "",
          fixture: fix + "/Recordings", holdsRecordings: true),
      ], untested: ["spec": asSpec]),
    "tune report": Entry(
      slots: [
        Slot(argument: "study", args: ["tune", "report", "{}"], direction: .input, ext: ".sqlite", fixture: fix + "/study.sqlite"),
        Slot(argument: "svg", args: ["tune", "report", fix + "/study.sqlite", "--svg", "{}"], direction: .output(database: false), ext: ".svg"),
        Slot(
          argument: "html", args: ["tune", "report", fix + "/study.sqlite", "--timelines", "0", "--html", "{}"], direction: .output(database: false),
          ext: ".html"),
        Slot(
          argument: "recordings-dir", args: ["tune", "report", fix + "/study.sqlite", "--html", "r.html", "--timelines", "1", "--recordings-dir", "{}"],
          direction: .folder(output: false), ext: "", fixture: fix + "/Recordings", holdsRecordings: true),
      ], untested: ["spec": asSpec]),
    "tune promote": Entry(
      slots: [
        Slot(argument: "study", args: ["tune", "promote", "{}", "0", "--to", "promoted"], direction: .input, ext: ".sqlite", fixture: fix + "/study.sqlite"),
        Slot(argument: "to", args: ["tune", "promote", fix + "/study.sqlite", "0", "--to", "{}"], direction: .folder(output: true), ext: ""),
      ], untested: ["spec": asSpec, "recordings-dir": "the test set's folder, read after the trial is written (TuneTestSetTests)", "test-set": "a glob of recording names, not a path"]),
    "tune rebuild": Entry(untested: [
      "recipe": "a study run per cell is too slow (TuneRecipeTests runs a short recipe)", "study": "as tune run --study",
    ]),
    "tune merge": Entry(slots: [
      Slot(argument: "studies", args: ["tune", "merge", "{}", "-o", "merged.sqlite"], direction: .input, ext: ".sqlite", fixture: fix + "/study.sqlite"),
      Slot(argument: "o", args: ["tune", "merge", fix + "/study.sqlite", "-o", "{}"], direction: .output(database: true), ext: ".sqlite"),
    ]),
    "tune export": Entry(slots: [
      Slot(argument: "study", args: ["tune", "export", "{}", "--optuna", "optuna.log"], direction: .input, ext: ".sqlite", fixture: fix + "/study.sqlite"),
      Slot(argument: "optuna", args: ["tune", "export", fix + "/study.sqlite", "--optuna", "{}"], direction: .output(database: false), ext: ".log"),
    ]),
    "report": Entry(slots: [
      Slot(argument: "output", args: ["report", "-o", "{}", "s04-frame-left-enter"] + corpus, direction: .output(database: false), ext: ".html")
    ]),
    "faults": Entry(untested: ["spec": "as replay --spec"]),
  ]
}
