import EngineIO
import Foundation
import JustPhotoPlugin
import Lab
import PoseSpec
import Testing

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// `jpreplay plot`: the SVG parses as XML, shows what the replay and the labels say, honours
/// the range and the cue choice, and is fast enough for every corpus recording.
@Suite("Timeline plot")
struct TimelinePlotTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  static func path(_ rel: String) -> String { root.appendingPathComponent(rel).path }
  static func spec() throws -> PoseSpecDocument { try Harness.loadSpec(path: path("PoseSpec.json")) }

  /// Element names and `<title>` texts of an SVG document, or the parser's error.
  final class Collector: NSObject, XMLParserDelegate {
    var elements: [String] = []
    var titles: [String] = []
    var texts: [String] = []
    var current = ""
    var root: String?
    func parser(_ p: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
      if root == nil { root = name }
      elements.append(name)
      current = ""
    }
    func parser(_ p: XMLParser, foundCharacters s: String) { current += s }
    func parser(_ p: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
      if name == "title" { titles.append(current) }
      if name == "text" { texts.append(current) }
    }
  }

  static func parse(_ svg: String) throws -> Collector {
    let c = Collector()
    let parser = XMLParser(data: Data(svg.utf8))
    parser.delegate = c
    let ok = parser.parse()
    try #require(ok, "not XML: \(parser.parserError.map { "\($0)" } ?? "?")")
    #expect(c.root == "svg")
    return c
  }

  @Test("drift-left-and-back: a panel per chosen cue with its metric line, label bands and display spans")
  func wholeRecording() throws {
    let scorer = try CorpusScorer(paths: [Self.path("Recordings/drift-left-and-back.jprec")])
    let rec = scorer.recordings[0]
    let data = try TimelineData.collect(rec, spec: Self.spec())
    try #require(!data.cues.isEmpty)
    let labelled = rec.labels?.cues ?? []
    #expect(Array(data.cues.prefix(labelled.count)) == labelled)
    let svg = SVGTimeline.render(data)
    let doc = try Self.parse(svg)
    for cue in data.cues { #expect(doc.texts.contains(cue)) }
    #expect(doc.elements.filter { $0 == "polyline" }.count >= data.cues.count)
    let labelBands = doc.titles.filter { $0.contains("label holds") }
    #expect(labelBands.count == labelled.reduce(0) { $0 + (rec.labels!.intervals[$1]?.count ?? 0) })
    let shown = data.displays.spans.count
    #expect(doc.titles.filter { $0.contains(" displayed [") }.count >= shown)
    #expect(doc.titles.contains { $0.hasPrefix("warn >") || $0.hasPrefix("warn <") || $0.hasPrefix("warn abs") })
  }

  @Test("--cue and --from/--to: only that cue, only points in the range; unknown cue and empty range are bad input")
  func rangeAndCue() throws {
    let scorer = try CorpusScorer(paths: [Self.path("Recordings/drift-left-and-back.jprec")])
    let rec = scorer.recordings[0]
    let data = try TimelineData.collect(rec, spec: Self.spec(), cues: ["FRAME_MOVE_LEFT"], from: 1000, to: 3000)
    #expect(data.cues == ["FRAME_MOVE_LEFT"])
    let pts = data.points["FRAME_MOVE_LEFT"] ?? []
    #expect(!pts.isEmpty)
    #expect(pts.allSatisfy { $0.t >= 1000 && $0.t <= 3000 })
    _ = try Self.parse(SVGTimeline.render(data))
    #expect(throws: HarnessFailure.self) { try TimelineData.collect(rec, spec: Self.spec(), cues: ["NO_SUCH_CUE"]) }
    #expect(throws: HarnessFailure.self) { try TimelineData.collect(rec, spec: Self.spec(), from: 999_999_999) }
  }

  @Test("gate-probe-hold-vs-frames: the gate lane shows frames then hold as the scenario's author describes; the rank lane the candidates")
  func gateAndRankLanes() throws {
    // The author's notes: HEAD_LEVEL at 0, 100, 200 is shown at 200 (persistFrames 3: the
    // gate holds back for frames before); CHIN_UP from 800 waits while HEAD_LEVEL holds (hold).
    let scorer = try CorpusScorer(paths: [Self.path("Recordings/gate-probe-hold-vs-frames.jprec")])
    let data = try TimelineData.collect(scorer.recordings[0], spec: Self.spec())
    let svg = SVGTimeline.render(data)
    let doc = try Self.parse(svg)
    let gate = doc.titles.filter { $0.contains(" gate ") }
    #expect(gate.contains { $0.hasPrefix("t 0…200 gate frames: input HEAD_LEVEL, shown none (stable 1/3 frames") }, "\(gate)")
    #expect(gate.contains { $0.hasPrefix("t 800…") && $0.contains("gate hold: input CHIN_UP, shown HEAD_LEVEL") }, "\(gate)")
    #expect(!gate.contains { $0.contains("gate none") })
    #expect(doc.texts.contains("gate") && doc.texts.contains("ranked (best on top)"))
    let ranks = doc.titles.filter { $0.contains(" rank 1: ") }
    #expect(ranks.contains { $0.hasPrefix("t 0…") && $0.contains("rank 1: HEAD_LEVEL") }, "\(ranks)")
    #expect(ranks.contains { $0.contains("rank 1: CHIN_UP (ranked: CHIN_UP > HEAD_LEVEL") }, "\(ranks)")
  }

  @Test("long cue names are written whole, above their panel, not clipped by the left column")
  func fullCueNames() throws {
    let scorer = try CorpusScorer(paths: [Self.path("Recordings/drift-left-and-back.jprec")])
    let cue = "OUT_14_OUTDOOR_COMPOSE_MORE_LANDMARK"
    let data = try TimelineData.collect(scorer.recordings[0], spec: Self.spec(), cues: [cue, "FRAME_MOVE_LEFT"])
    let svg = SVGTimeline.render(data)
    // The name starts where the panel does (x = 210), on a row of its own above it.
    #expect(svg.contains(#"<text x="210" "#) && svg.contains(">\(cue)</text>"))
    let line = svg.split(separator: "\n").first { $0.hasSuffix(">\(cue)</text>") }
    #expect(line?.hasPrefix(#"<text x="210" "#) == true, "\(line ?? "none")")
  }

  @Test("texts that XML reserves are escaped")
  func escaping() throws {
    var data = TimelineData(
      name: "a<b>&\"c\"'", from: 0, to: 1000, cues: [], labels: nil,
      displays: DisplayTrack(displays: [(0, "X&Y")], endMs: 1000))
    data.prompts = [.init(t: 500, text: "K L2: <Tap> & \"go\"")]
    let doc = try Self.parse(SVGTimeline.render(data))
    #expect(doc.titles.contains("t=500 K L2: <Tap> & \"go\""))
    #expect(doc.texts.contains { $0.hasPrefix("a<b>&\"c\"'") })
  }

  /// The number of points of each `<polyline>` in `svg`.
  static func polylinePoints(_ svg: String) -> [Int] {
    svg.split(separator: "\n").filter { $0.hasPrefix("<polyline ") }.map { line in
      guard let a = line.range(of: #"points=""#), let b = line[a.upperBound...].firstIndex(of: "\"") else { return 0 }
      return line[a.upperBound..<b].split(separator: " ").count
    }
  }

  /// One corpus recording of each kind: the longest sessions (luma frames at 2 Hz; detector
  /// frames at 30 fps over minutes: where thinning works hardest), a walk-about, a plain
  /// drift, several people, a reference photo, a capture and a killed session. (Plotting every
  /// recording replayed the whole corpus once more in process: 45 debug CPU-seconds.)
  static let plotted: Set<String> = [
    "val-cafe-dim", "tune-outdoor-framing", "val-outdoor-walkabout", "drift-left-and-back", "s13-multi-person",
    "outdoor-reference-mirror", "s28-capture-happy-path", "kill-while-writing",
  ]

  /// Work done, not time taken (a slow machine must pass too): each recording of `plotted`
  /// plots, and no metric line carries more than the thinning allows — at most 4 points per
  /// pixel column before thinning starts, 2 per column (min and max) after.
  @Test("one corpus recording of each kind plots, each metric line thinned to the plot's pixel columns")
  func corpusWork() throws {
    let paths = try CorpusScorer.recordingPaths([Self.path("Recordings")]).filter {
      Self.plotted.contains(URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent)
    }
    #expect(paths.count == Self.plotted.count, "a plotted recording was renamed")
    let scorer = try CorpusScorer(paths: paths)
    let spec = try Self.spec()
    let columns = Int(SVGTimeline.width - SVGTimeline.left - SVGTimeline.right)
    var lines = 0
    for rec in scorer.recordings {
      let svg = SVGTimeline.render(try TimelineData.collect(rec, spec: spec))
      #expect(svg.hasSuffix("</svg>\n"), "\(rec.name)")
      let counts = Self.polylinePoints(svg)
      lines += counts.count
      #expect(counts.allSatisfy { $0 <= 4 * columns + 2 }, "\(rec.name): \(counts.max() ?? 0) points in one line")
    }
    #expect(lines > scorer.recordings.count, "metric lines were drawn")
  }
}
