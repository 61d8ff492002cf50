import ArgumentParser
import Foundation
import JustPhotoPlugin
import Lab
import Recording

extension JPReplay {
  struct Spec: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "spec",
      abstract: "Work with PoseSpec files.",
      subcommands: [Validate.self, Audit.self])

    struct Validate: ParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Load and validate a PoseSpec exactly as the app does (ENGINE §2.3).",
        discussion: """
          Prints the spec's identity, cue count and the cues evaluated per UI scene. On a \
          failure exits 2 with the app's prompt key, its zh/en modal texts, the payload \
          (e.g. missing=lShoulder) and the place in the file.

          Examples:
            jpreplay spec validate PoseSpec.json
            jpreplay spec validate Tests/Fixtures/reference-posespec.json
          """)

      @Argument(help: "The PoseSpec JSON file (default: ./PoseSpec.json).")
      var path = "PoseSpec.json"

      func run() throws {
        let doc = try Harness.loadSpec(path: path)
        // Cue ids come from the file: each printed as one line (a newline in one as `\n`).
        var text = doc.summary.description
        for c in doc.cues where c.id.unicodeScalars.contains(where: { $0 == "\n" || ConsoleText.needsEscape($0) }) {
          text = text.replacingOccurrences(of: c.id, with: ConsoleText.line(c.id))
        }
        print(text)
      }
    }
  }
}
