import CanonicalJSON
import EngineIO
import PoseSpec

/// Inspiration / ODR sheet state (ENGINE §5.14).
public enum OdrState: String, Sendable, Equatable {
  case idle, ready, downloading, failed_retry, offline_keywords_only
}

/// The Inspiration sheet's on-demand resources (ENGINE §5.14): requests, the offline prompt,
/// and one auto-retry 500 ms after the network comes back while the sheet shows failed_retry.
struct OdrSheet: Sendable {
  enum Input: Sendable {
    case open, close, retryTap
    /// `odr_tag` of a tap (nil keeps the current tag).
    case tap(tag: String?)
    case result(ok: Bool)
    case network(satisfied: Bool)
    case retryDue
  }

  static let retryTimer = EngineTimer.odrRetry.id
  static let debounceMs: Millis = 500

  var state = OdrState.idle
  var networkSatisfied: Bool
  var sheetOpen = false
  var tag: String?
  /// Requests per tag (ENGINE §1.6 [pinned 2026-11-27]: for `odr_request` the item is the tag,
  /// so a second tag's first request carries attempt 1). Looked up only, never iterated.
  var attempts: [String: Int] = [:]
  /// An auto-retry is scheduled (at most one per network recovery).
  var retryPending = false
  /// The request in flight is the auto-retry (its result is logged as `odr_auto_retry`).
  var autoInFlight = false

  init(networkSatisfied: Bool) { self.networkSatisfied = networkSatisfied }

  mutating func handle(_ input: Input, at t: Millis) -> [MachineAction] {
    switch input {
    case .open:
      sheetOpen = true
      if !networkSatisfied {
        state = .offline_keywords_only
        return [.prompt(.odr_unavailable)]
      }
      return state == .idle || state == .offline_keywords_only ? request() : []
    case .tap(let newTag):
      tag = newTag ?? tag
      guard networkSatisfied else {
        // An image tap offline is a fetch that fails at once (§5.14: failed_retry on failure),
        // so the network's return on the sheet brings the one auto-retry.
        state = .failed_retry
        return [.output(.odr(state)), .prompt(.odr_unavailable)]
      }
      return request()
    case .retryTap: return request()
    case .close:
      sheetOpen = false
      guard retryPending else { return [] }
      retryPending = false
      return [.timer(.cancel(Self.retryTimer)), autoRetryLine("skipped_left_page")]
    case .result(let ok): return result(ok: ok)
    case .network(let satisfied): return network(satisfied: satisfied, at: t)
    case .retryDue:
      guard retryPending else { return [] }
      retryPending = false
      autoInFlight = true
      return request()
    }
  }

  private mutating func result(ok: Bool) -> [MachineAction] {
    var out: [MachineAction] = []
    state = ok ? .ready : .failed_retry
    if autoInFlight {
      autoInFlight = false
      out.append(autoRetryLine(ok ? "success" : "fail"))
    }
    // §4.6 / PRD A.8: odr_unavailable when the sheet is opened offline *or a fetch fails*.
    if !ok { out.append(.prompt(.odr_unavailable)) }
    out.append(.output(.odr(state)))
    return out
  }

  /// Unsatisfied → satisfied while the sheet shows failed_retry schedules one retry after the
  /// debounce (at most one per recovery).
  private mutating func network(satisfied: Bool, at t: Millis) -> [MachineAction] {
    let was = networkSatisfied
    networkSatisfied = satisfied
    guard !was, satisfied, sheetOpen, state == .failed_retry, !retryPending else { return [] }
    retryPending = true
    return [.timer(.schedule(Self.retryTimer, at: t + Self.debounceMs))]
  }

  private mutating func request() -> [MachineAction] {
    let tag = self.tag ?? "inspiration"
    self.tag = tag
    let attempt = attempts[tag, default: 0] + 1
    attempts[tag] = attempt
    state = .downloading
    return [.output(.odr(.downloading)), .output(.effect(.odrRequest(tag: tag, attempt: attempt)))]
  }

  private func autoRetryLine(_ result: String) -> MachineAction {
    .diagnostic(
      "odr_auto_retry", [("state_before", "failed_retry"), ("debounce_ms", String(Self.debounceMs)), ("result", result)])
  }
}
