import Foundation
import PoseSpec

/// One hazard the audit found: its kind, the cue (and level), the evidence, the angleFix
/// settings that show it, and the smallest grid scenario that shows it (the repro).
package struct AuditFinding: Sendable {
  package enum Kind: String, Sendable, CaseIterable {
    case neverFires = "never-fires"
    case neverDisplayed = "never-displayed"
    case neutralFires = "neutral-fires"
    case invertedAdvice = "inverted-advice"
    case unreachableLevel = "unreachable-level"
    case flipFlop = "flip-flop"
    case withRefDeadlock = "withref-deadlock"
    /// Static (no replay, `AuditStatic`): a level's region overlaps exit's.
    case overlappingRegions = "overlapping-regions"
    /// Static: some value is hard but not warn.
    case hardEasierThanWarn = "hard-easier-than-warn"
    /// Static: part of the cue's ideal range is warn or hard.
    case warnCoversIdeal = "warn-covers-ideal"
  }
  package var kind: Kind
  package var cue: String
  package var level: String?
  package var evidence: String
  /// "off", "on" or "both".
  package var angleFix: String
  package var repro: AuditPoint?

  /// `kind CUE[/level]`: the accepted-hazards file's line for this finding.
  package var key: String { "\(kind.rawValue) \(cue)" + (level.map { "/\($0)" } ?? "") }
}

/// Turns grid results into hazards (issue 16 kinds 1–7).
package enum AuditHazards {
  /// Praises allowed in one noisy run of a pose held still (30 s): noise alone should not praise twice.
  package static let praiseOnStillMax = 1

  /// Findings in kind order, then cue order of the spec.
  package static func analyse(spec: PoseSpecDocument, results: [AuditPointResult]) -> [AuditFinding] {
    var merged: [AuditFinding] = []
    // angleFix on first: its repros are the ones the corpus convention records (ENGINE §1.8).
    for fix in [true, false] {
      let mine = results.filter { $0.point.angleFix == fix && $0.failure == nil }
      for f in findings(spec: spec, results: mine) {
        if let i = merged.firstIndex(where: { $0.key == f.key }) {
          merged[i].angleFix = "both"
        } else {
          merged.append(f)
        }
      }
    }
    // The checks without replay; a level the formula's range cannot reach replaces the
    // grid's "never fires" for it (the grid only failed to find what cannot exist).
    let noRefOn = results.filter { $0.point.angleFix && $0.failure == nil && $0.point.reference == nil && !$0.point.noisy }
    for var f in AuditStatic.findings(spec: spec) {
      if f.kind == .unreachableLevel { merged.removeAll { $0.kind == .neverFires && $0.cue == f.cue && $0.level == f.level } }
      guard !merged.contains(where: { $0.key == f.key }) else { continue }
      f.repro = closestPoint(spec, f, noRefOn)
      merged.append(f)
    }
    let order = Dictionary(spec.cues.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
    let kinds = AuditFinding.Kind.allCases
    return merged.sorted {
      let a = (kinds.firstIndex(of: $0.kind)!, order[$0.cue] ?? Int.max, $0.cue, $0.level ?? "")
      let b = (kinds.firstIndex(of: $1.kind)!, order[$1.cue] ?? Int.max, $1.cue, $1.level ?? "")
      return a < b
    }
  }

  /// The grid point whose error came closest to the thresholds a static finding is about: the
  /// scenario to record to see the cue near the conflicting region.
  static func closestPoint(_ spec: PoseSpecDocument, _ f: AuditFinding, _ results: [AuditPointResult]) -> AuditPoint? {
    guard let t = spec.cues.first(where: { $0.id == f.cue })?.trigger.noRef else { return nil }
    let th = f.level == "hard" ? t.hard : f.level == "warn" ? t.warn : t.warn + t.hard
    return results.compactMap { r in r.errorRange[f.cue].map { (r.point, distance($0, th)) } }.min { $0.1 < $1.1 }?.0
  }

  /// Cues whose error the grid never moved (unavailable or constant everywhere): not judged.
  /// Each with the inputs its formula reads, so a reader sees what the grid would have to vary.
  package static func uncovered(spec: PoseSpecDocument, results: [AuditPointResult]) -> [String] {
    let programs = (try? PoseSpecCompiler.compile(spec))?.cues ?? []
    return spec.cues.filter { c in
      c.trigger.noRef != nil && !stimulated(c.id, results.filter { $0.point.reference == nil && !$0.point.noisy }, spec)
    }.map { c in
      guard let p = programs.first(where: { $0.cueId == c.id }) else { return c.id }
      var inputs: [String] = []
      if !p.requiredJoints.isEmpty || p.usesBodyPoints { inputs.append("body landmarks") }
      if !p.requiredFacePoints.isEmpty || p.usesFaceBBox { inputs.append("face landmarks") }
      inputs += p.catalogueInputs.map { "\($0.rawValue) (events)" }
      inputs += p.rois.map { "pixels of \($0)" }
      return "\(c.id) (reads \(inputs.isEmpty ? "constants only" : inputs.joined(separator: ", ")); no grid point moved it)"
    }
  }

  /// ENGINE §8 G-54 evidence either way: where the fallback cue was requested and shown.
  package static func fallbackNote(spec: PoseSpecDocument, results: [AuditPointResult]) -> String {
    let id = spec.defaults.fallbackCueId
    let present = results.filter { $0.point.reference == nil && $0.point.axis != "absent" }
    let requested = present.filter { $0.fallbackRequests > 0 }
    let shown = present.filter { $0.displayed.contains(id) }
    let absentShown = results.contains { $0.point.axis == "absent" && $0.displayed.contains(id) }
    return "fallback \(id): requested at \(requested.map(\.fallbackRequests).reduce(0, +)) evaluations in \(requested.count) grid replays, "
      + "displayed in \(shown.count) with a subject (\(shown.prefix(3).map(\.point.name).joined(separator: ", "))), "
      + (absentShown ? "and with no subject (tracking lost)" : "not with no subject")
  }

  /// The grid moved the cue's error: it takes different values, by at least a tenth of the
  /// way from the nearest value to its nearest threshold (a flat background's edge density
  /// wobbling by 0.006 far from its threshold is not "moved").
  static func stimulated(_ id: String, _ results: [AuditPointResult], _ spec: PoseSpecDocument? = nil) -> Bool {
    let ranges = results.compactMap { $0.errorRange[id] }
    guard let lo = ranges.map(\.lo).min(), let hi = ranges.map(\.hi).max(), hi - lo > 1e-4 else { return false }
    guard let t = spec?.cues.first(where: { $0.id == id })?.trigger.noRef else { return true }
    let th = t.warn + t.hard
    guard !th.isEmpty else { return true }
    return hi - lo >= 0.1 * max(distance((lo, hi), th), th.map { abs($0.a) }.max() ?? 0)
  }

  /// The axis family of a grid point (`landmark_conf-0.44` → `landmark_conf`).
  static func family(_ axis: String) -> Substring { axis.prefix { $0 != "-" } }

  /// Findings under construction: each carries the angleFix setting of the results analysed.
  struct FindingList {
    var items: [AuditFinding] = []
    let angleFix: String
    mutating func add(_ k: AuditFinding.Kind, _ cue: String, _ level: String?, _ ev: String, _ p: AuditPoint?) {
      items.append(AuditFinding(kind: k, cue: cue, level: level, evidence: ev, angleFix: angleFix, repro: p))
    }
    func has(_ k: AuditFinding.Kind, _ cue: String) -> Bool { items.contains { $0.kind == k && $0.cue == cue } }
  }

  /// The findings of results that share one angleFix setting, in the order of kinds 1–7.
  static func findings(spec: PoseSpecDocument, results: [AuditPointResult]) -> [AuditFinding] {
    var out = FindingList(angleFix: results.first?.point.angleFix == true ? "on" : "off")
    let noRef = results.filter { $0.point.reference == nil && !$0.point.noisy }
    for cue in spec.cues {
      // Judged on the cue's own level, moved by the grid or not, shown or hidden.
      if cue.trigger.noRef != nil { neutralFindings(cue, noRef, into: &out) }
      guard let t = cue.trigger.noRef, stimulated(cue.id, noRef, spec) else { continue }
      levelFindings(cue, t, noRef, into: &out)
      displayFindings(cue, noRef, into: &out)
    }
    foldHiddenCues(&out, noRef)
    fallbackFinding(spec, noRef, into: &out)
    flipFlopFindings(spec, results, into: &out)
    withRefDeadlocks(results, into: &out)
    return out.items
  }

  /// 1 and 5: a level with thresholds that no grid point reaches.
  static func levelFindings(_ cue: PoseSpecCue, _ t: ThresholdSet, _ noRef: [AuditPointResult], into out: inout FindingList) {
    let id = cue.id
    let reached = { (rank: Int) in noRef.filter { ($0.maxRank[id] ?? 0) >= rank } }
    for (level, th) in [(CueLevel.warn, t.warn), (.hard, t.hard)] where !th.isEmpty && reached(level.rank).isEmpty {
      let closest = noRef.compactMap { r in r.errorRange[id].map { (r, distance($0, th)) } }.min { $0.1 < $1.1 }
      let range = noRef.compactMap { $0.errorRange[id] }
      let span = "error over the grid \(num(range.map(\.lo).min()!))…\(num(range.map(\.hi).max()!)), \(level.rawValue) needs \(th.map(\.description).joined(separator: " or "))"
      // Unreachable: the grid axis that drives the error toward the level gates the cue.
      let toward = closest.map { family($0.0.point.axis) }
      let gated = noRef.filter { $0.lowConfidence.contains(id) && family($0.point.axis) == toward }
      if level == .hard, !reached(CueLevel.warn.rank).isEmpty, let g = gated.first {
        out.add(.unreachableLevel, id, "hard", "\(span); the confidence gate (minConfidence \(num(cue.confidence.minConfidence))) makes the cue unavailable first (\(g.point.axis))", g.point)
      } else {
        out.add(.neverFires, id, level.rawValue, span, closest?.0.point)
      }
    }
  }

  /// 2: reaches a level somewhere, never displayed anywhere; 3: fires on the neutral pose;
  /// 4: the advice moves the subject further from the neutral pose.
  static func displayFindings(_ cue: PoseSpecCue, _ noRef: [AuditPointResult], into out: inout FindingList) {
    let id = cue.id
    let firing = noRef.filter { ($0.maxRank[id] ?? 0) >= CueLevel.warn.rank }
    if let first = firing.first, !noRef.contains(where: { $0.displayed.contains(id) }) {
      let by = firing.compactMap { $0.outrankedBy[id] }
      let winners = Array(Set(by)).sorted().prefix(4).joined(separator: ", ")
      out.add(.neverDisplayed, id, nil, "reaches warn/hard at \(firing.count) grid points (\(firing.prefix(3).map(\.point.axis).joined(separator: ", "))) but is never shown; outranked by \(winners.isEmpty ? "(a T1 cue never ranked)" : winners)", first.point)
    }
    guard let expect = expectation(cue) else { return }
    // Prefer a point where the wrong advice is also displayed.
    for r in firing.filter({ $0.displayed.contains(id) }) + firing.filter({ !$0.displayed.contains(id) }) {
      let off = expect.axis == "x" ? r.point.dx : expect.axis == "y" ? r.point.dy : r.point.scale - 1
      guard off != 0, (off > 0) != (expect.sign > 0) else { continue }
      out.add(.invertedAdvice, id, nil, "says \(expect.action) at \(r.point.axis) (\(r.point.scene)), where the subject is already \(describe(expect.axis, off)): following it moves the subject further from the neutral pose", r.point)
      break
    }
  }

  /// 3: the cue reaches warn or hard on the neutral pose — whether the gate shows it or another
  /// cue hides it (named: the hazard is there as soon as that cue is fixed).
  static func neutralFindings(_ cue: PoseSpecCue, _ noRef: [AuditPointResult], into out: inout FindingList) {
    let id = cue.id
    for r in noRef where r.point.axis == "neutral" && (r.maxRank[id] ?? 0) >= CueLevel.warn.rank {
      let level = (r.maxRank[id] ?? 0) >= CueLevel.hard.rank ? "hard" : "warn"
      guard !out.has(.neutralFires, id) else { continue }
      var evidence = "reaches \(level) on the neutral pose (\(r.point.scene)); error \(r.errorRange[id].map { "\(num($0.lo))…\(num($0.hi))" } ?? "?")"
      if !r.displayed.contains(id) {
        evidence += "; never shown there: hidden by \(r.outrankedBy[id] ?? "(a cue the gate shows)")"
      }
      out.add(.neutralFires, id, level, evidence, r.point)
    }
  }

  /// A cue hidden only by cues that fire on the neutral pose (or by the multi-person filter,
  /// with a permanent outranker present) is a consequence of those: folded in.
  static func foldHiddenCues(_ out: inout FindingList, _ noRef: [AuditPointResult]) {
    let permanent = Set(out.items.filter { $0.kind == .neutralFires }.map(\.cue))
    var hidden: [(cue: String, by: Set<String>)] = []
    for f in out.items where f.kind == .neverDisplayed && !permanent.isEmpty {
      let winners = Set(noRef.filter { ($0.maxRank[f.cue] ?? 0) >= CueLevel.warn.rank }.compactMap { $0.outrankedBy[f.cue] })
      guard winners.subtracting(permanent).subtracting(["(not a candidate)"]).isEmpty,
        !winners.intersection(permanent).isEmpty
      else { continue }
      hidden.append((f.cue, winners.intersection(permanent)))
    }
    out.items.removeAll { f in f.kind == .neverDisplayed && hidden.contains { $0.cue == f.cue } }
    for h in hidden {
      for i in out.items.indices where out.items[i].kind == .neutralFires && h.by.contains(out.items[i].cue) {
        out.items[i].evidence += out.items[i].evidence.contains("; hides ") ? ", \(h.cue)" : "; hides \(h.cue)"
      }
    }
  }

  /// G-54: the fallback cue requested by a cue that lost its input, never displayed.
  static func fallbackFinding(_ spec: PoseSpecDocument, _ noRef: [AuditPointResult], into out: inout FindingList) {
    let fallback = spec.defaults.fallbackCueId
    // The repro: outdoor first (no cafe cue competes with the fallback), fewest cues shown.
    let requested = noRef.filter { $0.fallbackRequests > 0 }.sorted {
      ($0.point.scene == "outdoor" ? 0 : 1, $0.displayed.count) < ($1.point.scene == "outdoor" ? 0 : 1, $1.displayed.count)
    }
    if let first = requested.first, !noRef.contains(where: { $0.displayed.contains(fallback) && $0.point.axis != "absent" }) {
      out.add(.neverDisplayed, fallback, nil, "requested as the fallback at \(requested.map(\.fallbackRequests).reduce(0, +)) evaluations (\(requested.prefix(3).map(\.point.axis).joined(separator: ", "))) but never displayed while a subject is in frame: a fallback candidate on single evaluations never passes persistFrames", first.point)
    }
  }

  /// 6: a detector profile's noise on a pose held still breaks the prompt budgets,
  /// or praises (an exit crossed by noise alone) more than once in the run.
  static func flipFlopFindings(_ spec: PoseSpecDocument, _ results: [AuditPointResult], into out: inout FindingList) {
    for r in results where r.point.noisy && (!r.budgetBreaches.isEmpty || r.praises >= praiseOnStillMax + 1) {
      let breachCue = spec.cues.first(where: { r.budgetBreachCues.contains($0.id) })?.id
      let praisedCue = Set(r.praised).sorted().max { a, b in r.praised.filter { $0 == a }.count < r.praised.filter { $0 == b }.count }
      let cue = breachCue ?? praisedCue ?? "(display)"
      let why = r.budgetBreaches.first ?? "praised \(r.praises) times while the subject holds still (at most \(praiseOnStillMax))"
      if !out.has(.flipFlop, cue) {
        out.add(.flipFlop, cue, nil, "\(r.point.axis) under the \(r.point.noiseProfile ?? "") detector profile (\(r.point.scene)): \(r.displayChanges) display changes, \(r.praises) praises (\(Set(r.praised).sorted().joined(separator: ", "))) in \(r.point.durationMs / 1000) s; \(why)", r.point)
      }
    }
  }

  /// 7: a reference whose Match never becomes true, not even from its own pose.
  static func withRefDeadlocks(_ results: [AuditPointResult], into out: inout FindingList) {
    let refs = results.filter { $0.point.reference != nil && $0.withRefActive }
    func parts(_ r: AuditPointResult) -> (ref: String, live: String) {
      let a = r.point.axis.dropFirst(4).components(separatedBy: "-live-")
      return (a.first ?? "", a.last ?? "")
    }
    for key in Set(refs.map { "\($0.point.scene) \(parts($0).ref)" }).sorted() {
      let group = refs.filter { "\($0.point.scene) \(parts($0).ref)" == key }
      guard !group.contains(where: \.matched) else { continue }
      let own = group.first(where: { parts($0).ref == parts($0).live }) ?? group[0]
      let cue = own.blockedBy.first ?? "(match)"
      if !out.has(.withRefDeadlock, cue) {
        out.add(.withRefDeadlock, cue, nil, "reference \(key): Match never true from \(group.count) live poses, the reference's own pose included; blocked_by \(own.blockedBy.joined(separator: ","))", own.point)
      }
    }
  }

  /// The subject change a direction action asks for: axis x/y/scale and its sign.
  static func expectation(_ cue: PoseSpecCue) -> (axis: String, sign: Double, action: String)? {
    let dir = cue.raw["direction"]
    for side in ["whenPositive", "whenNegative", "whenBelow", "whenAbove"] {
      guard let action = dir?[side]?["action"]?.stringValue else { continue }
      switch action {
      case "move_left": return ("x", 1, action)  // the subject is right of where it should be
      case "move_right": return ("x", -1, action)
      case "move_up": return ("y", 1, action)
      case "move_down": return ("y", -1, action)
      case "step_closer": return ("scale", -1, action)
      case "step_back": return ("scale", 1, action)
      default: continue
      }
    }
    return nil
  }

  static func describe(_ axis: String, _ off: Double) -> String {
    switch axis {
    case "x": off > 0 ? "right of centre" : "left of centre"
    case "y": off > 0 ? "low in the frame" : "high in the frame"
    default: off > 0 ? "closer (larger) than the neutral pose" : "farther (smaller) than the neutral pose"
    }
  }

  static func distance(_ r: (lo: Double, hi: Double), _ th: [Threshold]) -> Double {
    th.map { t in
      guard t.op.rawValue.hasPrefix("abs") else { return min(abs(r.lo - t.a), abs(r.hi - t.a)) }
      // |error| can take any value between the range's absolute bounds.
      let aLo = r.lo <= 0 && r.hi >= 0 ? 0 : min(abs(r.lo), abs(r.hi))
      return t.a < aLo ? aLo - t.a : t.a > max(abs(r.lo), abs(r.hi)) ? t.a - max(abs(r.lo), abs(r.hi)) : 0
    }.min() ?? .infinity
  }

  static func num(_ v: Double) -> String { String(format: "%.4g", v) }
}
