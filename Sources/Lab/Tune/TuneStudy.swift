import CanonicalJSON
import Foundation
import GRDB
import JustPhotoPlugin
import PoseSpec
import Recording

/// A study on disk: one SQLite file (GRDB) per machine. `study` holds what makes trials
/// comparable (space text, sampler, seed, trial count, spec and corpus, the SHA-256 of each
/// recording the trials ran); `trials` holds one row per finished trial. Rows are written in
/// index order, a transaction per chunk, so a kill -9 loses at most the chunk in flight and a
/// rerun continues from the rows present.
///
/// A study is as safe as a golden (issue 34.6):
/// - it is marked: SQLite's `application_id` is ``applicationID`` (a study made before the
///   mark existed, with exactly the tables `study` and `trials` and `application_id` 0, is
///   read as one); any other file — another program's database, an empty file, a text file —
///   is refused by name and never written to;
/// - the output rule of every writer holds: a symbolic link, a directory or a device at the
///   study's path is refused; a new study is made complete (tables, settings, the shipped row)
///   in a temporary beside it and only then put at its path, so no failure leaves an empty or
///   half-made study;
/// - a run holds an advisory lock (``StudyLock``) for as long as it writes: a second run on the
///   same study is refused naming the first one's pid, never a second writer of the same trials;
/// - SQLite's BUSY, FULL, READONLY and I/O errors are named as such (``reason(_:)``).
package final class TuneStudy {
  package static let format = "jpreplay-tune/1"
  /// SQLite's `application_id` of a study ("JPTU"): what tells a study from any other database.
  package static let applicationID: Int32 = 0x4A50_5455
  /// SQLite's `user_version` of a study: the schema (tables `study` and `trials`).
  package static let schemaVersion: Int32 = 1
  /// Keys that must agree for a rerun to continue a study, or for two studies to merge.
  /// (`validation`, the validation recordings' names, is absent from studies made before it
  /// existed: read as none; `draws`, the detector draws per recording (``SeedDraws``), and
  /// `seed_derivation`, how their seeds are derived, likewise: read as 1 and the present one.)
  package static let identityKeys = [
    "format", "space_sha256", "sampler", "seed", "trials", "objective", "tpe_batch", "constraints", "spec_sha256", "corpus", "validation",
    "draws", "seed_derivation",
  ]
  /// The shipped spec's objectives (fit, and `val.KEY` on the validation corpus), canonical
  /// JSON, stored once when the study starts.
  package static let shippedKey = "shipped_objectives"
  /// The SHA-256 of every file the trials read besides the spec (each fit and validation
  /// recording, and its scenario when there is one): one `FILE SHA` line each, sorted. A run
  /// over a file whose bytes changed is refused naming it (``checkRecordings(_:_:adopt:)``).
  package static let recordingsKey = "recordings_sha256"

  package let path: String
  let queue: DatabaseQueue
  /// Held while this object writes the study (nil for a read-only study or a private temporary).
  let lock: StudyLock?
  /// A study made before ``applicationID`` existed (application_id 0); marked when adopted.
  let legacy: Bool

  init(path: String, queue: DatabaseQueue, lock: StudyLock? = nil, legacy: Bool = false) {
    self.path = path
    self.queue = queue
    self.lock = lock
    self.legacy = legacy
  }

  deinit {
    // The database first: closing the lock's descriptor releases every POSIX lock this process
    // holds on the file, SQLite's included.
    try? queue.close()
    lock?.release()
  }

  /// The study's settings by key.
  package func meta() throws(HarnessFailure) -> [String: String] {
    do {
      return try queue.read { db in
        var out: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT key, value FROM study") { out[row["key"]] = row["value"] }
        return out
      }
    } catch { throw .badInput("\(path): cannot read the study (\(Self.reason(error)))") }
  }

  /// Records `meta` in a new study, or checks that an existing study was made with the same
  /// settings (a rerun must not mix trials of two different studies) and over the same
  /// recordings (``checkRecordings(_:_:adopt:)``).
  package func bind(_ settings: [(String, String)], adopt: Bool = false) throws(HarnessFailure) {
    let old = try meta()
    if old.isEmpty {
      do {
        try queue.write { db in
          for (k, v) in settings { try db.execute(sql: "INSERT INTO study (key, value) VALUES (?, ?)", arguments: [k, v]) }
        }
      } catch { throw .badInput("\(path): cannot write (\(Self.reason(error)))") }
      try mark()
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
    try checkRecordings(old, settings, adopt: adopt)
  }

  /// `tune run --extend`: raises an existing study's trial count to the one in `settings`,
  /// every other identity setting unchanged. Trial i's values depend only on the seed and i
  /// (TPE: and on the batches before i's), never on the trial count, so trials 1…N of an
  /// extended study are those of a study run with its final count from the start; the run then
  /// adds the new indices as a resumed run adds missing ones. Returns the count before. The
  /// extensions are kept in the study (`extended`: "200 → 250", one line each).
  @discardableResult
  package func extend(_ settings: [(String, String)], adopt: Bool = false) throws(HarnessFailure) -> Int {
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
    try checkRecordings(old, settings, adopt: adopt)
    let history = old["extended"].map { $0 + "\n" } ?? ""
    do {
      try queue.write { db in
        try db.execute(sql: "UPDATE study SET value = ? WHERE key = 'trials'", arguments: [String(after)])
        try db.execute(
          sql: "INSERT OR REPLACE INTO study (key, value) VALUES ('extended', ?)", arguments: [history + "\(before) → \(after)"])
      }
    } catch { throw .badInput("\(path): cannot write (\(Self.reason(error)))") }
    return before
  }

  /// The run's files (``recordingsKey`` in `settings`) must be those the study's trials ran:
  /// a file whose SHA-256 differs is refused naming it (trials of two versions of a recording
  /// must never mix on one front). A study made before the hashes existed holds none: it is
  /// refused with the way out — `adopt` (`tune run --adopt-recordings`) stores the present
  /// files' hashes and marks the study, for a user who knows they are the ones its trials ran.
  func checkRecordings(_ old: [String: String], _ settings: [(String, String)], adopt: Bool) throws(HarnessFailure) {
    guard let now = settings.first(where: { $0.0 == Self.recordingsKey })?.1 else { return }
    guard let then = old[Self.recordingsKey] else {
      guard adopt else {
        throw .badInput(
          "\(path): this study holds no recording hashes (made by an older jpreplay), so a recording changed since its trials ran cannot be told; if the recordings are those its trials ran, rerun with --adopt-recordings to store their hashes and continue, else give another --study to start a new study")
      }
      try setMeta(Self.recordingsKey, now)
      try mark()
      return
    }
    let before = Self.hashes(then)
    for (file, sha) in Self.hashes(now).sorted(by: { $0.key < $1.key }) where before[file] != sha {
      let was = before[file].map { String($0.prefix(12)) + "…" } ?? "absent"
      throw .badInput(
        "\(path): recording file \(file) changed since the study's trials ran (SHA-256 \(was) then, \(sha.prefix(12))… now): trials over two versions of a recording cannot be mixed; restore the file, or give another --study to start a new study")
    }
    for file in before.keys.sorted() where Self.hashes(now)[file] == nil {
      throw .badInput(
        "\(path): recording file \(file), which the study's trials read, is gone; restore it, or give another --study to start a new study")
    }
  }

  /// ``recordingsKey``'s text as file → SHA-256.
  static func hashes(_ text: String) -> [String: String] {
    var out: [String: String] = [:]
    for line in text.split(separator: "\n") {
      guard let space = line.lastIndex(of: " ") else { continue }
      out[String(line[..<space])] = String(line[line.index(after: space)...])
    }
    return out
  }

  /// Gives a study made before the mark existed its ``applicationID`` and ``schemaVersion``.
  func mark() throws(HarnessFailure) {
    do {
      try queue.write { db in
        guard try Int32.fetchOne(db, sql: "PRAGMA application_id") == 0 else { return }
        try db.execute(sql: "PRAGMA application_id = \(Self.applicationID)")
        try db.execute(sql: "PRAGMA user_version = \(Self.schemaVersion)")
      }
    } catch { throw .badInput("\(path): cannot write (\(Self.reason(error)))") }
  }

  /// Setting `key` of a study; a key added to the identity later reads as empty when absent.
  static func identity(_ meta: [String: String], _ key: String) -> String? {
    if let v = meta[key] { return v }
    switch key {
    case "validation": return ""
    case "draws": return "1"
    case "seed_derivation": return SeedDraws.derivation
    default: return nil
    }
  }

  /// Adds one setting (kept when already present: the study's first value stands).
  package func setMeta(_ key: String, _ value: String) throws(HarnessFailure) {
    do {
      try queue.write { db in try db.execute(sql: "INSERT OR IGNORE INTO study (key, value) VALUES (?, ?)", arguments: [key, value]) }
    } catch { throw .badInput("\(path): cannot write (\(Self.reason(error)))") }
  }

  /// The shipped row (``shippedKey``), when the study has one.
  package func shipped() throws(HarnessFailure) -> [String: Double]? {
    guard let text = try meta()[Self.shippedKey] else { return nil }
    guard let o = try? JSONParser.parse(bytes: Array(text.utf8)), let members = o.objectValue?.members else {
      throw .badInput("\(path): \(Self.shippedKey): malformed")
    }
    var out: [String: Double] = [:]
    for m in members { out[m.key] = m.value.doubleValue ?? .nan }
    return out
  }

  /// Objectives as canonical JSON (keys sorted, shortest numbers), as trials store them.
  package static func objectivesJSON(_ objectives: [String: Double]) -> String {
    let objs = JSONObject(objectives.keys.sorted().map { JSONMember($0, .number(objectives[$0]!)) })
    return JSONWriter.write(.object(objs), numbers: .shortest)
  }

  /// Every finished trial, by index.
  package func trials() throws(HarnessFailure) -> [TrialResult] {
    do {
      return try queue.read { db in
        try Row.fetchAll(db, sql: "SELECT idx, params, status, objectives, reason FROM trials ORDER BY idx").map { row in
          try Self.decode(row)
        }
      }
    } catch let e as HarnessFailure { throw e } catch { throw .badInput("\(path): cannot read trials (\(Self.reason(error)))") }
  }

  /// Stores finished trials in one transaction.
  package func record(_ results: [TrialResult]) throws(HarnessFailure) {
    do {
      try queue.write { db in
        for r in results {
          let row = Self.encode(r)
          try db.execute(
            sql: "INSERT OR REPLACE INTO trials (idx, params, status, objectives, reason) VALUES (?, ?, ?, ?, ?)",
            arguments: [r.index, row.params, r.status.rawValue, row.objectives, r.reason])
        }
      }
    } catch { throw .badInput("\(path): cannot write trials (\(Self.reason(error)))") }
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
  package static func merge(_ inputs: [String], into output: String) throws(HarnessFailure) -> Int {
    guard !inputs.isEmpty else { throw .badInput("tune merge: no studies given") }
    var meta: [String: String]?
    var byIndex: [Int: (TrialResult, String)] = [:]
    for p in inputs {
      let s = try open(p, create: false)
      let m = try s.meta()
      guard !m.isEmpty else { throw .badInput("\(p): an empty study (no settings)") }
      if var first = meta {
        for k in identityKeys + [shippedKey, recordingsKey] where identity(first, k) != identity(m, k) {
          // A shard killed before it stored the shipped row has none; any other carries it.
          if k == shippedKey, first[k] == nil || m[k] == nil {
            first[k] = first[k] ?? m[k]
            continue
          }
          if k == recordingsKey {
            guard let a = first[k], let b = m[k] else {
              throw .badInput(
                "\(first[k] == nil ? inputs[0] : p): holds no recording hashes (made by an older jpreplay) and \(first[k] == nil ? p : inputs[0]) does; rerun the older shard once with tune run --adopt-recordings to give it its recordings' hashes, then merge")
            }
            let (x, y) = (hashes(a), hashes(b))
            let file = Set(x.keys).union(y.keys).sorted().first { x[$0] != y[$0] } ?? "?"
            throw .badInput("\(p): recording file \(file) differs from the one \(inputs[0])'s trials ran (SHA-256); only shards of one study, over the same recordings, merge")
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
        let out = try make(at: t.path, named: output)
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
