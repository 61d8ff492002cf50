import Testing

@testable import Replay

/// Grouping divergences across the corpus (issue 14): a one-frame shift is one group,
/// whether it rounds to 66 or 67 ms.
@Suite("divergence shifts in frames")
struct DivergenceShiftTests {
  @Test("shifts of whole 15 Hz frames read in frames; others in ms")
  func frames() {
    #expect(DivergenceGroup.movedText(67) == "moved +1 frame (15 Hz)")
    #expect(DivergenceGroup.movedText(66) == "moved +1 frame (15 Hz)")
    #expect(DivergenceGroup.movedText(-133) == "moved -2 frames (15 Hz)")
    #expect(DivergenceGroup.movedText(33) == "moved +33 ms")
    #expect(DivergenceGroup.movedText(500) == "moved +500 ms")
  }
}
