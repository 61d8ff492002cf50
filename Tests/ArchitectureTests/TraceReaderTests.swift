import Foundation
import Testing

/// Issue 36 item 3: one trace record in memory. A replay's records travel in memory to every
/// check (`ReplayProducts.records`, `LineSink.write(record:)`); trace text is written by one
/// writer (`TraceFormat.line`) and read back by one reader (`GoldenTrace.read` in
/// Sources/Replay/TraceFormat.swift), only where the text crosses a file boundary: a golden, a
/// pending `.new`, a file given to `diff`, another process's output.
@Suite("One trace reader")
struct TraceReaderTests {
  /// The one reader's home: the only file that may turn trace text into records by hand.
  static let readerFile = "Sources/Replay/TraceFormat.swift"

  /// Lines of a hand-written trace parser: JSON parsed and a trace key (`out`, `t`) read
  /// from it, a `TraceLine` made from a parsed line, or the old per-line reader. The needles
  /// are split so this file does not match itself.
  static let parseNeedles = ["JSONParser" + ".parse"]
  static let traceKeyNeedles = ["[\"" + "out\"]", "[\"" + "t\"]", "TraceLine" + "(line:", "record" + "(fromLine"]

  /// Whether `text` (a Swift file, comments excluded) parses trace lines by hand.
  static func parsesTraceText(_ text: String) -> [String] {
    let parses = !SourceRulesTests.codeLines(text, containing: parseNeedles).isEmpty
    let keys = SourceRulesTests.codeLines(text, containing: traceKeyNeedles)
    return parses ? keys : SourceRulesTests.codeLines(text, containing: ["record" + "(fromLine"])
  }

  /// Files that parse JSON and name a trace key without reading records: why each may.
  static let notReaders: [String: String] = [
    "Sources/Verify/TraceDiffer.swift":
      "diffTexts sniffs whether two files are traces or A.13 (a first line with `event` and no `out`); it reads records through parseTrace",
  ]

  @Test("no file under Sources/ but the one reader's parses trace text by hand")
  func noSecondParser() throws {
    let files = SourceRulesTests.swiftFiles(under: "Sources")
    #expect(files.count > 100, "the scan found \(files.count) files; is the repository root right?")
    var offenders: [String] = []
    for f in files where f != Self.readerFile && Self.notReaders[f] == nil {
      let text = try String(contentsOf: SourceRulesTests.repoRoot.appendingPathComponent(f), encoding: .utf8)
      offenders += Self.parsesTraceText(text).map { "\(f): \($0.trimmingCharacters(in: .whitespaces))" }
    }
    #expect(offenders == [], "parse trace text only in \(Self.readerFile) (GoldenTrace.read); feed a replay's records instead")
    // The one reader is seen by the scan (so a copy elsewhere would be).
    let reader = try String(contentsOf: SourceRulesTests.repoRoot.appendingPathComponent(Self.readerFile), encoding: .utf8)
    #expect(!Self.parsesTraceText(reader).isEmpty)
  }

  /// The shapes the trace was parsed back with before issue 36 item 3 (the scenario checks,
  /// the expectation trace, budgets, prompt invariants, export): each is seen.
  @Test("the scan sees each shape of hand-written trace parser the tree had")
  func seesOldShapes() {
    let shapes = [
      // PixCheck / CCCheck `records(trace:)`, Expectations `init(traceText:)`
      #"guard case .object(var o)? = try? JSONParser.parse(String(line)), let kind = o["out"]?.stringValue, let t = o["t"]?.int64Value else {"#,
      // BudgetCheck
      #"guard let v = try? JSONParser.parse(String(line)), let t = v["t"]?.doubleValue.map({ Int64($0) }) else { continue }"#,
      // PromptInvariants
      #"guard let v = try? JSONParser.parse(String(line)), TraceLine(line: v)?.kind == .prompt,"#,
      // Export / MCAPExport reading the replay's own lines
      #"do { record = try TraceFormat.record(fromLine: line) } catch { throw MCAPError("…") }"#,
    ]
    for s in shapes { #expect(!Self.parsesTraceText(s).isEmpty, "\(s)") }
    // A writer or an A.13 reader is not a trace parser.
    #expect(Self.parsesTraceText(#"let ts = (try? JSONParser.parse(line))?["ts_ms"]?.int64Value"#).isEmpty)
    #expect(Self.parsesTraceText(#"object["t"] = .number(Double(record.t))"#).isEmpty)
  }

  /// The calls that read trace text into records: the reader and its wrappers.
  static let readerCalls = [
    "GoldenTrace" + ".read(", "GoldenTrace" + ".records(", "parse" + "Trace(", "diffTrace" + "Files(", "lanes(of" + "Trace:",
    "ReplayProducts(golden" + "Trace:",
  ]

  /// Every file that reads trace text, and the file boundary it reads at. A new reader of a
  /// replay's own text fails here: hand it `ReplayProducts.records` (or a `LineSink` that
  /// takes `write(record:)`) instead.
  static let boundaries: [String: String] = [
    "Sources/Replay/ReplayDriver.swift": "ReplayProducts(goldenTrace:): a pending golden's products",
    "Sources/Verify/DiffModel.swift": "StructuredLine.parseTrace: a golden, a .new, a file given to diff",
    "Sources/Verify/TraceDiffer.swift": "the golden side of every diff; diffTraceFiles: two files",
    "Sources/Verify/Verifier.swift": "Verifier.compare: a golden against a .new (review, pending groups)",
    "Sources/Verify/ScenarioChecks.swift": "unmetRules: a pending .new (or its golden) judged by the scenario's rules",
    "Sources/JustPhotoPlugin/BudgetLimits+Verify.swift": "verify --budgets: the golden trace",
    "Sources/jpreplay/Subcommands/Diff.swift": "jpreplay diff: a trace file given on the command line",
    "Sources/jpreplay/Support/MCAPExport.swift": "export --golden: the golden trace",
    "Sources/jpreplay/Support/BisectWorkspace.swift": "bisect: the trace files another commit's jpreplay wrote",
    "Sources/Lab/Minimize/RegressionProperty.swift": "minimize --regression: the reference side may be another binary's output",
    "Sources/Lab/Report/HTMLReportBuilder.swift":
      "HTMLReportTrace.file: the lanes of a golden, a .new or a trace file given to diff (a replay's side is .records)",
  ]

  @Test("trace text is read into records only at a file boundary (each reader named with its boundary)")
  func readersAreBoundaries() throws {
    var readers: [String: [String]] = [:]
    for f in SourceRulesTests.swiftFiles(under: "Sources") where f != Self.readerFile {
      let text = try String(contentsOf: SourceRulesTests.repoRoot.appendingPathComponent(f), encoding: .utf8)
      let calls = SourceRulesTests.codeLines(text, containing: Self.readerCalls).filter {
        !$0.contains("func ")  // a wrapper's declaration is not a call
      }
      if !calls.isEmpty { readers[f] = calls.map { $0.trimmingCharacters(in: .whitespaces) } }
    }
    let unexpected = readers.filter { Self.boundaries[$0.key] == nil }
    #expect(unexpected.isEmpty, "read a replay's records, not its text: \(unexpected)")
    // The list is exact: a boundary that no longer reads comes off it.
    let stale = Self.boundaries.keys.filter { readers[$0] == nil }.sorted()
    #expect(stale == [], "no longer read trace text: remove from TraceReaderTests.boundaries")
  }
}
