/// The engine options of ENGINE §1.8 by name: the catalogue (``EngineOptions/catalogue``) is
/// built from these cases, and the engine reads an option only through its case
/// (`options[.angleFix]`), so a misspelt or removed option is a compile error. Raw values are
/// the names headers and `--set` use.
public enum EngineOption: String, CaseIterable, Sendable {
  case bodyPointsScope, matchEvalCadence, mirrorMode, missingTargetPolicy, angleFix, useStabilityLayer, t1MaxHz
  case retractPraiseOnInstability, promptGlobalWindowScope, errorSource, strictEffects, bboxRequiresAllListed
  case writeFailReasonStrings, captureFailedText, traceEvaluations, landmarkFilter, oneEuroMinCutoff, oneEuroBeta
  case oneEuroDCutoff, activateFrames, noiseGate, noiseGateRatio, noiseGateMargin, gateReleaseOnExit, gatePersistByCue

  /// The allowed values, default first (a numeric option lists only its default).
  public var values: [String] {
    switch self {
    case .bodyPointsScope: ["perCue", "allJoints"]
    case .matchEvalCadence: ["t0", "t1"]
    case .mirrorMode: ["scalar", "points"]
    case .missingTargetPolicy: ["block", "exclude"]
    case .angleFix: ["off", "on"]
    case .useStabilityLayer: ["false", "true"]
    case .t1MaxHz: ["2"]
    case .retractPraiseOnInstability: ["false", "true"]
    case .promptGlobalWindowScope: ["slot", "all"]
    case .errorSource: ["formulaFirst", "outputsFirst"]
    case .strictEffects: ["true", "false"]
    case .bboxRequiresAllListed: ["false", "true"]
    case .writeFailReasonStrings: ["a10", "c41"]
    case .captureFailedText: ["prd", "code"]
    case .traceEvaluations: ["false", "true"]
    case .landmarkFilter: ["off", "oneEuro"]
    case .oneEuroMinCutoff: ["1"]
    case .oneEuroBeta: ["0"]
    case .oneEuroDCutoff: ["1"]
    case .activateFrames: ["1"]
    case .noiseGate: ["0"]
    case .noiseGateRatio: ["1"]
    case .noiseGateMargin: ["0"]
    case .gateReleaseOnExit: ["false", "true"]
    case .gatePersistByCue: ["false", "true"]
    }
  }
}

extension EngineOptions {
  /// The current value of `option` as text.
  public subscript(_ option: EngineOption) -> String { self[option.rawValue] }
  /// A numeric option's value.
  public func number(_ option: EngineOption) -> Double { number(option.rawValue) }
}
