import Foundation
import PoseSpec
import Testing

/// The committed reference PoseSpec fixture (`Tests/Fixtures/reference-posespec.json`) against
/// the app's file it was copied from, when that file is present beside the repository.
@Suite("reference PoseSpec fixture")
struct ReferenceFixtureTests {
  static let sharedReference = SpecFixtures.repoRoot.deletingLastPathComponent()
    .appendingPathComponent("shared/reference/PoseSpec.json")

  @Test func theFixtureIsTheAppsSpecByteForByteWhenPresent() throws {
    guard let shared = try? Data(contentsOf: Self.sharedReference) else {
      print("skipped: \(Self.sharedReference.path) is not present; the committed fixture stands alone")
      return
    }
    #expect(try Data(contentsOf: SpecFixtures.referenceURL) == shared)
  }

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
