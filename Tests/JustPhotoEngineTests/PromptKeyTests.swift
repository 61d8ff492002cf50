import PoseSpec
import Testing

@testable import JustPhotoEngine

/// Prompt keys are typed (ENGINE §4.5): one case per catalogue row plus the four PoseSpec
/// modals of §2.3; the rendered name is the raw value.
@Suite struct PromptKeyTests {
  @Test func everyKeyHasItsRowAndEveryRowItsKey() {
    let rows = PromptCatalogue.all.map(\.key)
    #expect(Set(rows).count == rows.count, "a key has two rows")
    let withoutRow = PromptKey.allCases.filter { PromptCatalogue.definition($0) == nil }
    #expect(withoutRow == [.posespec_invalid_modal, .posespec_version_mismatch_modal, .posespec_binding_missing_modal, .posespec_rois_missing_modal])
    #expect(withoutRow.allSatisfy { $0.isPoseSpecModal })
    #expect(!PromptKey.allCases.filter { !withoutRow.contains($0) }.contains { $0.isPoseSpecModal })
  }

  /// §2.3: each PoseSpec modal keeps its own key (no fallback is ever taken).
  @Test func poseSpecModalsMapToTheirOwnKeys() {
    for name in [
      PoseSpecPrompt.invalidKey, PoseSpecPrompt.versionMismatchKey, PoseSpecPrompt.bindingMissingKey,
      PoseSpecPrompt.roisMissingKey,
    ] {
      let p = PoseSpecPrompt(key: name, titleZh: "", titleEn: "", messageZh: "", messageEn: "")
      #expect(PromptKey(poseSpec: p).rawValue == name)
    }
  }
}
