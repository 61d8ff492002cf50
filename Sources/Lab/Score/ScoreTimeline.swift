import JustPhotoEngine
import EngineIO

/// A half-open time interval `[start, end)` in ms.
package struct ScoreInterval: Equatable, Sendable, CustomStringConvertible {
  package var start: Millis
  package var end: Millis
  package init(_ start: Millis, _ end: Millis) {
    self.start = start
    self.end = end
  }
  package var length: Millis { max(0, end - start) }
  package func overlap(_ other: ScoreInterval) -> Millis {
    max(0, min(end, other.end) - max(start, other.start))
  }
  package var description: String { "[\(start), \(end))" }
}

/// The ground truth of one recording: per cue, the intervals in which its `label` says it
/// holds (docs/FORMAT.md, `label {cue_id, holds}`; a cue never labelled never holds). An
/// interval still open at the end of the recording closes at the end.
package struct LabelTrack: Equatable, Sendable {
  /// One `label` event: from `t` the cue should (not) show; the subject began moving toward
  /// that at `since` (≤ t; a ramp's start, else `t`): a reaction from `since` on is allowed.
  package struct Change: Equatable, Sendable {
    package var t: Millis
    package var cue: String
    package var holds: Bool
    package var since: Millis
    package init(t: Millis, cue: String, holds: Bool, since: Millis? = nil) {
      self.t = t
      self.cue = cue
      self.holds = holds
      self.since = min(since ?? t, t)
    }
  }

  /// Label changes in time order (file order at equal t).
  package private(set) var changes: [Change]
  /// Per cue id, its holding intervals in time order (from the `t` of the change that starts
  /// one to the `t` of the change that ends it).
  package private(set) var intervals: [String: [ScoreInterval]]
  /// Per cue id, the same intervals widened to the movements around them: from the starting
  /// change's `since` to the ending change's `t` (a display during the approach is not false).
  package private(set) var allowed: [String: [ScoreInterval]]
  package let endMs: Millis

  /// Builds the track from `label` events (`changes` in time order) of a recording ending at
  /// `endMs`. A repeated `holds` value for a cue is not a change.
  package init(changes input: [Change], endMs: Millis) {
    self.endMs = endMs
    var open: [String: (t: Millis, since: Millis)] = [:]
    var intervals: [String: [ScoreInterval]] = [:]
    var allowed: [String: [ScoreInterval]] = [:]
    var changes: [Change] = []
    for c in input {
      if c.holds {
        guard open[c.cue] == nil else { continue }
        open[c.cue] = (c.t, c.since)
      } else {
        guard let s = open.removeValue(forKey: c.cue) else { continue }
        if c.t > s.t {
          intervals[c.cue, default: []].append(ScoreInterval(s.t, c.t))
          allowed[c.cue, default: []].append(ScoreInterval(s.since, c.t))
        }
      }
      changes.append(c)
    }
    for (cue, s) in open where endMs > s.t {
      intervals[cue, default: []].append(ScoreInterval(s.t, endMs))
      allowed[cue, default: []].append(ScoreInterval(s.since, endMs))
    }
    self.changes = changes
    self.intervals = intervals
    self.allowed = allowed
  }

  /// Whether `cue` should show, or its subject is moving toward that, at some moment of `range`.
  package func allows(_ cue: String, during range: ScoreInterval) -> Bool {
    (allowed[cue] ?? []).contains { $0.overlap(range) > 0 }
  }

  /// The cues that should show at `t`, byte order.
  package func intended(at t: Millis) -> [String] {
    cues.filter { holds($0, at: t) }
  }

  /// The labelled cue ids, sorted (byte order).
  package var cues: [String] { intervals.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } }

  /// Whether `cue` holds at some moment of `range`.
  package func holds(_ cue: String, during range: ScoreInterval) -> Bool {
    (intervals[cue] ?? []).contains { $0.overlap(range) > 0 }
  }

  /// Whether `cue` holds at `t`.
  package func holds(_ cue: String, at t: Millis) -> Bool {
    (intervals[cue] ?? []).contains { $0.start <= t && t < $0.end }
  }

  /// The times at which the "ideal" display changes: the holding cue of highest `priority`
  /// (ties: byte-smaller id), or none. What a perfect coach would show, changing exactly at
  /// label changes.
  /// `since`: the earliest `since` of the label changes at that t.
  package func idealChanges(priority: (String) -> Int) -> [(t: Millis, cue: String?, since: Millis)] {
    var out: [(t: Millis, cue: String?, since: Millis)] = []
    var current: String? = nil
    var holding: Set<String> = []
    var i = 0
    while i < changes.count {
      let t = changes[i].t
      var since = t
      while i < changes.count && changes[i].t == t {
        if changes[i].holds { holding.insert(changes[i].cue) } else { holding.remove(changes[i].cue) }
        since = min(since, changes[i].since)
        i += 1
      }
      let best = holding.max { a, b in
        let pa = priority(a)
        let pb = priority(b)
        return pa != pb ? pa < pb : b.utf8.lexicographicallyPrecedes(a.utf8)
      }
      if best != current {
        out.append((t, best, since))
        current = best
      }
    }
    return out
  }
}

/// What the coach displayed: one span per displayed cue, from the `cue_display` that showed
/// it to the next `cue_display` that showed another cue (or none), or the end of the replay.
/// A level change of the shown cue does not end its span.
package struct DisplayTrack: Equatable, Sendable {
  package struct Span: Equatable, Sendable {
    package var cue: String
    package var interval: ScoreInterval
    package init(cue: String, interval: ScoreInterval) {
      self.cue = cue
      self.interval = interval
    }
  }

  /// A change of the displayed cue id (nil = nothing displayed).
  package struct Change: Equatable, Sendable {
    package var t: Millis
    package var from: String?
    package var to: String?
  }

  package private(set) var spans: [Span] = []
  package private(set) var changes: [Change] = []

  /// From `cue_display` outputs in time order: (t, displayed cue id or nil).
  package init(displays: [(t: Millis, cue: String?)], endMs: Millis) {
    var shown: String? = nil
    var since: Millis = 0
    for d in displays where d.cue != shown {
      if let s = shown, d.t > since { spans.append(Span(cue: s, interval: ScoreInterval(since, d.t))) }
      changes.append(Change(t: d.t, from: shown, to: d.cue))
      shown = d.cue
      since = d.t
    }
    if let s = shown, endMs > since { spans.append(Span(cue: s, interval: ScoreInterval(since, endMs))) }
  }

  /// The spans of `cue`, in time order.
  package func spans(of cue: String) -> [ScoreInterval] { spans.filter { $0.cue == cue }.map(\.interval) }
}
