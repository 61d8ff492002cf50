import Foundation
import Testing

@testable import Replay

/// The documented output kinds (`TraceKinds.all`, which `replay --trace` checks against) are
/// exactly the kinds the engine's sources emit (`TraceRecord(… out: "kind" …)`), so a new kind
/// cannot be filtered away as a "typo" and a removed one cannot linger in the docs.
@Suite("trace kinds")
struct TraceKindsTests {
  static let engineSources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Sources/CoachEngine")

  @Test("TraceKinds.all equals the out: kinds written in Sources/CoachEngine")
  func documentedEqualsEmitted() throws {
    var emitted = Set<String>()
    let files = FileManager.default.enumerator(at: Self.engineSources, includingPropertiesForKeys: nil)
    let pattern = try Regex(#"out: "([a-z_0-9]+)""#)
    while let url = files?.nextObject() as? URL {
      guard url.pathExtension == "swift" else { continue }
      let text = try String(contentsOf: url, encoding: .utf8)
      for m in text.matches(of: pattern) {
        if let kind = m.output[1].substring { emitted.insert(String(kind)) }
      }
    }
    #expect(!emitted.isEmpty)
    #expect(Set(TraceKinds.all) == emitted, "documented only: \(Set(TraceKinds.all).subtracting(emitted).sorted()); emitted only: \(emitted.subtracting(TraceKinds.all).sorted())")
  }

  @Test("--trace kinds: known kinds parse, a typo names itself and the known list")
  func parsing() {
    #expect((try? TraceKinds.parse("cue_display,script_card").get()) == ["cue_display", "script_card"])
    guard case .failure(let e) = TraceKinds.parse("cue_display,cue_dispaly") else {
      Issue.record("a typo was accepted")
      return
    }
    #expect(e.description.contains("unknown trace kind 'cue_dispaly'"))
  }
}
