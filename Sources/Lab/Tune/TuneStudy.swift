import CanonicalJSON
import Foundation
import GRDB
import JustPhotoPlugin
import PoseSpec
import Recording

/// A study on disk: one SQLite file (GRDB) per machine. `study` holds what makes trials
/// comparable (space text, sampler, seed, trial count, spec and corpus); `trials` holds one row
/// per finished trial. Rows are written in index order, a transaction per chunk, so a kill -9
/// loses at most the chunk in flight and a rerun continues from the rows present.
public final class TuneStudy {
  public static let format = "jpreplay-tune/1"
  /// Keys that must agree for a rerun to continue a study, or for two studies to merge.
  /// (`validation`, the validation recordings' names, is absent from studies made before it
  /// existed: read as none.)
  public static let identityKeys = [
    "format", "space_sha256", "sampler", "seed", "trials", "objective", "tpe_batch", "constraints", "spec_sha256", "corpus", "validation",
  ]
  /// The shipped spec's objectives (fit, and `val.KEY` on the validation corpus), canonical
  /// JSON, stored once when the study starts.
  public static let shippedKey = "shipped_objectives"

  public let path: String
  let queue: DatabaseQueue

  init(path: String, queue: DatabaseQueue) {
    self.path = path
    self.queue = queue
  }

  /// Opens (creating when absent) the study at `path`.
  public static func open(_ path: String, create: Bool) throws(HarnessFailure) -> TuneStudy {
    let exists = FileManager.default.fileExists(atPath: path)
    guard exists || create else { throw .badInput("\(path): no such study") }
    if exists {
      do { try InputFile.checkRegular(path, what: "tune study") } catch { throw .badInput(error.description) }
    }
    // Reading (report, promote, merge's inputs): read-only, so a damaged or foreign file is
    // never written to; either way its pages are checked first (issue 23.5).
    if !create {
      var config = Configuration()
      config.readonly = true
      let q: DatabaseQueue
      do { q = try DatabaseQueue(path: path, configuration: config) } catch { throw .badInput("\(path): not a tune study (\(Self.reason(error)))") }
      try checkIntegrity(q, path: path)
      do {
        let tables = try q.read { try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") }
        guard tables.contains("study") && tables.contains("trials") else { throw HarnessFailure.badInput("\(path): not a tune study (no study and trials tables)") }
      } catch let e as HarnessFailure { throw e } catch { throw .badInput("\(path): not a tune study (\(Self.reason(error)))") }
      return TuneStudy(path: path, queue: q)
    }
    do {
      let q = try DatabaseQueue(path: path)
      if exists { try checkIntegrity(q, path: path) }
      try q.write { db in
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS study (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)")
        try db.execute(
          sql: """
            CREATE TABLE IF NOT EXISTS trials (idx INTEGER PRIMARY KEY NOT NULL, params TEXT NOT NULL,
            status TEXT NOT NULL, objectives TEXT NOT NULL, reason TEXT)
            """)
      }
      return TuneStudy(path: path, queue: q)
    } catch { throw .badInput("\(path): not a tune study (\(error))") }
  }

  /// `PRAGMA integrity_check` must say "ok".
  static func checkIntegrity(_ q: DatabaseQueue, path: String) throws(HarnessFailure) {
    let result: String?
    do { result = try q.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") } } catch {
      throw .badInput("\(path): not a tune study, or damaged (\(reason(error)))")
    }
    guard result == "ok" else { throw .badInput("\(path): the study is damaged (integrity_check: \(String((result ?? "no answer").prefix(200))))") }
  }

  /// SQLite's own message, without the debug description of the error value.
  static func reason(_ error: Error) -> String {
    if let e = error as? DatabaseError { return e.message ?? "SQLite error \(e.resultCode.rawValue)" }
    return "\(error)"
  }

  /// The study's settings by key.
  public func meta() throws(HarnessFailure) -> [String: String] {
    do {
      return try queue.read { db in
        var out: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT key, value FROM study") { out[row["key"]] = row["value"] }
        return out
      }
    } catch { throw .badInput("\(path): cannot read the study (\(error))") }
  }

  /// Records `meta` in a new study, or checks that an existing study was made with the same
  /// settings (a rerun must not mix trials of two different studies).
  public func bind(_ settings: [(String, String)]) throws(HarnessFailure) {
    let old = try meta()
    if old.isEmpty {
      do {
        try queue.write { db in
          for (k, v) in settings { try db.execute(sql: "INSERT INTO study (key, value) VALUES (?, ?)", arguments: [k, v]) }
        }
      } catch { throw .badInput("\(path): cannot write (\(error))") }
      return
    }
    for (k, v) in settings where Self.identityKeys.contains(k) && Self.identity(old, k) != v {
      // More trials than the study holds: that is what --extend is for (the study keeps its
      // trials), not a new study.
      if k == "trials", let was = old[k].flatMap({ Int($0) }), let now = Int(v), now > was {
        throw .badInput(
          "\(path): this study was made with \(was) trials, not \(now); to add trials to it, rerun the same command with --extend (it keeps trials 0…\(was - 1) and runs the rest), or use another --study file to start a new study")
      }
      throw .badInput(
        "\(path): this study was made with \(k) = \(old[k] ?? "(none)"), not \(v); use another --study file to start a new study")
    }
  }

  /// `tune run --extend`: raises an existing study's trial count to the one in `settings`,
  /// every other identity setting unchanged. Trial i's values depend only on the seed and i
  /// (TPE: and on the batches before i's), never on the trial count, so trials 1…N of an
  /// extended study are those of a study run with its final count from the start; the run then
  /// adds the new indices as a resumed run adds missing ones. Returns the count before. The
  /// extensions are kept in the study (`extended`: "200 → 250", one line each).
  @discardableResult
  public func extend(_ settings: [(String, String)]) throws(HarnessFailure) -> Int {
    let old = try meta()
    guard !old.isEmpty, let before = old["trials"].flatMap({ Int($0) }) else {
      throw .badInput("\(path): --extend adds trials to an existing study, and this one has none yet; run it without --extend")
    }
    guard let after = settings.first(where: { $0.0 == "trials" }).flatMap({ Int($0.1) }) else {
      throw .badInput("--extend: no trial count given (--trials N)")
    }
    for (k, v) in settings where k != "trials" && Self.identityKeys.contains(k) && Self.identity(old, k) != v {
      throw .badInput(
        "\(path): --extend keeps every setting but the trial count, and this study was made with \(k) = \(old[k] ?? "(none)"), not \(v); use another --study file to start a new study")
    }
    guard after > before else {
      throw .badInput("\(path): --extend --trials \(after): the study already has \(before) trials; give a larger count")
    }
    let history = old["extended"].map { $0 + "\n" } ?? ""
    do {
      try queue.write { db in
        try db.execute(sql: "UPDATE study SET value = ? WHERE key = 'trials'", arguments: [String(after)])
        try db.execute(
          sql: "INSERT OR REPLACE INTO study (key, value) VALUES ('extended', ?)", arguments: [history + "\(before) → \(after)"])
      }
    } catch { throw .badInput("\(path): cannot write (\(error))") }
    return before
  }

  /// Setting `key` of a study; a key added to the identity later reads as empty when absent.
  static func identity(_ meta: [String: String], _ key: String) -> String? {
    meta[key] ?? (key == "validation" ? "" : nil)
  }

  /// Adds one setting (kept when already present: the study's first value stands).
  public func setMeta(_ key: String, _ value: String) throws(HarnessFailure) {
    do {
      try queue.write { db in try db.execute(sql: "INSERT OR IGNORE INTO study (key, value) VALUES (?, ?)", arguments: [key, value]) }
    } catch { throw .badInput("\(path): cannot write (\(error))") }
  }

  /// The shipped row (``shippedKey``), when the study has one.
  public func shipped() throws(HarnessFailure) -> [String: Double]? {
    guard let text = try meta()[Self.shippedKey] else { return nil }
    guard let o = try? JSONParser.parse(bytes: Array(text.utf8)), let members = o.objectValue?.members else {
      throw .badInput("\(path): \(Self.shippedKey): malformed")
    }
    var out: [String: Double] = [:]
    for m in members { out[m.key] = m.value.doubleValue ?? .nan }
    return out
  }

  /// Objectives as canonical JSON (keys sorted, shortest numbers), as trials store them.
  public static func objectivesJSON(_ objectives: [String: Double]) -> String {
    let objs = JSONObject(objectives.keys.sorted().map { JSONMember($0, .number(objectives[$0]!)) })
    return JSONWriter.write(.object(objs), numbers: .shortest)
  }

  /// Every finished trial, by index.
  public func trials() throws(HarnessFailure) -> [TrialResult] {
    do {
      return try queue.read { db in
        try Row.fetchAll(db, sql: "SELECT idx, params, status, objectives, reason FROM trials ORDER BY idx").map { row in
          try Self.decode(row)
        }
      }
    } catch let e as HarnessFailure { throw e } catch { throw .badInput("\(path): cannot read trials (\(error))") }
  }

  /// Stores finished trials in one transaction.
  public func record(_ results: [TrialResult]) throws(HarnessFailure) {
    do {
      try queue.write { db in
        for r in results {
          let row = Self.encode(r)
          try db.execute(
            sql: "INSERT OR REPLACE INTO trials (idx, params, status, objectives, reason) VALUES (?, ?, ?, ?, ?)",
            arguments: [r.index, row.params, r.status.rawValue, row.objectives, r.reason])
        }
      }
    } catch { throw .badInput("\(path): cannot write trials (\(error))") }
  }

  static func encode(_ r: TrialResult) -> (params: String, objectives: String) {
    (JSONWriter.write(.array(r.values.map(\.json))), objectivesJSON(r.objectives))
  }

  static func decode(_ row: Row) throws -> TrialResult {
    let idx: Int = row["idx"]
    let params: String = row["params"]
    let objectives: String = row["objectives"]
    let statusText: String = row["status"]
    guard let status = TrialStatus(rawValue: statusText),
      let p = try? JSONParser.parse(bytes: Array(params.utf8)), let values = p.arrayValue?.compactMap(TuneValue.init(json:)),
      let o = try? JSONParser.parse(bytes: Array(objectives.utf8)), let members = o.objectValue?.members
    else { throw HarnessFailure.badInput("trial \(idx): malformed row") }
    // Every objective is a count, a rate or a latency: a finite number ≥ 0. Anything else is a
    // damaged row, never a silent null or a negative flicker on the Pareto front.
    var objs: [String: Double] = [:]
    for m in members {
      guard let d = m.value.doubleValue, d.isFinite, d >= 0 else {
        throw HarnessFailure.badInput("trial \(idx): objective \(m.key) is \(JSONWriter.write(m.value).prefix(40)), not a finite number ≥ 0 (a damaged study)")
      }
      objs[m.key] = d
    }
    return TrialResult(index: idx, values: values, status: status, objectives: objs, reason: row["reason"])
  }

  /// `tune merge`: a new study at `output` with the settings of `inputs` (which must agree) and
  /// the union of their trials (a trial in two inputs must be identical in both).
  public static func merge(_ inputs: [String], into output: String) throws(HarnessFailure) -> Int {
    guard !inputs.isEmpty else { throw .badInput("tune merge: no studies given") }
    var meta: [String: String]?
    var byIndex: [Int: (TrialResult, String)] = [:]
    for p in inputs {
      let s = try open(p, create: false)
      let m = try s.meta()
      guard !m.isEmpty else { throw .badInput("\(p): an empty study (no settings)") }
      if var first = meta {
        for k in identityKeys + [shippedKey] where identity(first, k) != identity(m, k) {
          // A shard killed before it stored the shipped row has none; any other carries it.
          if k == shippedKey, first[k] == nil || m[k] == nil {
            first[k] = first[k] ?? m[k]
            continue
          }
          throw .badInput("\(p): \(k) = \(m[k] ?? "(none)") differs from \(inputs[0])'s \(first[k] ?? "(none)"); only shards of one study merge")
        }
        meta = first
      } else {
        meta = m
      }
      for t in try s.trials() {
        if let (other, from) = byIndex[t.index], encode(other) != encode(t) || other.status != t.status {
          throw .badInput("\(p): trial \(t.index) differs from the same trial in \(from)")
        }
        byIndex[t.index] = (t, p)
      }
    }
    guard !FileManager.default.fileExists(atPath: output) else { throw .badInput("\(output): exists (choose another -o)") }
    // Made in a temporary beside OUTPUT and put in place only when complete (issue 23.5): a
    // killed merge leaves no study that reports "0 trials".
    let trials = byIndex.keys.sorted().map { byIndex[$0]!.0 }
    do {
      try SafeFile.produce(output, placement: .createNew, keepOpen: false, sqlite: true) { t in
        let out = try open(t.path, create: true)
        try out.bind(meta!.keys.sorted().map { ($0, meta![$0]!) })
        try out.record(trials)
        try out.queue.close()
      }
    } catch let e as HarnessFailure { throw e } catch let e as SafeFileError { throw .badInput("\(output): cannot write (\(e.message))") } catch {
      throw .badInput("\(output): cannot write (\(error))")
    }
    return byIndex.count
  }
}
