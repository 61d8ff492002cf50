import EngineIO
import JustPhotoIO

/// The engine options (ENGINE §1.8) parsed once, at `Engine.init`, into typed values: no
/// evaluation, tick or app event reads an option by name.
public struct EngineSettings: Equatable, Sendable {
  /// `matchEvalCadence`: the MatchDecider runs per T0 result (default) or on T1 ticks ([C], G-13).
  public enum MatchEvalCadence: String, Sendable { case t0, t1 }
  /// `captureFailedText`: the PRD sentence (default) or the [C] code in `capture_failed_toast`.
  public enum CaptureFailedText: String, Sendable { case prd, code }

  public var matchEvalCadence: MatchEvalCadence
  /// `mirrorMode`, `missingTargetPolicy`.
  public var match: MatchOptions
  /// `promptGlobalWindowScope`, `writeFailReasonStrings`.
  public var prompts: PromptCenter.Options
  /// `retractPraiseOnInstability=true`: a newly displayed cue during a praise freeze takes it back.
  public var retractPraiseOnInstability: Bool
  /// `useStabilityLayer=true` (§3.8).
  public var useStabilityLayer: Bool
  /// `traceEvaluations=true`: `eval` lines.
  public var traceEvaluations: Bool
  public var t1MaxHz: Int
  /// `activateFrames` (§3.5, G-56): consecutive activating evaluations before a cue turns active.
  public var activateFrames: Int
  /// `noiseGate` and `noiseGateRatio` (§3.4.7, G-57): frame-to-frame changes weighed (0 = off)
  /// and the multiple of a cue's hysteresis band they may reach.
  public var noiseGate: Int
  public var noiseGateRatio: Double
  /// `noiseGateMargin`: median changes an inactive cue's error must be past its activating threshold.
  public var noiseGateMargin: Double
  /// `gateReleaseOnExit=true` (§3.9, G-58): the shown cue's minimum hold ends when it crosses its exit.
  public var gateReleaseOnExit: Bool
  /// `gatePersistByCue=true` (§3.9, G-58): a switch to another cue counts its frames at any level.
  public var gatePersistByCue: Bool
  /// `errorSource=formulaFirst` (default) vs `outputsFirst` (§2.9).
  public var errorSourceFormulaFirst: Bool
  public var captureFailedText: CaptureFailedText
  /// `bodyPointsScope`, `bboxRequiresAllListed`, `angleFix`.
  var metric: MetricOptions
  /// `landmarkFilter=oneEuro` with `oneEuroMinCutoff`, `oneEuroBeta`, `oneEuroDCutoff`; nil for
  /// `off` (the default).
  let landmarkFilter: OneEuroParameters?

  public init(_ options: EngineOptions) {
    matchEvalCadence = MatchEvalCadence(rawValue: options[.matchEvalCadence]) ?? .t0
    match = MatchOptions(options)
    prompts = PromptCenter.Options(options)
    retractPraiseOnInstability = options[.retractPraiseOnInstability] == "true"
    useStabilityLayer = options.useStabilityLayer
    traceEvaluations = options.traceEvaluations
    t1MaxHz = options.t1MaxHz
    activateFrames = options.activateFrames
    noiseGate = options.noiseGate
    noiseGateRatio = options.noiseGateRatio
    noiseGateMargin = options.noiseGateMargin
    gateReleaseOnExit = options[.gateReleaseOnExit] == "true"
    gatePersistByCue = options[.gatePersistByCue] == "true"
    errorSourceFormulaFirst = options.errorSourceFormulaFirst
    captureFailedText = CaptureFailedText(rawValue: options[.captureFailedText]) ?? .prd
    metric = MetricOptions(options)
    landmarkFilter = OneEuroParameters(options)
  }

  /// `writeFailReasonStrings=c41` (§4.8, G-24).
  public var writeFailStringsC41: Bool { prompts.writeFailStrings == .c41 }
  /// `mirrorMode=points` (§3.13f [P]).
  public var mirrorPoints: Bool { match.mirrorMode == .points }
}
