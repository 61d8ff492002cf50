import Foundation
import PoseSpec
import Testing

/// The committed reference PoseSpec fixture (`Tests/Fixtures/reference-posespec.json`: the app's
/// spec copied once, every id, number and formula as the app has it, the prose fields — notes,
/// meanings, QA expectations, changeLog texts — in the project's words, and each card line a
/// neutral placeholder naming its cue, language and variant (`FRAME_MOVE_LEFT en v0`,
/// `FRAME_MOVE_LEFT 提示 v0`, the praise freeze `PRAISE_FREEZE en v0`): the project carries the
/// app's facts, never its sentences (issue 36, `AppSentenceTests`); the repository never reads
/// outside itself).
@Suite("reference PoseSpec fixture")
struct ReferenceFixtureTests {
  @Test func theFixtureIsTheAppsSpecNotTheProjects() throws {
    // Same cues and thresholds, different card lines (placeholders against the project's
    // wording): a mix-up of the two files would go unseen by tests that only count cues.
    let reference = try SpecFixtures.bytes(SpecFixtures.referenceURL)
    let project = try SpecFixtures.bytes(SpecFixtures.projectURL)
    #expect(reference != project)
    let doc = try PoseSpecLoader.load(bytes: reference, fileName: "reference-posespec.json")
    #expect(doc.summary.cueCount == 50)
  }
}
