import CanonicalJSON
import EngineIO
import JustPhotoIO
import Replay

/// Prompt budgets from the Camera Coach guidance rules, checked on a canonical trace:
/// how often the displayed cue may change, how often one cue may come back, how many
/// prompts may appear together, and how short a display may be.
public struct BudgetLimits: Equatable, Sendable {
  /// At most this many displays of one cue within `repeatWindowMs` (default 3 in 10 s).
  public var maxShowsOfOneCue = 3
  public var repeatWindowMs: Int64 = 10_000
  /// At most this many prompts shown within 1 s (default 2).
  public var maxPromptsPerSecond = 2
  /// At most this many displayed-cue changes within any minute (default 8).
  public var maxCueChangesPerMinute = 8
  /// A displayed cue stays at least this long (default 300 ms).
  public var minHoldMs: Int64 = 300

  public init() {}

  /// The names `--budget name=value` accepts, with their current values.
  public var settings: [(name: String, value: Int64)] {
    [
      ("maxShowsOfOneCue", Int64(maxShowsOfOneCue)), ("repeatWindowMs", repeatWindowMs),
      ("maxPromptsPerSecond", Int64(maxPromptsPerSecond)), ("maxCueChangesPerMinute", Int64(maxCueChangesPerMinute)),
      ("minHoldMs", minHoldMs),
    ]
  }

  /// Sets one limit from `name=value`; the error names the known limits.
  public mutating func set(_ assignment: String) throws(BudgetError) {
    let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
    guard parts.count == 2, let v = Int64(parts[1]), v >= 0 else {
      throw BudgetError(message: "--budget '\(assignment)': expected name=non-negative integer")
    }
    switch parts[0] {
    case "maxShowsOfOneCue": maxShowsOfOneCue = Int(v)
    case "repeatWindowMs": repeatWindowMs = v
    case "maxPromptsPerSecond": maxPromptsPerSecond = Int(v)
    case "maxCueChangesPerMinute": maxCueChangesPerMinute = Int(v)
    case "minHoldMs": minHoldMs = v
    default:
      throw BudgetError(
        message: "--budget '\(parts[0])': unknown budget; known: \(settings.map(\.name).joined(separator: ", "))")
    }
  }
}

extension BudgetLimits {
  /// These limits with a recording's own ones applied over them: its header may declare
  /// `budgets: {name: value}` (e.g. a coverage sweep that shows many cues in one minute on
  /// purpose). Returns the limits and the settings applied, as `name=value` in header order.
  public func applying(header: JSONObject) throws(BudgetError) -> (limits: BudgetLimits, settings: [String]) {
    var limits = self
    var settings: [String] = []
    for m in header["budgets"]?.objectValue?.members ?? [] {
      let setting = "\(m.key)=\(m.value.int64Value.map(String.init) ?? m.value.stringValue ?? "")"
      try limits.set(setting)
      settings.append(setting)
    }
    return (limits, settings)
  }
}

public struct BudgetError: Error, Equatable, Sendable, CustomStringConvertible {
  public var message: String
  public var description: String { message }
}

/// What `BudgetCheck` found in one trace.
public struct BudgetReport: Equatable, Sendable {
  public var name: String
  /// Displayed-cue changes (cue_display lines whose cue id differs from the previous one).
  public var cueChanges: Int
  /// The trace's span in ms (last line's t, at least 1).
  public var spanMs: Int64
  /// Human-readable breaches, in time order; empty when every budget holds.
  public var breaches: [String]
  /// The cues the breaches are about (a cue shown too often, or held too briefly), in breach
  /// order: a value to match on instead of searching the breach texts.
  public var breachCues: [String] = []

  /// Changes per minute over the trace's span, or per the first minute when it is shorter.
  public var changesPerMinute: Double { Double(cueChanges) * 60_000 / Double(max(spanMs, 60_000)) }
  public var passed: Bool { breaches.isEmpty }

  public var line: String {
    let rate = (changesPerMinute * 10).rounded() / 10
    let head = "budgets \(name): \(cueChanges) cue changes (\(rate)/min)"
    return breaches.isEmpty ? head + ", ok" : head + "\n" + breaches.map { "  BREACH \($0)" }.joined(separator: "\n")
  }
}

/// Checks a trace's records against `BudgetLimits`: a golden's as the one reader reads them
/// (`GoldenTrace`), or a replay's in memory (score, audit).
public enum BudgetCheck {
  public static func check(name: String, records: [TraceRecord], limits: BudgetLimits) -> BudgetReport {
    struct Display {
      var t: Int64
      var cue: String?
    }
    var displays: [Display] = []
    var prompts: [Int64] = []
    var lastT: Int64 = 0
    for r in records {
      let t = r.t
      lastT = max(lastT, t)
      let line = TraceLine(out: r.out, fields: r.fields)
      if let d = line.cueDisplay {
        displays.append(Display(t: t, cue: d.cueId))
      } else if line.prompt?.op == "shown" {
        prompts.append(t)
      }
    }
    // Changes of the displayed cue id (a level change of the same cue is not a new cue).
    var changes: [Display] = []
    var shown: String? = nil
    for d in displays where d.cue != shown {
      changes.append(d)
      shown = d.cue
    }
    var breaches: [(t: Int64, text: String, cue: String?)] = []
    // One cue shown more than N times within the window.
    var showsByCue: [String: [Int64]] = [:]
    for c in changes { if let id = c.cue { showsByCue[id, default: []].append(c.t) } }
    for id in showsByCue.keys.sorted() {
      let times = showsByCue[id]!
      if let at = firstBurst(times, count: limits.maxShowsOfOneCue + 1, windowMs: limits.repeatWindowMs) {
        breaches.append(
          (at, "\(id) shown more than \(limits.maxShowsOfOneCue) times within \(limits.repeatWindowMs) ms (by t=\(at))", id))
      }
    }
    if let at = firstBurst(prompts, count: limits.maxPromptsPerSecond + 1, windowMs: 1000) {
      breaches.append((at, "more than \(limits.maxPromptsPerSecond) prompts shown within 1000 ms (by t=\(at))", nil))
    }
    if let at = firstBurst(changes.map(\.t), count: limits.maxCueChangesPerMinute + 1, windowMs: 60_000) {
      breaches.append((at, "more than \(limits.maxCueChangesPerMinute) cue changes within a minute (by t=\(at))", nil))
    }
    for (a, b) in zip(changes, changes.dropFirst()) where a.cue != nil && b.t - a.t < limits.minHoldMs {
      breaches.append((b.t, "\(a.cue!) held \(b.t - a.t) ms < \(limits.minHoldMs) ms (t=\(a.t)…\(b.t))", a.cue))
    }
    breaches.sort { ($0.t, $0.text) < ($1.t, $1.text) }
    // The prompt system's own invariants (one L3 at a time, no timer on an L2 with a button).
    let invariants = PromptInvariants.check(records: records)
    var report = BudgetReport(
      name: name, cueChanges: changes.count, spanMs: lastT, breaches: breaches.map(\.text) + invariants)
    report.breachCues = breaches.compactMap(\.cue)
    return report
  }

  /// The time of the first event that completes `count` events within `windowMs` (first to
  /// last strictly less than the window apart), or nil. `times` ascending.
  static func firstBurst(_ times: [Int64], count: Int, windowMs: Int64) -> Int64? {
    guard count >= 1, times.count >= count else { return nil }
    for end in (count - 1)..<times.count where times[end] - times[end - count + 1] < windowMs {
      return times[end]
    }
    return nil
  }
}
