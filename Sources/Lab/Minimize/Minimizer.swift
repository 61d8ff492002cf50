import CanonicalJSON
import EngineIO
import Replay

/// Shrinks a recording while a property still holds (`jpreplay minimize`).
///
/// Stages, each keeping the property true: drop ground-truth `label` events (the engine never
/// sees them); cut the end (the shortest duration that still shows it); cut the head (the
/// longest run of events after the launch that can go, searched from the end); delta-debug whole event kinds (and
/// cut the head again when a kind went); then whole time windows, then single events; cut the end again; finally try moving the whole
/// recording earlier so it starts at t = 0. The result's header states its real duration.
/// The two cuts take O(log n) property checks each, so on a long recording
/// ddmin starts from what is near the behaviour; ddmin's last stage makes the result
/// 1-minimal (no single event can go) as before.
/// Every stage tries candidates in a fixed order, so the same input gives the same output;
/// a candidate is evaluated once however many stages propose it.
package struct Minimizer {
  /// A candidate recording: its header and its events (non-decreasing `t`).
  package struct Candidate: Sendable, Equatable {
    package var header: JSONObject
    package var events: [InputEvent]
    package init(header: JSONObject, events: [InputEvent]) {
      self.header = header
      self.events = events
    }
    package var durationMs: Millis { header["duration_ms"]?.int64Value ?? (events.last?.t ?? 0) }
  }

  package struct Outcome: Sendable {
    package var original: Candidate
    package var minimized: Candidate
    /// Property evaluations (replays, or runs of the user's test command).
    package var tests: Int
    /// The ddmin stages that stopped at ``Limits/testsPerStageMax`` checks: there the result is
    /// smaller than the input but not shown to be 1-minimal.
    package var stagesAtLimit: [String] = []
  }

  /// Bounds of a minimization.
  package enum Limits {
    /// Events a recording may have to be minimized (all are held in memory).
    package static let eventsMax = 2_000_000
    /// Property evaluations per ddmin stage before it settles for what it has.
    package static let testsPerStageMax = 4_000
    /// Events right after the launch the head cut keeps when removing each alone breaks the
    /// property (setup the behaviour needs, e.g. PixScan's library snapshot) before it gives up.
    package static let headSetupMax = 4
    /// Tail lengths the head cut tries one by one (1, 2, …) before doubling.
    package static let tailStepsLinear = 8
  }

  /// Where a minimization is: for progress lines.
  package struct Progress: Sendable, Equatable {
    /// The stage running: "labels", "cut end", "cut head", "kinds", "windows", "events", "shift".
    package var stage: String
    /// Property evaluations so far.
    package var tests: Int
    /// Events of the smallest candidate found so far.
    package var events: Int
  }

  /// Width of the time windows of the window stage.
  package var windowMs: Millis
  /// Whether the candidate still shows the behaviour (true = keep the reduction).
  package var property: (Candidate) throws -> Bool
  /// The engine's launch events (``EngineSeam/EngineVocabulary``'s `launches`): the head cut
  /// never removes the leading ones, since a recording starts with its launch.
  package var launches: (InputEvent) -> Bool
  /// Called after each property evaluation (e.g. a progress line on a terminal).
  package var progress: ((Progress) -> Void)?
  /// Property evaluations a ddmin stage may spend (``Limits/testsPerStageMax``; tests lower it).
  package var testsPerStageMax = Limits.testsPerStageMax

  package init(
    windowMs: Millis = 1000, launches: @escaping (InputEvent) -> Bool = { $0.kind == .app_launch },
    progress: ((Progress) -> Void)? = nil, property: @escaping (Candidate) throws -> Bool
  ) {
    self.windowMs = max(1, windowMs)
    self.launches = launches
    self.progress = progress
    self.property = property
  }

  package func run(_ original: Candidate) throws -> Outcome {
    var tests = 0
    // Stages may propose a candidate an earlier one already tested (the second cut of the end
    // often does): each distinct candidate is evaluated once.
    var seen: [String: [(Candidate, Bool)]] = [:]
    var stage = "input"
    var atLimit: [String] = []
    var smallest = original.events.count
    func holds(_ c: Candidate) throws -> Bool {
      let key = "\(c.events.count) \(c.durationMs) \(c.events.first?.t ?? -1) \(c.events.last?.t ?? -1)"
      if let hit = seen[key]?.first(where: { $0.0 == c }) { return hit.1 }
      tests += 1
      let r = try property(c)
      seen[key, default: []].append((c, r))
      if r { smallest = min(smallest, c.events.count) }
      progress?(Progress(stage: stage, tests: tests, events: smallest))
      return r
    }
    guard try holds(original) else { throw MinimizeError.propertyFailsOnInput }
    var best = original

    // 1. Labels: ground truth only, never seen by the engine.
    stage = "labels"
    let unlabelled = Candidate(header: best.header, events: best.events.filter { $0.kind != .label })
    if unlabelled.events.count < best.events.count, try holds(unlabelled) { best = unlabelled }

    // 2. Cut the end, then the head.
    stage = "cut end"
    best = try cutEnd(best, holds)
    stage = "cut head"
    best = try cutHead(best, holds)

    // 3. Whole kinds (e.g. every landmarks frame of a prompt repro), whole windows, then
    // 4. single events.
    stage = "kinds"
    let beforeKinds = best.events.count
    best = try reduce(best, units: kinds(best.events), holds) { atLimit.append(stage) }
    // Without a whole kind (e.g. effect results, whose requests the head cut may have broken),
    // more of the head may go.
    if best.events.count < beforeKinds {
      stage = "cut head"
      best = try cutHead(best, holds)
    }
    stage = "windows"
    best = try reduce(best, units: windows(best.events), holds) { atLimit.append(stage) }
    stage = "events"
    best = try reduce(best, units: best.events.indices.map { [$0] }, holds) { atLimit.append(stage) }

    // 5. Cut the end again (later events may have gone).
    stage = "cut end"
    best = try cutEnd(best, holds)

    // 6. Start at t = 0 when the behaviour does not depend on absolute times.
    stage = "shift"
    if let first = best.events.first?.t, first > 0 {
      var shifted = best
      shifted.events = best.events.map { var e = $0; e.t -= first; return e }
      shifted.header["duration_ms"] = .number(Double(best.durationMs - first))
      if try holds(shifted) { best = shifted }
    }
    return Outcome(original: original, minimized: best, tests: tests, stagesAtLimit: atLimit)
  }

  /// The shortest prefix (by duration, on event times) that still holds; binary search on
  /// the distinct event times, then the result is checked once more.
  func cutEnd(_ c: Candidate, _ holds: (Candidate) throws -> Bool) throws -> Candidate {
    var ends = Array(Set(c.events.map(\.t))).sorted()
    ends.append(c.durationMs)
    ends = ends.filter { $0 <= c.durationMs }
    var lo = 0
    var hi = ends.count - 1
    var best = c
    while lo < hi {
      let mid = (lo + hi) / 2
      let cut = prefix(c, until: ends[mid])
      if try holds(cut) {
        best = cut
        hi = mid
      } else {
        lo = mid + 1
      }
    }
    return best
  }

  /// Without the longest run of events right after the launch (and its setup) that can go:
  /// the kept head is the leading launch events, then, when nothing can go with those alone,
  /// also the next event, up to ``Limits/headSetupMax`` more (setup such as PixScan's library
  /// snapshot; only after a launch: without launch events the head is empty). For each head, the kept tail is searched from the end: the last 1, 2, …,
  /// ``Limits/tailStepsLinear`` events, then twice as many each step, then a binary search
  /// between the last failing and the first holding length. Short tails are cheap to replay,
  /// and searching from the end finds a tail that starts after every effect chain the
  /// behaviour does not need (a cut inside a chain leaves a result without its request or a
  /// request without its result; the replayer refuses such a candidate, so the property does
  /// not hold on it). Event times do not change (the shift stage may move them).
  func cutHead(_ c: Candidate, _ holds: (Candidate) throws -> Bool) throws -> Candidate {
    let n = c.events.count
    var launch = 0
    while launch < n, launches(c.events[launch]) { launch += 1 }
    func keeping(head: Int, tail: Int) -> Candidate {
      Candidate(header: c.header, events: Array(c.events[..<head]) + c.events[(n - tail)...])
    }
    // Setup follows a launch: a recording without launch events (Just Photo's start from
    // their header's state) tries the empty head only.
    let heads = launch == 0 ? 0...0 : launch...min(n, launch + Limits.headSetupMax)
    for head in heads {
      // Tail lengths to try: 1…linear, then doubling, while something would still go.
      let room = n - head - 1  // the longest tail that still removes an event
      guard room >= 1 else { return c }
      var failed = 0
      var length = 1
      var found: Int? = nil
      while length <= room {
        if try holds(keeping(head: head, tail: length)) {
          found = length
          break
        }
        failed = length
        length = length < Limits.tailStepsLinear ? length + 1 : length * 2
      }
      if found == nil, failed < room, try holds(keeping(head: head, tail: room)) { found = room }
      guard var hold = found else { continue }
      // Shortest holding length in (failed, hold].
      var lo = failed + 1
      while lo < hold {
        let mid = (lo + hold) / 2
        if try holds(keeping(head: head, tail: mid)) { hold = mid } else { lo = mid + 1 }
      }
      return keeping(head: head, tail: hold)
    }
    return c
  }

  func prefix(_ c: Candidate, until end: Millis) -> Candidate {
    var h = c.header
    h["duration_ms"] = .number(Double(end))
    return Candidate(header: h, events: c.events.filter { $0.t <= end })
  }

  /// Event indices grouped by `windowMs`-wide windows of time.
  func windows(_ events: [InputEvent]) -> [[Int]] {
    var out: [[Int]] = []
    var current: Millis? = nil
    for (i, e) in events.enumerated() {
      let w = e.t / windowMs
      if w != current {
        out.append([])
        current = w
      }
      out[out.count - 1].append(i)
    }
    return out
  }

  /// Event indices grouped by kind, in order of first appearance.
  func kinds(_ events: [InputEvent]) -> [[Int]] {
    var order: [String] = []
    var groups: [String: [Int]] = [:]
    for (i, e) in events.enumerated() {
      let k = e.kindName
      if groups[k] == nil { order.append(k) }
      groups[k, default: []].append(i)
    }
    return order.map { groups[$0]! }
  }

  /// ddmin over `units` (groups of event indices of `c`).
  func reduce(
    _ c: Candidate, units: [[Int]], _ holds: (Candidate) throws -> Bool, atLimit: () -> Void = {}
  ) throws -> Candidate {
    guard units.count > 1 else { return c }
    func candidate(_ kept: [Int]) -> Candidate {
      let keep = Set(kept.flatMap { units[$0] })
      return Candidate(header: c.header, events: c.events.indices.filter { keep.contains($0) }.map { c.events[$0] })
    }
    let r = try DeltaDebugging.minimize(Array(units.indices), testsMax: testsPerStageMax) { kept in
      kept.count == units.count ? true : try holds(candidate(kept))
    }
    if r.tests >= testsPerStageMax { atLimit() }
    return candidate(r.subset)
  }
}

/// Why a minimization could not start.
package enum MinimizeError: Error, CustomStringConvertible, Equatable {
  case propertyFailsOnInput
  case noDivergence(String)
  /// `--against`: the two engines replay the recording identically.
  case enginesAgree(String, String)
  /// `--against`: an engine cannot replay the recording.
  case engineRefuses(String)

  package var description: String {
    switch self {
    case .propertyFailsOnInput: "the property does not hold on the input recording: nothing to minimize"
    case .noDivergence(let name): "\(name): the replay equals its golden; give --expect or --test to say what to keep"
    case .enginesAgree(let a, let b): "the two engines replay it identically (\(a); \(b)): no regression to keep"
    case .engineRefuses(let a): "\(a) cannot replay it"
    }
  }
}
