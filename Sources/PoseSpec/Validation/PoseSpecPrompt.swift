/// The L3 modal the app shows when a PoseSpec fails validation (ENGINE §2.3).
///
/// All PoseSpec modals share level L3, surface cameraModalCenter, priority 99, blocksShutter,
/// gate stateOnly, not closable, and one action `retry` ("重试") that re-runs the validation.
/// Only key, texts and payload differ.
public struct PoseSpecPrompt: Equatable, Sendable {
  public static let level = "L3"
  public static let surface = "cameraModalCenter"
  public static let priority = 99
  public static let blocksShutter = true
  public static let isClosable = false
  public static let gate = "stateOnly"
  public static let primaryActionId = "retry"
  public static let primaryTitleZh = "重试"
  public static let primaryTitleEn = "Retry"

  /// The keys of §2.3, in table order.
  public static let invalidKey = "posespec_invalid_modal"
  public static let versionMismatchKey = "posespec_version_mismatch_modal"
  public static let bindingMissingKey = "posespec_binding_missing_modal"
  public static let roisMissingKey = "posespec_rois_missing_modal"

  public var key: String
  public var titleZh: String
  public var titleEn: String
  public var messageZh: String
  public var messageEn: String
  /// The prompt payload, string values in order (`expected`/`actual`, or `missing`).
  public var payload: [(key: String, value: String)]

  public init(
    key: String, titleZh: String, titleEn: String, messageZh: String, messageEn: String,
    payload: [(key: String, value: String)] = []
  ) {
    self.key = key
    self.titleZh = titleZh
    self.titleEn = titleEn
    self.messageZh = messageZh
    self.messageEn = messageEn
    self.payload = payload
  }

  public static func == (a: PoseSpecPrompt, b: PoseSpecPrompt) -> Bool {
    a.key == b.key && a.titleZh == b.titleZh && a.titleEn == b.titleEn && a.messageZh == b.messageZh
      && a.messageEn == b.messageEn && a.payload.map(\.key) == b.payload.map(\.key)
      && a.payload.map(\.value) == b.payload.map(\.value)
  }

  /// The prompt for `error` (`makePoseSpecInvalidPrompt` in `FEAT/Camera/CameraScreen.swift`).
  static func make(for error: PoseSpecValidationError) -> PoseSpecPrompt {
    let expectedPrd = PoseSpecDocument.supportedPrdVersion
    switch error.kind {
    case .prdVersionMismatch:
      let e = error.expected ?? expectedPrd
      let a = error.actual ?? ""
      return PoseSpecPrompt(
        key: versionMismatchKey, titleZh: "版本不一致", titleEn: "Version mismatch",
        messageZh: "PoseSpec 版本与 PRD 不一致，无法继续。\n\nexpected=\(e)\nactual=\(a)",
        messageEn: "PoseSpec version differs from the PRD; cannot continue.\n\nexpected=\(e)\nactual=\(a)",
        payload: [("expected", e), ("actual", a)])
    case .bindingMissingAliases:
      return PoseSpecPrompt(
        key: bindingMissingKey, titleZh: "binding 缺失", titleEn: "binding missing",
        messageZh: "PoseSpec 不完整：binding 缺失。\n\nmissing=\(error.missing.joined(separator: ", "))",
        messageEn: "PoseSpec incomplete: binding missing.\n\nmissing=\(error.missing.joined(separator: ", "))",
        payload: [("missing", error.missing.joined(separator: ","))])
    case .bindingBodyPointsSetMismatch:
      return PoseSpecPrompt(
        key: bindingMissingKey, titleZh: "binding 缺失", titleEn: "binding missing",
        messageZh: "PoseSpec 不完整：binding 缺失。\n\nbodyPoints 定义不符合 PRD 4.4.2",
        messageEn: "PoseSpec incomplete: binding missing.\n\nbodyPoints definition does not conform to PRD 4.4.2")
    case .roisMissing:
      return PoseSpecPrompt(
        key: roisMissingKey, titleZh: "rois 缺失", titleEn: "rois missing",
        messageZh: "PoseSpec 不完整：rois 缺失。\n\nmissing=\(error.missing.joined(separator: ", "))",
        messageEn: "PoseSpec incomplete: rois missing.\n\nmissing=\(error.missing.joined(separator: ", "))",
        payload: [("missing", error.missing.joined(separator: ","))])
    case .missingResource, .invalidJSON, .invalidConfidenceRange, .missingRequiredKeys, .roisBadDefinition,
      .formulaInvalid, .valueInvalid:
      return PoseSpecPrompt(
        key: invalidKey, titleZh: "PoseSpec 不完整", titleEn: "PoseSpec incomplete",
        messageZh: "PoseSpec 不完整，无法继续。\n\n\(error.reason)\n\nexpected_prdVersion=\(expectedPrd)",
        messageEn: "PoseSpec incomplete, cannot continue.\n\n\(error.reason)\n\nexpected_prdVersion=\(expectedPrd)")
    }
  }
}
