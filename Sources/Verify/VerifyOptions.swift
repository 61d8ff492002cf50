import Foundation
import Replay

/// What `verify` (and `assertReplay`) writes when a golden does not hold, like insta's
/// `INSTA_UPDATE`: `new` writes `<golden>.new` beside the golden for review, `always`
/// overwrites the golden, `no` writes nothing.
public enum UpdateMode: String, CaseIterable, Sendable {
  case new
  case always
  case no

  /// The environment variable that chooses the mode when no flag does.
  public static let environmentKey = "JPREPLAY_UPDATE"

  /// The mode in force: the flag, else `JPREPLAY_UPDATE`, else `no` on CI (`CI` set) or when
  /// exploring with another spec or options (`--spec`/`--set`), else `new`. Throws a message
  /// naming the variable when its value is not a mode.
  public static func resolve(
    flag: UpdateMode?, exploring: Bool,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(BadInputError) -> UpdateMode {
    if let flag { return flag }
    if let raw = environment[environmentKey], !raw.isEmpty {
      guard let mode = UpdateMode(rawValue: raw.lowercased()) else {
        throw BadInputError(
          message:
            "\(environmentKey)=\(raw): expected new, always or no (unset it to use the default)")
      }
      return mode
    }
    if VerifyOptions.isCI(environment) || exploring { return .no }
    return .new
  }
}

/// What `verify` does with a golden whose recording does not exist (an orphan).
public enum UnreferencedPolicy: String, CaseIterable, Sendable {
  /// List it, do not fail.
  case ignore
  /// List it and fail (exit 1): the default.
  case fail
  /// Delete its golden and pending files, list them, do not fail.
  case delete
}

/// Options of `verify`.
public struct VerifyOptions: Sendable {
  /// Recordings to verify (names, paths or globs such as `cov-*`); nil = the whole corpus,
  /// orphan goldens included.
  public var names: [String]?
  /// Parallel replays (threads); results come back in name order whatever the value.
  public var jobs: Int
  /// What to write when a golden does not hold.
  public var update: UpdateMode
  /// Goldens without a recording.
  public var unreferenced: UnreferencedPolicy
  /// `--shard i/n`: only every n-th name starting at the i-th (1-based) of the sorted list.
  public var shard: Shard?
  /// Tolerances; exact by default (byte equality decides).
  public var diff: DiffOptions

  /// `ci: true` is `update: .no` (CI mode, DESIGN §4: write nothing); an explicit `update`
  /// wins.
  public init(
    names: [String]? = nil, jobs: Int = 1, ci: Bool = false, update: UpdateMode? = nil,
    unreferenced: UnreferencedPolicy = .fail, shard: Shard? = nil, diff: DiffOptions = DiffOptions()
  ) {
    self.names = names
    self.jobs = jobs
    self.update = update ?? (ci ? .no : .new)
    self.unreferenced = unreferenced
    self.shard = shard
    self.diff = diff
  }

  /// Whether nothing is written (`update == .no`).
  public var ci: Bool { update == .no }

  /// Threads used when `--jobs` is not given: the active core count, 1…`jobsMax`.
  public static var defaultJobs: Int {
    min(max(1, ProcessInfo.processInfo.activeProcessorCount), jobsMax)
  }
  /// The most threads `verify` runs.
  public static let jobsMax = 64

  /// Whether the environment says CI: `CI` set to anything but "", "0" or "false".
  public static func isCI(_ environment: [String: String] = ProcessInfo.processInfo.environment)
    -> Bool
  {
    guard let v = environment["CI"] else { return false }
    return !["", "0", "false", "FALSE", "False"].contains(v)
  }
}

/// One slice of the corpus for parallel CI machines.
public struct Shard: Sendable, Equatable {
  /// 1-based, ≤ count.
  public var index: Int
  /// How many shards in all.
  public var count: Int
  /// Shard `index` of `count`.
  public init(index: Int, count: Int) {
    self.index = index
    self.count = count
  }
  /// Parses "i/n" (1 ≤ i ≤ n).
  public init?(_ text: String) {
    let parts = text.split(separator: "/")
    guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, i >= 1, i <= n
    else { return nil }
    self.init(index: i, count: n)
  }
  func contains(position: Int) -> Bool { position % count == index - 1 }
}
