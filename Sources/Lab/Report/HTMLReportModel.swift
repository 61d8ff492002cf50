import CanonicalJSON
import EngineIO
import EngineSeam
import JustPhotoIO
import PoseSpec
import Verify

/// Bounds of the HTML report (`jpreplay report`, `verify --html`, `diff --html`).
package enum HTMLReportLimits {
  /// Recordings given a timeline in one report (divergent ones, name order); the rest are
  /// listed in the table only.
  package static let timelinesMax = 200
  /// Rows of the divergence table (every divergence up to this; the page says how many more).
  package static let rowsMax = 20_000
  /// Cues whose metric series a timeline carries (the cues of its divergences first).
  package static let focusCuesMax = 4
  /// Markers (displays, cards, praise, prompts) per lane and side.
  package static let markersMax = 20_000
  /// Encoded series bytes per recording per 10 minutes of recording (landmarks, metrics,
  /// gate): the page stays within 2 MB per 10 minutes of a 30 fps recording with its table
  /// and script. Short recordings get at least `seriesBytesFloor`.
  package static let seriesBytesPerTenMinutes = 1_800_000
  package static let seriesBytesFloor = 300_000
  /// Lines of the metric explanation kept per row (``CueEvalTable`` rows of the cues involved).
  package static let causeLinesMax = 60
  /// Characters of any one text field carried into the page (names, explanations).
  package static let textCharactersMax = 2_000
  /// Series characters (every recording's, both sides) above which the page is lazy: each
  /// recording's series go in a data block of their own, parsed when the reader opens that
  /// recording, and the page is written block by block (a 5 MB page or more).
  package static let lazySeriesCharacters = 5_000_000
  /// Distinct names (cue states, shown cues) one recording's collected series number
  /// (``HTMLReportColumns``; a `u16` index each): the engine's states are four and the shown
  /// cues the spec's, so a later name reading as the empty one never happens in practice.
  package static let seriesNamesMax = 65_535
  /// Events (labels included) of the recording a timeline replays, checked as each is read:
  /// its series grow by some 80 bytes a frame (``HTMLReportColumns``), so about 80 MB at most.
  /// The bound `CorpusScorer.load` held the recording's events to before (issue 38 item 5),
  /// with the same message.
  package static let timelineEventsMax = ScoreLimits.corpusEventsMax
}

/// One divergence of the run as an event: which recording, which file, when, which cue, what
/// kind of change, the differ's one-sentence explanation and the metric table around it.
package struct HTMLReportRow: Equatable, Sendable {
  package var recording: String
  /// `trace` or `a13`.
  package var file: String
  package var t: Millis
  /// The first cue the records name; empty when none.
  package var cue: String
  /// added, removed, shifted, new flicker, level changed, prompt changed, changed.
  package var kind: String
  /// The group shape (``DivergenceGroup``): "moved +1 frame (15 Hz)", "level hard → warn", …
  package var detail: String
  /// The shift of a `shifted` row, ms (replay minus golden).
  package var deltaMs: Millis?
  /// ``Divergence/explanation``, as `verify` and `diff` print it.
  package var explanation: String
  /// ``CueEvalTable`` lines (thresholds, levels, gate counters within 500 ms), as `diff` prints them.
  package var cause: [String]

  package init(
    recording: String, file: String, t: Millis, cue: String, kind: String, detail: String, deltaMs: Millis?,
    explanation: String, cause: [String]
  ) {
    self.recording = recording
    self.file = file
    self.t = t
    self.cue = cue
    self.kind = kind
    self.detail = detail
    self.deltaMs = deltaMs
    self.explanation = explanation
    self.cause = cause
  }

  /// The row kind of `d`: prompts first (any change of a prompt record), then a display that
  /// appears and goes within `minHoldMs` in the new run (a new flicker), then the differ's kind.
  package static func kind(of d: Divergence, newDisplayEnd: (Millis) -> Millis?, minHoldMs: Millis) -> String {
    let recordKind = (d.golden ?? d.replay)?.trace.kind
    if recordKind == .prompt { return "prompt changed" }
    switch d.kind {
    case .missingInReplay: return "removed"
    case .extraInReplay:
      if recordKind == .cue_display, let r = d.replay, r.trace.cueId != nil,
        let end = newDisplayEnd(r.t), end - r.t < minHoldMs
      {
        return "new flicker"
      }
      return "added"
    case .moved: return "shifted"
    case .changed(let fields):
      return fields.contains { $0.field == "level" } ? "level changed" : "changed"
    }
  }
}

/// Markers of one side (golden or new) of a recording's timeline, from its trace records.
package struct HTMLReportLanes: Equatable, Sendable {
  /// Each `cue_display`: time, cue (nil: nothing shown), level.
  package var displays: [(t: Millis, cue: String?, level: String)] = []
  package var cards: [(t: Millis, text: String)] = []
  package var praise: [(t: Millis, text: String)] = []
  package var prompts: [(t: Millis, text: String)] = []
  /// Another engine's marks (``HTMLReportTimeline/laneNames``): time, lane index, title.
  package var marks: [(t: Millis, lane: Int, text: String)] = []
  package init() {}

  package static func == (a: HTMLReportLanes, b: HTMLReportLanes) -> Bool {
    a.displays.elementsEqual(b.displays) { $0.t == $1.t && $0.cue == $1.cue && $0.level == $1.level }
      && a.cards.elementsEqual(b.cards) { $0 == $1 } && a.praise.elementsEqual(b.praise) { $0 == $1 }
      && a.prompts.elementsEqual(b.prompts) { $0 == $1 }
      && a.marks.elementsEqual(b.marks) { $0.t == $1.t && $0.lane == $1.lane && $0.text == $1.text }
  }

  /// The marks of another engine's trace `lines` on `lanes` (the vocabulary's
  /// ``TraceTimeline/pageLanes``): one per line of a lane's kind, at most `markersMax` per lane.
  package static func marks(of lines: [StructuredLine], lanes: [TraceTimeline.Markers]) -> HTMLReportLanes {
    var out = HTMLReportLanes()
    var counts = [Int](repeating: 0, count: lanes.count)
    for l in lines {
      for (i, lane) in lanes.enumerated() where lane.out == l.kind && counts[i] < HTMLReportLimits.markersMax {
        counts[i] += 1
        out.marks.append((l.t, i, lane.text(l.fields)))
      }
    }
    return out
  }

  /// Adds one trace record (kind `out`, fields without `t` and `out`); other kinds are ignored.
  package mutating func add(t: Millis, kind: String, fields: JSONObject) {
    func s(_ k: TraceField) -> String { fields[k].map(Self.text) ?? "none" }
    let cap = HTMLReportLimits.markersMax
    switch OutputKind(rawValue: kind) {
    case .cue_display where displays.count < cap:
      displays.append((t, fields[.cue_id]?.stringValue, s(.level)))
    case .script_card where cards.count < cap:
      cards.append((t, "\(s(.cue_id)) · \(s(.en))"))
    case .praise where praise.count < cap:
      praise.append((t, "\(s(.state)) \(s(.trigger)) \(s(.dimension))"))
    case .prompt where prompts.count < cap:
      prompts.append((t, "\(s(.op)) \(s(.key)) \(s(.level)) \(s(.en))"))
    default: break
    }
  }

  /// The end of the display that starts at `t` (the next `cue_display` showing another cue),
  /// nil when none starts there or it lasts to the end.
  package func displayEnd(startingAt t: Millis) -> Millis? {
    guard let i = displays.firstIndex(where: { $0.t == t && $0.cue != nil }) else { return nil }
    let cue = displays[i].cue
    return displays[(i + 1)...].first { $0.cue != cue }?.t
  }

  static func text(_ v: JSONValue) -> String {
    switch v {
    case .null: "none"
    case .string(let s): s
    case .number(let d): JSONWriter.formatNumber(d)
    default: JSONWriter.write(v, sortKeys: true)
    }
  }
}

/// The dense series of one recording: cue metrics and gate counters per T0 evaluation,
/// landmarks per frame. Filled by one replay with metric tracing (``HTMLReportBuilder``).
package struct HTMLReportSeries: Sendable {
  /// The cues whose metrics are kept, in focus order.
  package var cues: [String] = []
  /// The time of each T0 evaluation.
  package var evalT: [Millis] = []
  /// Per cue, per evaluation: the error (nil: unavailable) and the observed level.
  package var values: [[Double?]] = []
  package var levels: [[CueLevel]] = []
  /// Per cue, per evaluation: the hysteresis state (`inactive`, `active:hard`, `unavailable`,
  /// `candidate`; empty when the cue was not evaluated).
  package var states: [[String]] = []
  /// Per cue, the thresholds of its first judged evaluation.
  package var thresholds: [ThresholdSet?] = []
  /// Per evaluation: the gate's shown cue (nil none), persist counter and the persist it
  /// counts to (the input cue's own), held ms, cooling down.
  package var gateShown: [String?] = []
  package var gateStable: [Int] = []
  package var gatePersist: [Int] = []
  package var gateHeldMs: [Millis] = []
  package var gateCooling: [Bool] = []
  package var persistFrames = 0
  package var minHoldMs = 0
  /// Landmark frames: time and 19 body joints (x, y canonical y-down; nil: absent or below
  /// the 0.5 confidence the engine keeps).
  package var landmarkT: [Millis] = []
  package var landmarks: [[(x: Double, y: Double)?]] = []
  package init() {}
}

/// The spec the golden side of a recording is replayed under for its series: the spec the
/// golden was made with (nil when it cannot be found), and the page's sentence saying where
/// it came from or why it is missing.
package struct HTMLReportGoldenSpec: Sendable {
  package var spec: PoseSpecDocument?
  package var note: String
  package init(spec: PoseSpecDocument?, note: String) {
    self.spec = spec
    self.note = note
  }
}

/// One recording's timeline: golden and new lanes on one axis (Just Photo's displays, metric
/// and gate; another engine's ``laneNames``), both runs' series (the golden
/// side replayed under the golden's spec, the new side under the new), and the pending files
/// a decision applies to (SHA-256 of each `.new`, when `verify` wrote one).
package struct HTMLReportTimeline: Sendable {
  package var name: String
  package var durationMs: Millis
  package var golden = HTMLReportLanes()
  package var new = HTMLReportLanes()
  package var series = HTMLReportSeries()
  /// The golden side's series (same focus cues; no landmarks: the input is the same), nil
  /// when the golden's spec is not known.
  package var goldenSeries: HTMLReportSeries?
  /// Where the golden side's spec came from, or why its series are missing.
  package var goldenNote = ""
  package var pending: [(kind: String, sha256: String)] = []
  /// The recording's engine (the header's `engine`).
  package var engine = justPhotoEngineName
  /// Another engine's lanes (its vocabulary's ``TraceTimeline/pageLanes``), drawn instead of
  /// Just Photo's; empty for Just Photo.
  package var laneNames: [String] = []
  /// The page's JSON of ``series`` and ``goldenSeries`` (thinned to the budget, as
  /// ``HTMLReportEncoder`` writes them), made by ``pack()`` once the timeline is built; the
  /// raw series are emptied then, so a report holds one recording's raw series per job.
  package private(set) var packedSeries: (series: JSONValue, golden: JSONValue)?
  /// The series as the builder collects them, in page form (issue 38 item 5): when set, the
  /// page is made from these and ``series`` / ``goldenSeries`` are not read.
  package var columns: HTMLReportColumns?
  package var goldenColumns: HTMLReportColumns?
  package init(name: String, durationMs: Millis) {
    self.name = name
    self.durationMs = durationMs
  }

  /// Encodes the series for the page and drops the raw ones (``packedSeries``).
  package mutating func pack() {
    guard packedSeries == nil else { return }
    packedSeries = HTMLReportEncoder.seriesValues(self)
    series = HTMLReportSeries()
    goldenSeries = nil
    columns = nil
    goldenColumns = nil
  }
}

/// Everything one HTML report shows.
package struct HTMLReportDocument: Sendable {
  /// "verify" or "diff".
  package var kind: String
  package var title: String
  /// Category counts (`passed 12`, `failed 2`, …), in the order given.
  package var counts: [(name: String, count: Int)] = []
  package var rows: [HTMLReportRow] = []
  /// Divergences beyond `HTMLReportLimits.rowsMax` (not in `rows`).
  package var rowsOmitted = 0
  package var timelines: [HTMLReportTimeline] = []
  /// Recordings with divergences but no timeline (beyond `timelinesMax`, or not replayable here).
  package var withoutTimeline: [(name: String, why: String)] = []
  package init(kind: String, title: String) {
    self.kind = kind
    self.title = title
  }
}
