import Foundation
import Testing

/// Camera Coach through `jpreplay` (docs/CAMERACOACH.md): its corpus verifies against its goldens
/// (rules and budget invariants judged), `faults` catches every planted fault, and `replay`
/// with a planted fault changes the trace.
@Suite("Camera Coach through jpreplay")
struct CameraCoachCLITests {
  @Test("verify passes the Camera Coach corpus; faults catches all five planted faults")
  func verifyAndFaults() throws {
    let v = try CLI.run(["verify", "--recordings-dir", "Recordings/cameracoach", "--golden-dir", "Golden/cameracoach", "--update", "no"])
    #expect(v.code == 0, "\(v.stdout)\(v.stderr)")
    #expect(v.stdout.contains(" passed, 0 failed"), "\(v.stdout)")
    let f = try CLI.run(["faults", "--recordings", "Recordings/cameracoach"])
    #expect(f.code == 0, "\(f.stderr)")
    #expect(f.stdout.hasPrefix("faults (Camera Coach): 5 on "), "\(f.stdout)")
    for name in ["cc-y-not-flipped", "cc-headroom-from-bottom", "cc-landmark-x-not-mirrored", "cc-letterbox-ignored", "cc-no-rate-limit"] {
      #expect(f.stdout.contains("caught   \(name): "), "\(name): \(f.stdout)")
    }
    #expect(try CLI.run(["faults", "--list"]).stdout.contains("cc-no-rate-limit: "))
  }

  @Test("replay --plant-fault cc-landmark-x-not-mirrored turns the back camera's thirds advice around")
  func plantedReplay() throws {
    let rec = "Recordings/cameracoach/thirds-back-camera.jprec"
    let clean = try CLI.run(["replay", rec])
    #expect(clean.code == 0)
    #expect(clean.stdout.contains(#""advice":"thirds","direction":"left""#))
    let faulty = try CLI.run(["replay", rec, "--plant-fault", "cc-landmark-x-not-mirrored"])
    #expect(faulty.code == 0, "\(faulty.stderr)")
    #expect(faulty.stdout.contains(#""advice":"thirds","direction":"right""#))
    #expect(faulty.stderr.contains("planted fault cc-landmark-x-not-mirrored is ON: Camera Coach recordings"))
  }
}
