// A.13 diagnostics files: naming, rotation plan and export (ENGINE §6.5, S43).
//
// Pure functions of (name, size, mtime) lists and wall-clock milliseconds: the device shell
// lists the directory and deletes what the plan names; the engine never touches a file
// system or a clock. Only the standard library is used (no Foundation dates).

/// One file of the diagnostics directory as the shell sees it.
public struct DiagnosticsFile: Equatable, Sendable {
  public var name: String
  public var sizeBytes: Int64
  /// Modification time, Unix epoch ms.
  public var mtimeMs: Int64
  public init(name: String, sizeBytes: Int64, mtimeMs: Int64) {
    self.name = name
    self.sizeBytes = sizeBytes
    self.mtimeMs = mtimeMs
  }
}

/// Rotation of the A.13 log directory (ENGINE §6.5; PRD "30 days or 50 MB, whichever first").
public enum DiagnosticsRotation {
  /// Total size of `*.jsonl` allowed to remain: 50 MiB.
  public static let sizeCapBytes: Int64 = 52_428_800
  /// Files modified more than 30 days before now are deleted.
  public static let maxAgeMs: Int64 = 30 * 86_400_000

  /// The files to delete, in deletion order, each with the rule that deletes it.
  ///
  /// Only `*.jsonl` files take part (other files are neither counted nor deleted).
  /// 1. Age: every file with `mtime < now − 30 days` ("age"; a file exactly 30 days old
  ///    stays), oldest first, ties by name.
  /// 2. Size: while the remaining total exceeds ``sizeCapBytes``, the remaining file with the
  ///    oldest mtime (ties by name, byte order) is deleted ("size").
  public static func plan(files: [DiagnosticsFile], nowMs: Int64) -> [(file: String, rule: String)] {
    let logs = files.filter { $0.name.hasSuffix(".jsonl") }.sorted(by: oldestFirst)
    let cutoff = nowMs - maxAgeMs
    var out: [(file: String, rule: String)] = []
    var kept: [DiagnosticsFile] = []
    for f in logs {
      if f.mtimeMs < cutoff { out.append((f.name, "age")) } else { kept.append(f) }
    }
    var total = kept.reduce(Int64(0)) { $0 + max(0, $1.sizeBytes) }
    var i = 0
    while total > sizeCapBytes, i < kept.count {
      out.append((kept[i].name, "size"))
      total -= max(0, kept[i].sizeBytes)
      i += 1
    }
    return out
  }

  static func oldestFirst(_ a: DiagnosticsFile, _ b: DiagnosticsFile) -> Bool {
    if a.mtimeMs != b.mtimeMs { return a.mtimeMs < b.mtimeMs }
    return a.name.utf8.lexicographicallyPrecedes(b.name.utf8)
  }

  /// The log file of the UTC day containing `wallMs`: `diagnostics-YYYY-MM-DD.jsonl`.
  public static func fileName(forWallMs wallMs: Int64) -> String {
    let c = UTCTime(wallMs: wallMs)
    return "diagnostics-\(pad(c.year, 4))-\(pad(c.month, 2))-\(pad(c.day, 2)).jsonl"
  }

  /// The export file name: `JustPhoto-Diagnostics-yyyyMMdd-HHmmss.txt` (UTC).
  public static func exportName(wallMs: Int64) -> String {
    let c = UTCTime(wallMs: wallMs)
    return "JustPhoto-Diagnostics-\(pad(c.year, 4))\(pad(c.month, 2))\(pad(c.day, 2))-"
      + "\(pad(c.hour, 2))\(pad(c.minute, 2))\(pad(c.second, 2)).txt"
  }

  /// The export text: for each file in name order, `# file: <name>\n` + content + `\n`.
  public static func export(files: [(name: String, content: String)]) -> String {
    var out = ""
    for f in files.sorted(by: { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }) {
      out += "# file: \(f.name)\n"
      out += f.content
      out += "\n"
    }
    return out
  }

  static func pad(_ v: Int64, _ width: Int) -> String {
    let s = String(v < 0 ? -v : v)
    return (v < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - s.count)) + s
  }
}

/// Civil UTC date and time of an epoch-ms instant (proleptic Gregorian calendar).
struct UTCTime: Equatable {
  var year: Int64
  var month: Int64
  var day: Int64
  var hour: Int64
  var minute: Int64
  var second: Int64

  init(wallMs: Int64) {
    let dayMs: Int64 = 86_400_000
    // Floor division, so instants before 1970 land on the right day.
    var days = wallMs / dayMs
    var msOfDay = wallMs % dayMs
    if msOfDay < 0 {
      msOfDay += dayMs
      days -= 1
    }
    (year, month, day) = UTCTime.civil(fromDays: days)
    let s = msOfDay / 1000
    hour = s / 3600
    minute = s / 60 % 60
    second = s % 60
  }

  /// Days since 1970-01-01 → (year, month 1…12, day 1…31); H. Hinnant's civil_from_days.
  static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
    let z = z0 + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097  // [0, 146096]
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365  // [0, 399]
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)  // [0, 365]
    let mp = (5 * doy + 2) / 153  // [0, 11], March-based
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
    return (y, m, d)
  }
}
