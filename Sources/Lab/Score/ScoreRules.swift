import JustPhotoEngine
import EngineIO

/// The windows the objective rules use (docs/SCORING.md explains each choice).
package struct ScoreWindows: Equatable, Sendable {
  /// A displayed-cue change at t is *explained* by a label change in
  /// `[t - explainBeforeMs, t + explainAfterMs]`: the coach reacts after the truth changes
  /// (persist frames, hysteresis, the minimum hold; 3 s covers a `minHoldMs` up to 3 s) and may
  /// react a little before it (noise crosses a threshold before the noise-free subject does).
  package var explainBeforeMs: Millis = 3000
  package var explainAfterMs: Millis = 500
  /// A labelled interval counts for misses when at least this long, and when the cue was
  /// available (no other cue of equal or higher priority displayed) at least this long.
  package var minIntervalMs: Millis = 1000
  /// A display starting up to this long after a labelled interval ends still counts as
  /// displaying it; a display whose label ended at most this long before it began is not a
  /// false alarm.
  package var graceMs: Millis = 500
  /// A display may outlive the end of its cue's label by this long (the exit frames, then the
  /// gate's minimum hold) before the rest of it counts as a false alarm.
  package var lingerMs: Millis = 3000
  package init() {}
}

/// The objective counts of one replay, before totals (lower is better for all but `latencies`,
/// which are samples).
package struct RecordingObjectives: Equatable, Sendable {
  package var durationMs: Millis = 0
  /// Whether the recording has ground truth (`label` events or header `labels`); the
  /// label rules (flicker, latency, misses, false alarms) apply only then.
  package var labelled = false
  package var cueChanges = 0
  /// Displayed-cue changes not explained by a label change (`ScoreWindows`).
  package var unexplainedChanges = 0
  /// Each of them, as "t=4200 FRAME_MOVE_LEFT → none: …why unexplained" (`ScoreRules.flickerLine`).
  package var flickers: [String] = []
  /// One sample per labelled interval whose cue was displayed: label onset (or the moment the
  /// cue became available) → display, ms.
  package var latencies: [Millis] = []
  /// Onset latency samples (issue 35 item 4): one per labelled interval whose cue was
  /// displayed, from the start of the declared movement toward it (`LabelTrack.Change.since`)
  /// to the display (`ScoreRules.onsetAndClear`).
  package var onsetLatencies: [Millis] = []
  /// Clear latency samples: one per displayed interval that a label change ends, the time its
  /// cue was still displayed after the subject returned (the ending change's `t`).
  package var clearLatencies: [Millis] = []
  /// Labelled intervals never displayed while available, as "CUE [start, end)".
  package var misses: [String] = []
  /// Display spans whose cue's label never held, as "CUE [start, end)".
  package var falseAlarms: [String] = []
  package var praises = 0
  package var budgetBreaches: [String] = []
  package var expectationFailures: [String] = []
  /// `expect:` rules that miss on a draw their `known:` marker names (not failures).
  package var knownMisses: [String] = []

  package init() {}

  package var minutes: Double { Double(max(durationMs, 1)) / 60_000 }
  package var flickerPerMinute: Double { Double(unexplainedChanges) / minutes }
  package var praisePerMinute: Double { Double(praises) / minutes }
}

/// The objective rules of issue 15 item 3, on one recording's labels and displays. Pure
/// functions of their inputs; `priority` is the spec priority of a cue id (§3.7's static part).
package enum ScoreRules {
  /// Displayed-cue changes not explained: no label change of the cue shown before or after
  /// the change, and no change of the ideal display (`LabelTrack.idealChanges`), within the
  /// explanation window.
  /// A label change at `l.t` that began at `l.since` explains a display change at `t` when
  /// `l.since − explainAfterMs ≤ t ≤ l.t + explainBeforeMs`: the coach may react while the
  /// subject moves (a ramp's intent, docs/SCORING.md) and up to the reaction window after.
  package static func unexplainedChanges(
    _ display: DisplayTrack, _ labels: LabelTrack, windows: ScoreWindows, priority: (String) -> Int
  ) -> [DisplayTrack.Change] {
    let ideal = labels.idealChanges(priority: priority)
    func explains(_ t: Millis, since: Millis, _ at: Millis) -> Bool {
      at >= since - windows.explainAfterMs && at <= t + windows.explainBeforeMs
    }
    return display.changes.filter { c in
      let ownLabel = labels.changes.contains { l in
        (l.cue == c.from || l.cue == c.to) && explains(l.t, since: l.since, c.t)
      }
      return !ownLabel && !ideal.contains { explains($0.t, since: $0.since, c.t) }
    }
  }

  /// One unexplained change and why: "t=4200 FRAME_MOVE_LEFT → none: no label change of
  /// FRAME_MOVE_LEFT or none explains it (nearest: FRAME_MOVE_LEFT off at 9000, moving since
  /// 8000, explains [7500, 12000]); the ideal display does not change there (nearest: at 9000)".
  /// A label change at `t` since `since` explains display changes in [since − explainAfterMs,
  /// t + explainBeforeMs] (`unexplainedChanges`); the nearest is the one whose window is
  /// closest to the change.
  package static func flickerLine(
    _ c: DisplayTrack.Change, _ labels: LabelTrack, ideal: [(t: Millis, cue: String?, since: Millis)], windows: ScoreWindows
  ) -> String {
    func name(_ cue: String?) -> String { cue ?? "none" }
    func window(_ t: Millis, _ since: Millis) -> ScoreInterval {
      ScoreInterval(since - windows.explainAfterMs, t + windows.explainBeforeMs)
    }
    func distance(_ w: ScoreInterval) -> Millis { c.t < w.start ? w.start - c.t : max(0, c.t - w.end) }
    let own = labels.changes.filter { $0.cue == c.from || $0.cue == c.to }
    var out = "t=\(c.t) \(name(c.from)) → \(name(c.to)): no label change of "
    out += [c.from, c.to].compactMap { $0 }.joined(separator: " or ")
    if let l = own.min(by: { distance(window($0.t, $0.since)) < distance(window($1.t, $1.since)) }) {
      let w = window(l.t, l.since)
      out += " explains it (nearest: \(l.cue) \(l.holds ? "on" : "off") at \(l.t), moving since \(l.since), explains [\(w.start), \(w.end)])"
    } else {
      out += " in the recording"
    }
    if let i = ideal.min(by: { distance(window($0.t, $0.since)) < distance(window($1.t, $1.since)) }) {
      out += "; the ideal display does not change there (nearest: \(name(i.cue)) at \(i.t))"
    } else {
      out += "; the ideal display never changes"
    }
    return out
  }

  /// Time in `range` during which a cue other than `cue` whose priority is at least `cue`'s was
  /// displayed, as disjoint intervals in time order.
  static func masked(_ cue: String, in range: ScoreInterval, _ display: DisplayTrack, priority: (String) -> Int)
    -> [ScoreInterval]
  {
    let own = priority(cue)
    return display.spans.compactMap { s in
      guard s.cue != cue, priority(s.cue) >= own, s.interval.overlap(range) > 0 else { return nil }
      return ScoreInterval(max(s.interval.start, range.start), min(s.interval.end, range.end))
    }
  }

  /// Latency samples and misses, one verdict per labelled interval (cues in byte order).
  ///
  /// - A sample: the cue was displayed in `[start, end + graceMs)`; latency = first display
  ///   at or after the moment the cue became available (the onset, or the end of a masking
  ///   display at the onset) minus that moment, 0 when it was already shown.
  /// - A miss: an interval ≥ `minIntervalMs`, available ≥ `minIntervalMs` in total, never
  ///   displayed.
  package static func latencyAndMisses(
    _ display: DisplayTrack, _ labels: LabelTrack, windows: ScoreWindows, priority: (String) -> Int
  ) -> (latencies: [Millis], misses: [String]) {
    var latencies: [Millis] = []
    var misses: [String] = []
    for cue in labels.cues {
      let shown = display.spans(of: cue)
      for interval in labels.intervals[cue] ?? [] {
        let masks = masked(cue, in: interval, display, priority: priority)
        let window = ScoreInterval(interval.start, interval.end + windows.graceMs)
        if let first = shown.first(where: { $0.overlap(window) > 0 }) {
          let available = firstUncovered(from: interval.start, by: masks)
          latencies.append(max(0, first.start - available))
          continue
        }
        let free = interval.length - masks.reduce(0) { $0 + $1.length }
        if interval.length >= windows.minIntervalMs && free >= windows.minIntervalMs {
          misses.append("\(cue) \(interval)")
        }
      }
    }
    return (latencies, misses)
  }

  /// Onset and clear latencies (issue 35 item 4), one verdict per labelled interval whose cue
  /// was displayed in `[since − graceMs, end + graceMs)` (`since`: the start of the movement
  /// the scenario declares toward it; the same early allowance as the other rules):
  ///
  /// - **onset**: the first such display minus the moment the cue became available from
  ///   `since` on (moved past a display of an equal or higher-priority cue covering it); 0 when
  ///   it was already shown. Unlike `latencies` (from the arrival, where a display during the
  ///   movement counts 0) this sees a lag: a coach 1 s late is 1 s later here.
  /// - **clear**, for an interval a label change ends at `end` (the subject has returned, not
  ///   the recording's end): how long the cue's last display that began before `end` was still
  ///   on after `end` — up to the start of the cue's next allowed interval (wanted again) — and
  ///   0 when it cleared by `end`.
  package static func onsetAndClear(
    _ display: DisplayTrack, _ labels: LabelTrack, windows: ScoreWindows, priority: (String) -> Int
  ) -> (onset: [Millis], clear: [Millis]) {
    var onset: [Millis] = []
    var clear: [Millis] = []
    for cue in labels.cues {
      let shown = display.spans(of: cue)
      let intervals = labels.intervals[cue] ?? []
      let allowed = labels.allowed[cue] ?? []
      for (i, interval) in intervals.enumerated() where i < allowed.count {
        let since = allowed[i].start
        let window = ScoreInterval(since - windows.graceMs, interval.end + windows.graceMs)
        guard let first = shown.first(where: { $0.overlap(window) > 0 }) else { continue }
        let masks = masked(cue, in: ScoreInterval(since, interval.end), display, priority: priority)
        onset.append(max(0, first.start - firstUncovered(from: since, by: masks)))
        guard interval.end < labels.endMs else { continue }
        let before = ScoreInterval(since - windows.graceMs, interval.end)
        guard let last = shown.last(where: { $0.overlap(before) > 0 }) else {
          clear.append(0)
          continue
        }
        let wantedAgain = i + 1 < allowed.count ? allowed[i + 1].start : Millis.max
        clear.append(max(0, min(last.end, wantedAgain) - interval.end))
      }
    }
    return (onset, clear)
  }

  /// The first moment ≥ `t` not inside one of `covers` (disjoint, in time order).
  static func firstUncovered(from t: Millis, by covers: [ScoreInterval]) -> Millis {
    var at = t
    for c in covers where c.start <= at && at < c.end { at = c.end }
    return at
  }

  /// The parts of display spans during which their cue should not show: each span minus its
  /// cue's allowed intervals (`LabelTrack.allowed`: the label's intervals from the start of
  /// the movement toward them) widened by `graceMs` before and `lingerMs` after. Each maximal
  /// remaining part is one false alarm, named with what the author intended meanwhile —
  /// another cue there is a conflict of advice (G-51): `"CAFE_12 [a, b) (intended:
  /// FRAME_MOVE_LEFT)"`, or `(intended: none)`.
  package static func falseAlarms(_ display: DisplayTrack, _ labels: LabelTrack, windows: ScoreWindows) -> [String] {
    var out: [String] = []
    for s in display.spans {
      let ok = (labels.allowed[s.cue] ?? []).map { ScoreInterval($0.start - windows.graceMs, $0.end + windows.lingerMs) }
      for piece in subtract(ok, from: s.interval) {
        let intended = labels.cues.filter { $0 != s.cue && labels.holds($0, during: piece) }
        out.append("\(s.cue) \(piece) (intended: \(intended.isEmpty ? "none" : intended.joined(separator: ", ")))")
      }
    }
    return out
  }

  /// `range` minus the union of `covers`, as disjoint non-empty intervals in time order.
  static func subtract(_ covers: [ScoreInterval], from range: ScoreInterval) -> [ScoreInterval] {
    var out: [ScoreInterval] = []
    var at = range.start
    for c in covers.sorted(by: { $0.start < $1.start }) where c.end > at && c.start < range.end {
      if c.start > at { out.append(ScoreInterval(at, c.start)) }
      at = max(at, c.end)
    }
    if at < range.end { out.append(ScoreInterval(at, range.end)) }
    return out
  }

  /// The nearest-rank percentile `p` (0…100) of `samples`; nil when empty.
  package static func percentile(_ samples: [Millis], _ p: Double) -> Millis? {
    guard !samples.isEmpty else { return nil }
    let sorted = samples.sorted()
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
    return sorted[min(max(rank, 1), sorted.count) - 1]
  }

  /// Every rule on one recording's outputs.
  package static func evaluate(
    displays: [(t: Millis, cue: String?)], labels: LabelTrack?, praises: Int, durationMs: Millis,
    windows: ScoreWindows, priority: (String) -> Int
  ) -> RecordingObjectives {
    var o = RecordingObjectives()
    o.durationMs = durationMs
    o.praises = praises
    let display = DisplayTrack(displays: displays, endMs: durationMs)
    o.cueChanges = display.changes.count
    guard let labels else { return o }
    o.labelled = true
    let unexplained = unexplainedChanges(display, labels, windows: windows, priority: priority)
    o.unexplainedChanges = unexplained.count
    let ideal = labels.idealChanges(priority: priority)
    o.flickers = unexplained.map { flickerLine($0, labels, ideal: ideal, windows: windows) }
    (o.latencies, o.misses) = latencyAndMisses(display, labels, windows: windows, priority: priority)
    (o.onsetLatencies, o.clearLatencies) = onsetAndClear(display, labels, windows: windows, priority: priority)
    o.falseAlarms = falseAlarms(display, labels, windows: windows)
    return o
  }
}
