import CanonicalJSON
import Foundation
import JustPhotoPlugin

/// `tune export --optuna`: a study as Optuna's JournalStorage file (the JSON-lines operation log
/// `optuna.storages.JournalStorage(JournalFileBackend(path))` and `optuna-dashboard` read; op
/// codes of `optuna/storages/journal/_storage.py`, `JournalOperation`). One CREATE_STUDY (every
/// direction minimise), one SET_STUDY_USER_ATTR per study setting, one CREATE_TRIAL per trial in
/// index order carrying its state, values, params (internal representation: a choice's index,
/// a range's number) with their distributions, user attributes (jpreplay's index, status,
/// reason and every objective) and Optuna's `constraints` system attribute (value − max per
/// constraint: ≤ 0 is kept). A conditional parameter inactive in a trial is left out of its
/// params, as Optuna leaves out a parameter a trial never suggested. No clock is read: the
/// file depends only on the study, so two exports are byte-identical.
package enum TuneExport {
  /// Optuna's `JournalOperation` codes used here.
  enum Op {
    static let createStudy = 0
    static let setStudyUserAttr = 2
    static let createTrial = 4
  }

  /// Optuna's `TrialState` and `StudyDirection` values.
  static let complete = 1
  static let fail = 3
  static let minimize = 1
  static let workerID = "jpreplay-tune-export"

  package struct Output: Sendable {
    package var text: String
    package var trials: Int
    package var objectives: [String]
  }

  /// `objectives`: the study's directions (nil: the space's `objectives:`, else its objective).
  package static func optuna(study: TuneStudy, name: String, objectives: [String]?) throws(HarnessFailure) -> Output {
    let meta = try study.meta()
    guard !meta.isEmpty else { throw .badInput("\(study.path): an empty study (no settings)") }
    let space = try TuneSpace.parse(text: meta["space_text"] ?? "", file: meta["space_file"] ?? "space", spec: nil)
    let keys = objectives ?? space.objectives ?? [meta["objective"] ?? "flicker_per_min"]
    for k in keys where !TrialObjectives.keys.contains(k) {
      throw .badInput("--objectives: \(k) is not an objective (\(TrialObjectives.keys.joined(separator: ", ")))")
    }
    var lines: [JSONValue] = []
    func op(_ code: Int, _ fields: [(String, JSONValue)]) -> JSONValue {
      .object(JSONObject([JSONMember("op_code", .number(Double(code))), JSONMember("worker_id", .string(workerID))] + fields.map { JSONMember($0.0, $0.1) }))
    }
    lines.append(op(Op.createStudy, [("study_name", .string(name)), ("directions", .array(keys.map { _ in .number(Double(minimize)) }))]))
    var attrs: [(String, JSONValue)] = [("objectives", .array(keys.map { .string($0) }))]
    for k in ["format", "space_file", "sampler", "seed", "trials", "objective", "tpe_batch", "constraints", "spec_sha256", "corpus", "validation", "generalise"] {
      if let v = meta[k] { attrs.append((k, .string(v))) }
    }
    if let shipped = try study.shipped() {
      attrs.append(("shipped_objectives", .object(JSONObject(shipped.keys.sorted().map { JSONMember($0, .number(shipped[$0]!)) }))))
    }
    for (k, v) in attrs { lines.append(op(Op.setStudyUserAttr, [("study_id", .number(0)), ("user_attr", .object(JSONObject([JSONMember(k, v)])))])) }

    let distributions = space.parameters.map { distribution($0.domain) }
    let trials = try study.trials()
    for t in trials {
      guard t.values.count == space.parameters.count else {
        throw .badInput("\(study.path): trial \(t.index) has \(t.values.count) values, the space \(space.parameters.count) parameters")
      }
      var params: [JSONMember] = []
      var dists: [JSONMember] = []
      for (p, (parameter, v)) in zip(space.parameters, t.values).enumerated() where v != .inactive {
        switch parameter.domain {
        case .choices(let c):
          guard let k = c.firstIndex(of: v) else {
            throw .badInput("\(study.path): trial \(t.index): \(parameter.path) = \(v) is not one of the space's values")
          }
          params.append(JSONMember(parameter.path, .number(Double(k))))
        case .range:
          guard case .number(let d) = v else { throw .badInput("\(study.path): trial \(t.index): \(parameter.path) = \(v) is not a number") }
          params.append(JSONMember(parameter.path, .number(d)))
        }
        dists.append(JSONMember(parameter.path, .string(distributions[p])))
      }
      let values = keys.compactMap { t.objectives[$0] }
      let complete = values.count == keys.count && t.status != .failed
      var user: [JSONMember] = [
        JSONMember("jpreplay_trial", .number(Double(t.index))), JSONMember("jpreplay_status", .string(t.status.rawValue)),
      ]
      if let r = t.reason { user.append(JSONMember("reason", .string(r))) }
      for k in t.objectives.keys.sorted() { user.append(JSONMember("objective." + k, .number(t.objectives[k]!))) }
      var system: [JSONMember] = []
      let excess = space.constraints.compactMap { c in t.objectives[c.name].map { $0 - c.max } }
      if complete, excess.count == space.constraints.count, !excess.isEmpty {
        system.append(JSONMember("constraints", .array(excess.map { .number($0) })))
      }
      lines.append(
        op(
          Op.createTrial,
          [
            ("study_id", .number(0)), ("datetime_start", .null), ("state", .number(Double(complete ? Self.complete : fail))),
            ("value", .null), ("values", complete ? .array(values.map { .number($0) }) : .null),
            ("distributions", .object(JSONObject(dists))), ("params", .object(JSONObject(params))),
            ("user_attrs", .object(JSONObject(user))), ("system_attrs", .object(JSONObject(system))),
            ("intermediate_values", .object(JSONObject())),
          ]))
    }
    let text = lines.map { JSONWriter.write($0, numbers: .shortest) + "\n" }.joined()
    return Output(text: text, trials: trials.count, objectives: keys)
  }

  /// Optuna's `distribution_to_json`: a JSON text inside the log's JSON.
  static func distribution(_ d: TuneDomain) -> String {
    switch d {
    case .choices(let c):
      return JSONWriter.write(
        .object(["name": .string("CategoricalDistribution"), "attributes": .object(["choices": .array(c.map(\.json))])]), numbers: .shortest)
    case .range(let lo, let hi, _):
      return JSONWriter.write(
        .object([
          "name": .string("FloatDistribution"),
          "attributes": .object(["low": .number(lo), "high": .number(hi), "step": .null, "log": .bool(false)]),
        ]), numbers: .shortest)
    }
  }
}
