/// Why a PoseSpec was rejected: one of the nine failures of ENGINE §2.3, with the modal the
/// app would show and a message for the command line.
public struct PoseSpecValidationError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The failure, named as the app's error case (`PoseSpecLoaderError` /
  /// `PoseSpecValidationError`), in the order the checks run.
  public enum Kind: String, Sendable, CaseIterable {
    case missingResource, invalidJSON, invalidConfidenceRange, missingRequiredKeys
    case prdVersionMismatch, bindingMissingAliases, bindingBodyPointsSetMismatch
    case roisMissing, roisBadDefinition
    /// [D] not one of the app's nine: a formula or threshold `error` that does not compile
    /// (unknown function, alias, ROI, type error). The app interprets formulas by hand and
    /// has no such check; we fail like `roisBadDefinition` (invalid modal) and name the cue
    /// and the token.
    case formulaInvalid
    /// [D] not one of the app's nine: a value that decodes but that the engine cannot evaluate
    /// as written — a duplicated cue id, a threshold level with no usable threshold (`{}`,
    /// `{">": "abc"}`, `{"between": [1, 2, 3]}`), `updateHz` out of range, a `praisePolicy`
    /// field of the wrong type or range, a frozen card with no text, more cues than
    /// `PoseSpecLimits.cuesMax`. The app skips or defaults such values silently; we fail like
    /// `formulaInvalid` (invalid modal), naming the cue and the key (`PoseSpecRules`).
    case valueInvalid
  }

  public var kind: Kind
  /// The display name of the file (as given to the loader).
  public var fileName: String
  /// Missing keys, aliases or ROIs, in check order (empty for other kinds).
  public var missing: [String]
  /// `prdVersionMismatch` only.
  public var expected: String?
  public var actual: String?
  /// `roisBadDefinition`: what is wrong, e.g. "rois.faceROI.paddingPctOfBBox out of range [0,1]";
  /// `valueInvalid`: the cue and the key, e.g. "FRAME_MOVE_LEFT trigger.noRef.warn" (the
  /// full place and problem are in `location`).
  public var definitionProblem: String?
  /// `formulaInvalid`: the compiler's error (cue, text, column, token).
  public var formula: FormulaCompileError? { formulaBox?.error }
  /// Boxed, so the error every loader call may throw stays small.
  var formulaBox: FormulaErrorBox?
  /// `invalidJSON` only: where the document broke, e.g. "line 3, column 7: expected ':' …"
  /// or "cues[3].antiJitter.persistFrames: missing key". Not part of the modal text.
  public var location: String?

  public init(
    kind: Kind, fileName: String, missing: [String] = [], expected: String? = nil, actual: String? = nil,
    definitionProblem: String? = nil, location: String? = nil, formula: FormulaCompileError? = nil
  ) {
    self.kind = kind
    self.fileName = fileName
    self.missing = missing
    self.expected = expected
    self.actual = actual
    self.definitionProblem = definitionProblem
    self.location = location
    self.formulaBox = formula.map(FormulaErrorBox.init)
  }

  /// Failure 1: the file is absent (the loader works on bytes; callers that read files
  /// report a missing file with this).
  public static func missingResource(fileName: String) -> PoseSpecValidationError {
    PoseSpecValidationError(kind: .missingResource, fileName: fileName)
  }

  /// The app's `errorDescription` of the failure, e.g. "PoseSpec missing required keys:
  /// binding". It is the `{error description}` inside the invalid-modal message.
  public var reason: String {
    switch kind {
    case .missingResource: "PoseSpec.json not found in app bundle"
    case .invalidJSON: "PoseSpec.json is not valid / decodable"
    case .invalidConfidenceRange: "PoseSpec confidence values must be finite and in [0,1]"
    case .missingRequiredKeys: "PoseSpec missing required keys: \(missing.joined(separator: ", "))"
    case .prdVersionMismatch: "PoseSpec prdVersion mismatch: expected=\(expected ?? "") actual=\(actual ?? "")"
    case .bindingMissingAliases: "PoseSpec binding.aliases missing: \(missing.joined(separator: ", "))"
    case .bindingBodyPointsSetMismatch: "PoseSpec binding.sets.bodyPoints definition mismatch"
    case .roisMissing: "PoseSpec rois missing: \(missing.joined(separator: ", "))"
    case .roisBadDefinition: "PoseSpec rois invalid: \(definitionProblem ?? "")"
    case .formulaInvalid:
      "PoseSpec formula invalid: \(formula.map { $0.cueIndex < 0 ? $0.place : $0.cueId } ?? "") \(formula?.token.map { "'\($0)'" } ?? "")"
    case .valueInvalid: "PoseSpec value invalid: \(definitionProblem ?? "")"
    }
  }

  /// The modal of §2.3 (key, titles, messages, payload; shared constants on `PoseSpecPrompt`).
  public var prompt: PoseSpecPrompt { PoseSpecPrompt.make(for: self) }
  public var promptKey: String { prompt.key }
  public var titleZh: String { prompt.titleZh }
  public var titleEn: String { prompt.titleEn }
  public var messageZh: String { prompt.messageZh }
  public var messageEn: String { prompt.messageEn }
  public var payload: [(key: String, value: String)] { prompt.payload }

  /// A command-line message: the file, the failure and where, then the modal the app shows.
  ///
  ///     PoseSpec.json: invalidJSON (line 3, column 7: expected ':' …) — PoseSpec.json is not valid / decodable
  ///       prompt posespec_invalid_modal (L3, priority 99): PoseSpec 不完整 / PoseSpec incomplete
  ///       PoseSpec 不完整，无法继续。
  ///       …
  public var description: String {
    let p = prompt
    var lines = ["\(fileName): \(kind.rawValue)\(location.map { " (\($0))" } ?? "") — \(reason)"]
    lines.append(
      "  prompt \(p.key) (\(PoseSpecPrompt.level), priority \(PoseSpecPrompt.priority)): \(p.titleZh) / \(p.titleEn)")
    for text in [p.messageZh, p.messageEn] {
      for line in text.split(separator: "\n", omittingEmptySubsequences: true) { lines.append("    " + line) }
    }
    if !p.payload.isEmpty {
      lines.append("  payload " + p.payload.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
    }
    return lines.joined(separator: "\n")
  }
}

/// An immutable reference to a `FormulaCompileError` (see `PoseSpecValidationError.formulaBox`).
final class FormulaErrorBox: Equatable, Sendable {
  let error: FormulaCompileError
  init(_ error: FormulaCompileError) { self.error = error }
  static func == (a: FormulaErrorBox, b: FormulaErrorBox) -> Bool { a.error == b.error }
}
