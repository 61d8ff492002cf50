import Foundation

/// The contract matrix's table: every command of the registry and its path arguments
/// (ContractMatrixTests fails for a command or a path argument missing here).
extension ContractMatrix {
  // MARK: The table

  enum Direction: Equatable {
    case input
    /// An output file; `database` outputs (a recording, a store, a study) need a regular file.
    case output(database: Bool)
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
    /// A SQLite file: its path is limited to 512 bytes and its name leaves room for `-journal`.
    var isSQLite: Bool { ext == ".jprec" || ext == ".sqlite" }
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

  static let corpusArgs = "a folder of the corpus (GoldenStoreTests, VerifyReportTests)"
  static let studyArgs = "a tune study (TuneSafetyTests, TuneCLITests): making one per cell is too slow here"
  static let slowArgs = "a grid or minimization run per cell is too slow for the matrix (SpecAuditCLITests, MinimizeTests)"

  /// Every command of the registry (the root is ""). Recordings, scenarios and goldens are the
  /// repository's, read in place; outputs go to a scratch folder per cell.
  static let entries: [String: Entry] = [
    "": Entry(),
    "help": Entry(),
    "spec": Entry(),
    "bisect": Entry(),
    "tune": Entry(),
    "record": Entry(
      slots: [
        Slot(argument: "output", args: ["record", scenario, "-o", "{}"], direction: .output(database: true), ext: ".jprec"),
        Slot(argument: "scenarios", args: ["record", "{}", "--jsonl"], direction: .input, ext: ".scenario.yaml", fixture: scenario, keepsName: true),
      ], untested: ["recordings-dir": corpusArgs]),
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
    "spec audit": Entry(untested: ["path": slowArgs, "accept": slowArgs, "out": slowArgs]),
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
      ], untested: ["recordings-dir": corpusArgs, "golden-dir": corpusArgs, "spec": "as replay --spec", "html": "as diff --html (HTMLReportCLITests)"]),
    "review": Entry(untested: ["recordings-dir": corpusArgs, "golden-dir": corpusArgs]),
    "accept": Entry(untested: ["recordings-dir": corpusArgs, "golden-dir": corpusArgs, "decisions": "a report's decisions file (HTMLReportCLITests)"]),
    "reject": Entry(untested: ["recordings-dir": corpusArgs, "golden-dir": corpusArgs]),
    "diff": Entry(
      slots: [
        Slot(argument: "a", args: ["diff", "{}", recording], direction: .input, ext: ".trace.jsonl", fixture: golden),
        Slot(argument: "html", args: ["diff", golden, recording, "--html", "{}"], direction: .output(database: false), ext: ".html"),
      ], untested: ["b": "as a", "spec": "as replay --spec"]),
    "bisect spec": Entry(untested: ["old": slowArgs, "new": slowArgs, "recordings-dir": corpusArgs]),
    "bisect commits": Entry(untested: ["golden-dir": "a git history (BisectCommitsTests)", "minimize-dir": "a git history (BisectCommitsTests)"]),
    "bisect step": Entry(untested: ["state": "run by git bisect only (BisectCommitsTests)", "reference": "run by git bisect only"]),
    "minimize": Entry(untested: [
      "recording": slowArgs, "output": slowArgs, "golden-dir": slowArgs, "write-golden": slowArgs, "spec": "as replay --spec",
    ]),
    "coverage": Entry(untested: ["spec": "as replay --spec"]),
    "bench": Entry(untested: ["recording": "a benchmark run per cell is too slow", "spec": "as replay --spec", "tune-space": studyArgs]),
    "score": Entry(
      slots: [Slot(argument: "recordings", args: ["score", "{}"], direction: .input, ext: ".jprec", fixture: recording)],
      untested: ["spec": "as replay --spec"]),
    "plot": Entry(
      slots: [
        Slot(argument: "recordings", args: ["plot", "{}", "-o", "/dev/null"], direction: .input, ext: ".jprec", fixture: recording, folderAllowed: true),
        Slot(argument: "output", args: ["plot", recording, "-o", "{}"], direction: .output(database: false), ext: ".svg", folderAllowed: true),
      ], untested: ["spec": "as replay --spec", "to": "the end time (ms), not a path"]),
    "tune run": Entry(untested: ["space": studyArgs, "study": studyArgs, "spec": "as replay --spec", "recordings-dir": corpusArgs]),
    "tune report": Entry(untested: ["study": studyArgs, "svg": studyArgs, "html": studyArgs, "spec": "as replay --spec", "recordings-dir": corpusArgs]),
    "tune promote": Entry(untested: [
      "study": studyArgs, "spec": "as replay --spec", "to": studyArgs, "recordings-dir": corpusArgs,
      "test-set": "a glob of recording names, not a path",
    ]),
    "tune rebuild": Entry(untested: [
      "recipe": "a study run per cell is too slow (TuneRecipeTests runs a short recipe)", "study": studyArgs,
    ]),
    "tune merge": Entry(untested: ["studies": studyArgs, "o": studyArgs]),
    "tune export": Entry(untested: [
      "study": studyArgs, "optuna": studyArgs + "; TuneExportCLITests refuses a directory and a link to a file as the output",
    ]),
    "report": Entry(slots: [
      Slot(argument: "output", args: ["report", "-o", "{}", "s04-frame-left-enter"] + corpus, direction: .output(database: false), ext: ".html")
    ]),
    "faults": Entry(untested: ["spec": "as replay --spec"]),
  ]
}
