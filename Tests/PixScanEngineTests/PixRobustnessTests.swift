import CanonicalJSON
import Foundation
import PixScanEngine
import PixScanScenarios
import ScenarioYAML
import Testing

/// Seeded robustness: mutated scenario files are refused with a `PixScenarioError` or parse
/// and run, never crash; random input sessions keep the engine's invariants and replay
/// byte-identically.
@Suite("PixScan robustness")
struct PixRobustnessTests {
  static let alphabet = Array(":{}[],-_ 09\n\"'#&*!|>ab")

  /// `text` with one seeded edit: a deleted span, an inserted character, a changed digit, a
  /// duplicated or dropped line.
  static func mutate(_ text: String, _ rng: inout SplitMix64) -> String {
    var chars = Array(text)
    guard !chars.isEmpty else { return text }
    let at = Int(rng.below(UInt64(chars.count)))
    switch rng.below(5) {
    case 0: chars.removeSubrange(at..<min(chars.count, at + 1 + Int(rng.below(8))))
    case 1: chars.insert(alphabet[Int(rng.below(UInt64(alphabet.count)))], at: at)
    case 2:
      if let i = chars[at...].firstIndex(where: \.isNumber) { chars[i] = Character(String(rng.below(10))) }
    default:
      var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      let l = Int(rng.below(UInt64(lines.count)))
      if rng.below(2) == 0 { lines.insert(lines[l], at: l) } else { lines.remove(at: l) }
      return lines.joined(separator: "\n")
    }
    return String(chars)
  }

  @Test("mutated scenarios are refused or run; never a crash", arguments: PixScenarioCorpusTests.files())
  func mutatedScenarios(_ name: String) throws {
    let text = try String(contentsOf: PixScenarioCorpusTests.dir.appendingPathComponent(name), encoding: .utf8)
    var rng = SplitMix64(seed: UInt64(truncatingIfNeeded: name.utf8.reduce(5381) { $0 &* 33 &+ Int($1) }))
    var refused = 0
    for _ in 0..<(name.contains("5000") ? 8 : 40) {
      let mutant = Self.mutate(text, &rng)
      do {
        let s = try PixScenario.parse(yaml: mutant, file: name)
        if s.events.count <= 2_000 { _ = try PixDirectRun.run(s.events) }
      } catch let e as PixScenarioError {
        refused += 1
        #expect(e.file == name && !e.message.isEmpty)
      }
    }
    #expect(refused > 0, "no mutant of \(name) was refused: the mutations are too weak")
  }

  /// One random input: a kind the engine knows, with fields drawn from a small world.
  static func randomInput(_ rng: inout SplitMix64, library: [PixAsset]) -> PixInput {
    func photo() -> String { rng.below(8) == 0 ? "ghost" : library[Int(rng.below(UInt64(library.count)))].id }
    let perms: [PixPermission] = [.notDetermined, .denied, .limited, .authorized]
    switch rng.below(60) {
    case 0: return .appKill
    case 1, 2:
      let p = rng.below(3) == 0 ? perms[Int(rng.below(4))] : .authorized
      return .appLaunch(permission: p, store: rng.below(4) == 0 ? nil : PixStore(onboarded: true))
    case 3, 4: return .librarySnapshot(library.filter { _ in rng.below(6) != 0 })
    case 5: return .permissionTap
    case 6: return .permissionResult(perms[1 + Int(rng.below(3))])
    case 7, 8: return .undo
    case 9: return .filterMode(rng.below(2) == 0 ? .all : .screenshots)
    case 10, 11: return .ocrResult(photo: photo(), outcome: rng.below(3) == 0 ? .failed(error: nil) : .text(rng.below(4) == 0 ? " " : "t"))
    case 12, 13: return .deleteSheet([.open, .close, .select(photo()), .deselect(photo()), .deleteSelected, .deleteAll][Int(rng.below(6))])
    case 14: return .deleteResult(batch: 1 + Int64(rng.below(4)), outcome: [.ok, .cancelled, .error("e")][Int(rng.below(3))])
    case 15, 16:
      return .onboarding([.next, .practiceSwipe(.left), .tapIcon(.trash), .tapIcon(.ocr)][Int(rng.below(4))])
    default: return .swipe(PixDirection.allCases[Int(rng.below(4))])
    }
  }

  static func session(seed: UInt64) -> (lines: [String], violations: [String]) {
    var rng = SplitMix64(seed: seed)
    let library = PixHarness.photos(12, screenshots: [2, 5, 6, 11])
    var h = PixHarness()
    var violations: [String] = []
    // The library the engine holds, as this test follows it: the last accepted snapshot, less
    // deleted batches; gone after a kill.
    var held: [PixAsset]?
    var batches: [Int64: [String]] = [:]
    for _ in 0..<300 {
      let input = randomInput(&rng, library: library)
      let step = h.send(input)
      switch input {
      case .appKill: held = nil
      case .librarySnapshot(let a) where step.outputs.contains(where: { $0.kind == .library }): held = a
      default: break
      }
      for case .deleteBatch(let b, let ids, _) in step.effects { batches[b] = ids }
      for case .message(.deleted, _, let b?, _, _) in step.outputs { held?.removeAll { batches[b]!.contains($0.id) } }
      if let held, let screen = h.last(.screen)?["name"]?.stringValue, screen == "main" || screen == "completion",
        let progress = h.last(.progress)
      {
        let s = h.stored ?? PixStore()
        let seq = held.filter { s.filter == .all || $0.screenshot }.map(\.id)
        let processed = seq.filter(s.processed.contains)
        let expected: JSONObject = [
          "total": .number(Double(seq.count)), "processed": .number(Double(processed.count)),
          "deleted": .number(Double(processed.filter(s.queue.contains).count)), "ocr": .number(Double(s.texts.count)),
        ]
        if expected.members.contains(where: { progress[$0.key] != $0.value }) {
          violations.append("progress \(JSONWriter.write(.object(progress))) but the store and library give \(JSONWriter.write(.object(expected))) after \(input)")
        }
      }
      if let s = step.persist {
        if (try? PixStore(json: s.json())) != s { violations.append("store does not round-trip after \(input)") }
        if Set(s.processed).count != s.processed.count || Set(s.queue).count != s.queue.count {
          violations.append("duplicate ids in the store after \(input)")
        }
      }
      for o in step.outputs {
        if case .progress(let p) = o, p.kept + p.deleted != p.processed || p.processed > p.total || p.kept < 0 || p.deleted < 0 {
          violations.append("progress \(p) after \(input)")
        }
        if case .photo(let id?, _, _) = o, let s = h.stored, s.processed.contains(id) {
          violations.append("current photo \(id) is processed after \(input)")
        }
      }
      let requests = step.effects.filter { if case .prefetch = $0 { false } else { true } }
      if requests.count > 1 { violations.append("two requests in one step after \(input)") }
    }
    return (h.records.map(\.line), violations)
  }

  @Test("random sessions keep the invariants and replay identically")
  func randomSessions() {
    var lines = 0
    var kinds: [String: Int] = [:]
    for seed in UInt64(1)...60 {
      let a = Self.session(seed: seed)
      for l in a.lines {
        if let r = l.range(of: "\"out\":\""), let end = l[r.upperBound...].firstIndex(of: "\"") { kinds[String(l[r.upperBound..<end]), default: 0] += 1 }
      }
      #expect(a.violations.isEmpty, "seed \(seed): \(a.violations.prefix(3))")
      #expect(Self.session(seed: seed).lines == a.lines, "seed \(seed) differs between two runs")
      lines += a.lines.count
    }
    #expect(lines > 10_000)
    // The sessions reach every kind of line (not stuck before launch or in onboarding).
    #expect(Set(kinds.keys) == Set(PixOutputKind.allCases.map(\.rawValue)), "\(kinds)")
    #expect(kinds["action", default: 0] > 200 && kinds["undo", default: 0] > 20 && kinds["text", default: 0] > 5, "\(kinds)")
  }
}
