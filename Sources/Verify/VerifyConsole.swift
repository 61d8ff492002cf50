import Recording
import Replay

/// The result of `verify`, cases in name order, and its console text.
public struct VerifyReport: Equatable, Sendable {
  /// One result per recording (and orphan golden), in name order.
  public var cases: [VerifyCase]
  /// The update mode the run used (for the closing hints); nil when unknown.
  public var update: UpdateMode?

  /// A report of `cases`, written under `update` (nil: no update mode in effect).
  public init(cases: [VerifyCase], update: UpdateMode? = nil) {
    self.cases = cases
    self.update = update
  }

  /// The most severe case: 2 bad input > 1 difference > 0 ok.
  public var exitCode: ExitDecision { cases.map(\.exitCode).max() ?? .ok }
  /// Every case that did not pass (whatever its category).
  public var failures: [VerifyCase] { cases.filter { !$0.passed } }

  /// Cases per category.
  public func count(_ category: VerifyCategory) -> Int {
    cases.reduce(0) { $0 + ($1.category == category ? 1 : 0) }
  }

  /// Divergences of the whole run grouped by cue, kind and shape.
  public var groups: [DivergenceGroup] { DivergenceGroup.groups(of: cases) }

  /// "75 passed, 1 failed, 2 stale" — passed and failed always, other categories when not
  /// zero; the numbers add up to the cases. A recording that breaks its `expect:` rules and is
  /// also failed, missing or stale counts in that category, and the line says how many of
  /// those break rules too ("1 failed, 1 unmet (+1 of the failed, missing or stale)"), so no
  /// broken rule hides behind another category.
  public var summaryLine: String {
    var parts = ["\(count(.passed)) passed", "\(count(.failed)) failed"]
    let alsoUnmet = unmetElsewhere
    for c in [VerifyCategory.missing, .stale, .orphan, .unmet, .updated] {
      if c == .unmet, alsoUnmet > 0 {
        parts.append("\(count(c)) unmet (+\(alsoUnmet) of the failed, missing or stale)")
      } else if count(c) > 0 {
        parts.append("\(count(c)) \(c.rawValue)")
      }
    }
    let errors = count(.error)
    if errors > 0 { parts.append("\(errors) \(errors == 1 ? "error" : "errors") (bad input)") }
    return parts.joined(separator: ", ")
  }

  /// Cases that break their `expect:` rules but count in another category (failed, missing,
  /// stale).
  public var unmetElsewhere: Int {
    cases.reduce(0) { $0 + (!$1.unmet.isEmpty && $1.category != .unmet ? 1 : 0) }
  }

  /// Group lines shown in the console.
  public static let groupsShownMax = 20

  /// A plain-text report: one block per case that is not ok (all with `verbose`), the
  /// divergences grouped across the corpus, a closing count and what to do next.
  public func render(verbose: Bool = false, color: Bool = false) -> String {
    var out = ""
    for c in cases where verbose || c.category != .passed { out += block(c, color: color) }
    let groups = self.groups
    if !groups.isEmpty {
      out += "divergences by cue (\(groups.count) \(groups.count == 1 ? "group" : "groups")):\n"
      for g in groups.prefix(Self.groupsShownMax) { out += "  \(ConsoleText.line(g.line))\n" }
      if groups.count > Self.groupsShownMax {
        out += "  … and \(groups.count - Self.groupsShownMax) more (see --format json)\n"
      }
    }
    out += knownMissLines().map { $0 + "\n" }.joined()
    out += summaryLine + "\n"
    out += hints().map { $0 + "\n" }.joined()
    return out
  }

  /// Known-miss lines shown in the console.
  public static let knownMissesShownMax = 20

  /// The rules that miss as their `known:` markers say (not failures), under one heading: a
  /// recorded finding stays in sight on every run. Empty when there is none.
  public func knownMissLines() -> [String] {
    let all = cases.flatMap { c in c.knownMisses.map { "\(c.name): \($0)" } }
    guard !all.isEmpty else { return [] }
    var out = ["known misses (\(all.count); expect: rules whose known: marker names this draw — reported, not failures):"]
    out += all.prefix(Self.knownMissesShownMax).map { "  " + ConsoleText.line($0) }
    if all.count > Self.knownMissesShownMax {
      out.append("  … and \(all.count - Self.knownMissesShownMax) more (see --format json)")
    }
    return out
  }

  /// The console block of one case: tag, name and message, the explanation, files written.
  public func block(_ c: VerifyCase, color: Bool = false) -> String {
    let paint = Paint(enabled: color)
    let tag = c.category.tag
    let tagText = paint.category(c.category, tag + String(repeating: " ", count: max(0, 7 - tag.count)))
    // Names, messages and diff lines carry text from files: printed through ConsoleText.
    var out = "\(tagText) \(ConsoleText.line(c.name)): \(ConsoleText.safe(c.message))\n"
    for line in c.details { out += "        \(paint.diffLine(ConsoleText.line(line)))\n" }
    for w in c.written { out += "        wrote \(c.goldenDir)/\(w)\n" }
    for u in c.updated { out += "        updated \(ConsoleText.line(c.goldenDir))/\(ConsoleText.line(c.name))\(u.file.suffix)\n" }
    return out
  }

  /// ` --recordings-dir R --golden-dir G` for folders other than the defaults (Recordings,
  /// Golden), shell-quoted where needed; empty for the defaults.
  static func folderFlags(recordings: String, golden: String) -> String {
    func quoted(_ s: String) -> String {
      let plain = s.utf8.allSatisfy { b in
        (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) || "/._-+".utf8.contains(b)
      }
      return ConsoleText.line(plain && !s.isEmpty ? s : "'" + s.replacingOccurrences(of: "'", with: #"'\''"#) + "'")
    }
    var out = ""
    if recordings != "Recordings" { out += " --recordings-dir \(quoted(recordings))" }
    if golden != "Golden" { out += " --golden-dir \(quoted(golden))" }
    return out
  }

  /// What to run next, one line each.
  /// `updateHint`: how the caller asks for .new files (`--update new` on the command line;
  /// `assertReplay` names its own `update:` parameter).
  public func hints(updateHint: String = "pass --update new to write .new files") -> [String] {
    var out: [String] = []
    if let c = cases.first(where: { !$0.written.isEmpty }) {
      // The folders as verify was given them, so the command works as printed (PixScan's
      // corpus lives in Recordings/pixscan and Golden/pixscan).
      let folders = Self.folderFlags(recordings: c.recordingsDir, golden: c.goldenDir)
      out.append("review the pending goldens with `jpreplay review\(folders)` (or `jpreplay accept <name>\(folders)`)")
    }
    if count(.stale) > 0 {
      out.append("re-record stale recordings with `jpreplay record <name>` (another engine's: `jpreplay record <its scenario file>`, as its STALE line says), then verify again")
    }
    if count(.unmet) > 0 {
      out.append("unmet expectations: the replay breaks its scenario's expect: rules (docs/FORMAT.md, or the engine's own document: docs/PIXSCAN.md); fix the engine or the spec, not the goldens")
    }
    if cases.contains(where: { $0.status == .orphanGolden }) {
      out.append("orphan goldens: restore their recordings, or pass --unreferenced delete (or ignore)")
    }
    let differing = cases.contains { [.failed, .missing].contains($0.category) }
    if differing && update == .no {
      out.append("nothing written (update mode no); \(updateHint)")
    }
    return out
  }
}

/// ANSI colour for the console, or nothing.
struct Paint {
  var enabled: Bool
  func wrap(_ code: String, _ s: String) -> String { enabled ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
  func category(_ c: VerifyCategory, _ s: String) -> String {
    switch c {
    case .passed: wrap("32", s)
    case .updated: wrap("36", s)
    case .failed: wrap("31", s)
    case .missing, .stale, .orphan: wrap("33", s)
    case .unmet: wrap("35", s)
    case .error: wrap("1;31", s)
    }
  }
  func diffLine(_ s: String) -> String {
    if s.hasPrefix("  - ") { return wrap("31", s) }
    if s.hasPrefix("  + ") { return wrap("32", s) }
    return s
  }
}
