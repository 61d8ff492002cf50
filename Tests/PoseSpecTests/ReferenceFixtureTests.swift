import Foundation
import PoseSpec
import Testing

/// The committed reference PoseSpec fixture (`Tests/Fixtures/reference-posespec.json`: the app's
/// spec copied once, every id, number, formula and card line as the app has it, the prose fields
/// — notes, meanings, QA expectations, changeLog texts — in the project's words; the repository
/// never reads outside itself).
@Suite("reference PoseSpec fixture")
struct ReferenceFixtureTests {
  @Test func theFixtureIsTheAppsSpecNotTheProjects() throws {
    // Same cues and thresholds, different wording: a mix-up of the two files would go unseen
    // by tests that only count cues.
    let reference = try SpecFixtures.bytes(SpecFixtures.referenceURL)
    let project = try SpecFixtures.bytes(SpecFixtures.projectURL)
    #expect(reference != project)
    let doc = try PoseSpecLoader.load(bytes: reference, fileName: "reference-posespec.json")
    #expect(doc.summary.cueCount == 50)
  }
}
