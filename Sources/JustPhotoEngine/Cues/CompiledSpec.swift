import EngineIO
import PoseSpec

/// A PoseSpec compiled for the engine (ENGINE §2.9): one immutable plan per cue, the id → index
/// lookup and the ROI coefficients. Built once and shared by every engine that replays the same
/// spec (`Engine(configuration:compiled:)`, e.g. all recordings of one `tune` trial, on any
/// thread): compiling every formula again per replay was a third of a trial's time (issue 15).
public struct CompiledSpec: Sendable {
  let plans: [CuePlan]
  let planIndex: [String: Int]
  let roiCoefficients: ROICoefficients
  /// The `errorSource=formulaFirst` option it was compiled for.
  public let formulaFirst: Bool
  /// A fresh MatchDecider per UI scene of the catalogue (§3.13d): an engine starts from a copy
  /// (building one per replay was ~3 % of a tune trial).
  let deciders: [String: MatchDecider]

  public init(spec: PoseSpecDocument, errorSourceFormulaFirst: Bool) {
    (plans, planIndex) = Engine.plans(for: spec, formulaFirst: errorSourceFormulaFirst)
    roiCoefficients = ROICoefficients(spec)
    formulaFirst = errorSourceFormulaFirst
    var deciders: [String: MatchDecider] = [:]
    for scene in spec.sceneCatalog.uiScenes where deciders[scene] == nil {
      deciders[scene] = MatchDecider(spec: spec, scene: scene)
    }
    self.deciders = deciders
  }
}

extension Engine {
  /// One plan per cue (compiled formulas, ENGINE §2.9) and the id → index lookup.
  static func plans(for spec: PoseSpecDocument, settings: EngineSettings) -> ([CuePlan], [String: Int]) {
    plans(for: spec, formulaFirst: settings.errorSourceFormulaFirst)
  }

  static func plans(for spec: PoseSpecDocument, formulaFirst: Bool) -> ([CuePlan], [String: Int]) {
    var compileError: String?
    var program: SpecProgram?
    do { program = try PoseSpecCompiler.compile(spec, formulaFirst: formulaFirst) } catch {
      compileError = "\(error)"
    }
    // Cues whose compiled formula, errors, landmarks and confidence gate are identical
    // (FRAME_MOVE_LEFT/RIGHT, UP/DOWN, DIST_*, SHOULDER_LEVEL_*, CHIN_*) observe the same value
    // on a frame: they share one evaluation slot (the first such cue's index).
    var slots: [Int] = []
    for cue in spec.cues {
      let mine = program?.cues[cue.index]
      let twin = spec.cues[..<cue.index].first { other in
        guard let mine, let theirs = program?.cues[other.index] else { return false }
        return mine.assignments == theirs.assignments && mine.noRefError?.expression == theirs.noRefError?.expression
          && mine.withRefError?.expression == theirs.withRefError?.expression
          && other.metric.landmarks == cue.metric.landmarks
          && other.confidence.minConfidence == cue.confidence.minConfidence
          && other.metric.computeTier == cue.metric.computeTier
      }
      slots.append(twin.map { slots[$0.index] } ?? cue.index)
    }
    // §3.7's last tie-breakers, (mutexGroup, id) in byte order, as one dense rank per cue.
    func before(_ a: PoseSpecCue, _ b: PoseSpecCue) -> Bool {
      if a.mutexGroup != b.mutexGroup { return a.mutexGroup.utf8.lexicographicallyPrecedes(b.mutexGroup.utf8) }
      return a.id.utf8.lexicographicallyPrecedes(b.id.utf8)
    }
    var tieRank = Array(repeating: 0, count: spec.cues.count)
    var rank = -1
    var previous: PoseSpecCue? = nil
    for cue in spec.cues.sorted(by: before) {
      if previous.map({ before($0, cue) }) ?? true { rank += 1 }
      tieRank[cue.index] = rank
      previous = cue
    }
    var slotUsers: [Int: Int] = [:]
    for s in slots { slotUsers[s, default: 0] += 1 }
    let plans = spec.cues.map { cue in
      CuePlan(
        cue, program: program?.cues[cue.index], compileError: compileError, evaluationSlot: slots[cue.index],
        sharesSlot: slotUsers[slots[cue.index], default: 0] > 1, tieRank: tieRank[cue.index])
    }
    var index: [String: Int] = [:]
    for p in plans where index[p.id] == nil { index[p.id] = p.index }
    return (plans, index)
  }
}
