import Foundation

/// The verdict of `verify --bisect` for `git bisect run`: 0 good, 1 bad, 125 skip.
///
/// A behavioural difference (a golden that exists and differs, or an `expect:` rule of a
/// recording that is not stale broken by its replay) is "bad". Anything that
/// prevents judging — a stale recording, a missing golden, an orphan, an unreadable
/// recording or golden, a harness error, any other failure of the step (exit 2) — is "skip"
/// (125), never "bad", so a bisection is not steered by a commit that merely cannot be judged.
public enum BisectVerdict: Int32, Sendable, Equatable {
  case good = 0
  case bad = 1
  case skip = 125

  /// The verdict of a `verify --bisect` report (see the type's rule).
  public init(_ report: VerifyReport) {
    let differs = report.cases.contains { c in
      guard c.scenario == nil else { return false }
      if !c.unmet.isEmpty { return true }
      guard case .failed(let problems) = c.status else { return false }
      return problems.contains { if case .mismatch = $0.kind { true } else { false } }
    }
    if differs {
      self = .bad
    } else if report.cases.allSatisfy({ $0.passed || $0.category == .orphan }) && !report.cases.isEmpty {
      self = .good
    } else {
      self = .skip
    }
  }

  /// `options` as a bisect step runs them: nothing is written and orphan goldens are ignored
  /// (a step judges the commit; it never changes the tree).
  public static func stepOptions(_ options: VerifyOptions) -> VerifyOptions {
    var o = options
    o.update = .no
    o.unreferenced = .ignore
    return o
  }

  /// The recordings of `requested` a step can judge at this commit (`present`: quoted globs,
  /// paths and names whose recording exists in `store`) and those that do not exist here
  /// (`absent`: skipped, not failed). No name present leaves nothing to judge: skip.
  public static func judgeable(_ requested: [String], store: GoldenStore) -> (present: [String], absent: [String]) {
    let fm = FileManager.default
    var present: [String] = []
    var absent: [String] = []
    for r in requested {
      let exists =
        r.contains("*") || r.contains("?") || fm.fileExists(atPath: r)
        || fm.fileExists(atPath: store.recordingURL(store.name(of: r)).path)
      if exists { present.append(r) } else { absent.append(r) }
    }
    return (present, absent)
  }
}
