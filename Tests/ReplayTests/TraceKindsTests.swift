import JustPhotoEngine
import EngineIO
import JustPhotoIO
import JustPhotoPlugin
import Foundation
@testable import Replay
import Testing


/// The documented output kinds (the `out` table of docs/FORMAT.md) are exactly the kinds the
/// engine can emit (`OutputKind`, one per `EngineOutput` case), which `replay --trace` and
/// `minimize --expect` check against: a new kind cannot be filtered away as a "typo", and a
/// removed one cannot linger in the docs.
@Suite("trace kinds")
struct TraceKindsTests {
  static let formatDoc = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("docs/FORMAT.md")

  /// The kinds named in the first column of the "Trace lines" table.
  static func documentedKinds() throws -> Set<String> {
    let text = try String(contentsOf: formatDoc, encoding: .utf8)
    guard let start = text.range(of: "## Trace lines") else { return [] }
    var kinds = Set<String>()
    let cell = try Regex(#"`([a-z_0-9]+)`"#)
    for line in text[start.upperBound...].split(separator: "\n") {
      if line.hasPrefix("## ") { break }
      guard line.hasPrefix("| `") else { continue }
      let first = line.dropFirst().prefix { $0 != "|" }
      for m in first.matches(of: cell) { if let k = m.output[1].substring { kinds.insert(String(k)) } }
    }
    return kinds
  }

  /// One output of each kind: the switch is exhaustive, so a new kind needs a sample here.
  static func sample(_ kind: OutputKind) -> EngineOutput {
    switch kind {
    case .camera: .camera(CameraLine(warmup: .ready, text: nil))
    case .cue_display: .cueDisplay(CueDisplay(cueId: nil, level: .none, reason: .none, mode: .noRef))
    case .cue_eval: .cueEval(.t1(tick: 1, scene: "cafe", entries: []))
    case .diagnostics: .diagnosticsDeleted(file: "a.jsonl", rule: "age")
    case .effect: .effect(.startCamera)
    case .eval: .eval(.t0(frame: 0))
    case .item:
      .item(
        ItemLine(
          item: SessionItem(
            itemId: "i", shotSeq: 1, createdAtMs: 0, core: .writing, thumb: .pending, album: .none, liked: false)))
    case .match: .match(MatchLine(match: true, required: [], blockedBy: [], mirrorApplied: false))
    case .odr: .odr(.ready)
    case .posespec: .posespec(["result": "loaded"])
    case .praise: .praise(PraiseLine(state: .on, trigger: "match", dimension: "withref_match"))
    case .prompt: .prompt(["op": "shown"])
    case .reference: .reference(["result": "selected"])
    case .script_card: .scriptCard(ScriptCardLine(cueId: nil, variant: nil, zh: nil, en: nil, frozen: false))
    case .session: .session(.killed)
    case .shutter: .shutter(enabled: true, reason: nil)
    case .shutter_tap: .shutterTapRefused(.rotating)
    case .tier: .tier(TierLine(t0Hz: 15, t1Enabled: true, cause: "thermal"))
    case .wrap: .wrap(.open)
    }
  }

  @Test("docs/FORMAT.md's trace table lists exactly OutputKind.allCases")
  func documentedEqualsEmitted() throws {
    let documented = try Self.documentedKinds()
    let emitted = Set(OutputKind.allCases.map(\.rawValue))
    #expect(
      documented == emitted,
      "documented only: \(documented.subtracting(emitted).sorted()); emitted only: \(emitted.subtracting(documented).sorted())")
    #expect(Set(TraceKinds.all) == emitted)
  }

  @Test("every kind has an output whose rendered line says that kind")
  func everyKindRenders() throws {
    for kind in OutputKind.allCases {
      let output = Self.sample(kind)
      #expect(output.kind == kind)
      #expect(TraceRecord(output, at: 5).out == kind.rawValue)
      #expect(try GoldenTrace.records(TraceFormat.line(TraceRecord(output, at: 5))).map(\.kind) == [kind])
    }
  }

  @Test("--trace kinds: known kinds parse, a typo names itself and the known list")
  func parsing() {
    #expect((try? TraceKinds.parse("cue_display,script_card").get()) == [.cue_display, .script_card])
    guard case .failure(let e) = TraceKinds.parse("cue_display,cue_dispaly") else {
      Issue.record("a typo was accepted")
      return
    }
    #expect(e.description.contains("unknown trace kind 'cue_dispaly'"))
    #expect(e.description.contains("script_card"))
  }
}
