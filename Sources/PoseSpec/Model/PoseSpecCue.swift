import CanonicalJSON

/// One cue of the PoseSpec (`cues[]`, ENGINE §2.2), in the order of the file.
///
/// Fields the engine reads are typed; the whole object is kept in `raw` (direction, overlay,
/// qa and any future key).
public struct PoseSpecCue: Equatable, Sendable {
  /// Position in `cues[]` (0-based): the spec order every iteration follows.
  public var index: Int
  public var id: String
  /// `base`, `cafe` or `outdoor`.
  public var scene: String
  public var priority: Int
  public var mutexGroup: String
  public var metric: CueMetric
  public var trigger: CueTrigger
  public var script: CueScript
  public var confidence: CueConfidence
  public var antiJitter: AntiJitterParameters
  /// The cue object as written.
  public var raw: JSONValue

  /// The formula as text. A later expression compiler adds its compiled form next to it.
  public var formula: CueFormula { metric.formula }

  /// The noRef error expression and its source (ENGINE §3.2): explicit `trigger.noRef.error`
  /// → `error =` in the formula → the single `metric.outputs` → the last assigned variable
  /// (`formulaFirst`, the default); `outputsFirst` swaps the middle two. nil when the cue has
  /// no noRef trigger or no source applies.
  public func noRefError(formulaFirst: Bool = true) -> (expression: String, source: ErrorSource)? {
    guard let noRef = trigger.noRef else { return nil }
    if let e = noRef.error?.trimmingSpaces, !e.isEmpty { return (e, .explicit) }
    let fromFormula = formula.errorExpression.map { ($0, ErrorSource.formula) }
    let fromOutputs: (String, ErrorSource)? =
      if let outs = metric.outputs, outs.count == 1 { (outs[0], .outputs) } else { nil }
    let ordered = formulaFirst ? [fromFormula, fromOutputs] : [fromOutputs, fromFormula]
    if let first = ordered.compactMap({ $0 }).first { return first }
    return formula.lastAssignedName.map { ($0, .lastVariable) }
  }
}

/// `metric` of a cue.
public struct CueMetric: Equatable, Sendable {
  /// Canonical inputs in spec order (`body.leftShoulder`, `face.faceBBox`, `frame.luma`, …).
  public var landmarks: [String]
  public var formula: CueFormula
  /// `T0`, `T1` or `fallback`.
  public var computeTier: String
  public var updateHz: Double
  /// `metric.outputs` when present (16 cues of PS).
  public var outputs: [String]?
  /// `metric.requires` (pose, face, frame, motion, ref); empty when absent.
  public var requires: [String]
  /// `metric.roisUsed` when present.
  public var roisUsed: [String]?

  public init(
    landmarks: [String], formula: String, computeTier: String, updateHz: Double,
    outputs: [String]? = nil, requires: [String] = [], roisUsed: [String]? = nil
  ) {
    self.landmarks = landmarks
    self.formula = CueFormula(formula)
    self.computeTier = computeTier
    self.updateHz = updateHz
    self.outputs = outputs
    self.requires = requires
    self.roisUsed = roisUsed
  }
}

/// `trigger` of a cue. `null` and absent threshold objects are both nil.
public struct CueTrigger: Equatable, Sendable {
  public var noRef: ThresholdSet?
  public var withRef: ThresholdSet?
  /// `trigger.system` (FRAME_GENERAL only), kept as written.
  public var system: JSONValue?
  public init(noRef: ThresholdSet? = nil, withRef: ThresholdSet? = nil, system: JSONValue? = nil) {
    self.noRef = noRef
    self.withRef = withRef
    self.system = system
  }
}

/// `script` of a cue: the variants shown on the director card (ENGINE §3.10).
public struct CueScript: Equatable, Sendable {
  public var zh: [String]
  public var en: [String]
  public init(zh: [String], en: [String]) {
    self.zh = zh
    self.en = en
  }
}

/// `confidence` of a cue (ENGINE §3.4).
public struct CueConfidence: Equatable, Sendable {
  public var minConfidence: Double
  public var fallbackCueId: String
  public init(minConfidence: Double, fallbackCueId: String) {
    self.minConfidence = minConfidence
    self.fallbackCueId = fallbackCueId
  }
}

/// `antiJitter` of a cue or of `defaults` (ENGINE §3.9).
public struct AntiJitterParameters: Equatable, Sendable {
  public var persistFrames: Int
  public var minHoldMs: Int
  public var cooldownMs: Int
  public init(persistFrames: Int, minHoldMs: Int, cooldownMs: Int) {
    self.persistFrames = persistFrames
    self.minHoldMs = minHoldMs
    self.cooldownMs = cooldownMs
  }
}
